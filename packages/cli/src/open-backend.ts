// Picks the Backend for a command: the Host when one is live on the data dir
// (its discovery file answers), else the store opened by this process.
import fs from 'node:fs'
import path from 'node:path'
import { TangentError } from '@tangent/core'
import type { Backend } from './backend.js'
import type { CliContext } from './context.js'

export interface OpenBackendOptions {
  /** Commands that only read open the local store without the writer lock. */
  readOnly?: boolean
}

// The two backends are loaded on demand (not to dodge a cycle: for start-up time). Each pulls
// in the agent, providers, git and store code, and `--help` or a usage error needs none of it.
export async function openBackend(context: CliContext, options: OpenBackendOptions = {}): Promise<Backend> {
  assertHomeIsDirectory(context.home)
  // No discovery file, no Host: skip loading the Host's module just to learn that.
  if (fs.existsSync(path.join(context.home, 'host.json'))) {
    const { readHostDiscovery } = await import('@tangent/host')
    const discovery = await readHostDiscovery(context.home)
    if (discovery !== null) {
      const { connectHostBackend } = await import('./host-backend.js')
      return connectHostBackend(discovery)
    }
  }
  const { openLocalBackend } = await import('./local-backend.js')
  return openLocalBackend({ home: context.home, env: context.env, readOnly: options.readOnly ?? false })
}

/** A data dir that exists must be a directory (a missing one is created by the store). */
function assertHomeIsDirectory(home: string): void {
  const stat = fs.statSync(home, { throwIfNoEntry: false })
  if (stat && !stat.isDirectory()) {
    throw new TangentError(
      'home-not-directory',
      `The data directory ${home} is not a directory: point TANGENT_HOME at a directory (or unset it for the default).`,
      { home },
    )
  }
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
