// `--continue` of `tangent chat` and `tangent run` (docs/architecture.md §12.6): the session
// the user worked in last in this folder, as `claude --continue` picks the latest conversation.
import fs from 'node:fs'
import { TangentError } from '@tangent/core'
import type { Backend, SessionSummary } from './backend.js'

/**
 * The id of the most recently active session whose directory is `folder` (archived ones
 * left out); `session-not-found` naming the folder when it has none.
 */
export async function latestSessionIn(backend: Backend, folder: string): Promise<string> {
  // The runtime keeps real paths (docs/architecture.md §7): compare with the folder's.
  const real = fs.realpathSync(folder)
  const sessions = await backend.listSessions({ includeArchived: false })
  const latest = sessions
    .filter((session) => session.cwd === real)
    .reduce<SessionSummary | null>(
      (best, session) => (best === null || newer(session, best) ? session : best),
      null,
    )
  if (latest === null) {
    throw new TangentError(
      'session-not-found',
      `No session to continue in ${real}: start one with \`tangent chat\`, or list them all with \`tangent sessions\`.`,
      { cwd: real },
    )
  }
  return latest.id
}

/** Latest activity first; of two as recent, the one created later (ULIDs sort by creation). */
function newer(a: SessionSummary, b: SessionSummary): boolean {
  return a.updatedAt !== b.updatedAt ? a.updatedAt > b.updatedAt : a.id > b.id
}
