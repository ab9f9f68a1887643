// Picks the Backend for a command: the Host when one is live on the data dir
// (its discovery file answers), else the store opened by this process.
import { readHostDiscovery } from '@tangent/host'
import type { Backend } from './backend.js'
import type { CliContext } from './context.js'
import { connectHostBackend } from './host-backend.js'
import { openLocalBackend } from './local-backend.js'

export interface OpenBackendOptions {
  /** Commands that only read open the local store without the writer lock. */
  readOnly?: boolean
}

export async function openBackend(context: CliContext, options: OpenBackendOptions = {}): Promise<Backend> {
  const discovery = await readHostDiscovery(context.home)
  if (discovery !== null) return connectHostBackend(discovery)
  return openLocalBackend({ home: context.home, env: context.env, readOnly: options.readOnly ?? false })
}

/** Opens a backend, runs `work` with it and always closes it. */
export async function withBackend<T>(
  context: CliContext,
  options: OpenBackendOptions,
  work: (backend: Backend) => Promise<T>,
): Promise<T> {
  const backend = await openBackend(context, options)
  try {
    return await work(backend)
  } finally {
    await backend.close()
  }
}
