// Test support: the CLI's Backend over a real runtime in this process (a temporary data dir and
// project folder, the offline demo model), as `tangent chat` and `tangent acp` get it locally.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { inProcessApi, Runtime } from '@tangent/runtime'
import { ApiBackend } from './api-backend.js'
import type { Backend, TurnResult } from './backend.js'

export interface LocalBackend {
  backend: Backend
  /** The project folder new sessions work in (a real directory). */
  project: string
  /** Runs one turn and waits for its end. */
  turn(sessionId: string, text: string): Promise<TurnResult>
  /** Waits until each session has no running turn. */
  idle(sessionIds: string[]): Promise<void>
  close(): Promise<void>
}

/** `demoDelayMs`: how slowly the demo model streams (a turn that is still running when looked at). */
export async function openLocalBackend(options: { demoDelayMs?: number } = {}): Promise<LocalBackend> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-local-backend-')))
  const project = path.join(root, 'project')
  fs.mkdirSync(project)
  const runtime = await Runtime.open({
    home: path.join(root, 'home'),
    startFolder: project,
    homeDir: root,
    env: {},
    report: () => {},
    ...(options.demoDelayMs !== undefined ? { demoDelayMs: options.demoDelayMs } : {}),
  })
  const backend = new ApiBackend(inProcessApi(runtime))
  return {
    backend,
    project,
    turn: (sessionId, text) => backend.prompt(sessionId, text, { onEvent: () => {}, onDelta: () => {} }),
    async idle(sessionIds) {
      const deadline = Date.now() + 30_000
      for (;;) {
        const statuses = await Promise.all(
          sessionIds.map(
            async (id) => (await backend.getSession(id, Number.MAX_SAFE_INTEGER)).session.status,
          ),
        )
        if (statuses.every((status) => status === 'idle')) return
        if (Date.now() > deadline) throw new Error(`sessions still running: ${statuses.join(', ')}`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    },
    async close() {
      await backend.close()
      fs.rmSync(root, { recursive: true, force: true })
    },
  }
}
