// Shared-directory honesty (docs/architecture.md §5): which live sessions are running a turn in one
// directory, so the Host can warn when a second one starts there.
import type { SessionStore } from '@tangent/core'

export function sessionsRunningIn(store: SessionStore, cwd: string): string[] {
  const running: string[] = []
  for (const session of store.sessions()) {
    if (session.header.cwd === cwd && session.isTurnOpen) running.push(session.id)
  }
  return running
}
