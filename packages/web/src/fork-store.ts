// Forking from the page: one branch per request (a double click joins the fork on its way), the
// child added, shown under its expanded parent and opened, with the composer's text when the
// fork was "Edit in new branch".
import { RpcError } from '@tangent/protocol'
import type { ComposerStore } from './composer-store.js'
import type { OpenSessionStore } from './open-session-store.js'
import type { SessionsStore } from './sessions-store.js'
import type { StoreDeps } from './store-deps.js'
import { randomId } from './store-helpers.js'
import type { ViewStore } from './view-store.js'
import type { ForkRequest, SessionSummary } from './wire.js'

export interface ForkDeps extends StoreDeps {
  readonly view: ViewStore
  readonly sessions: SessionsStore
  readonly composer: ComposerStore
  readonly open: OpenSessionStore
}

export class ForkStore {
  readonly #deps: ForkDeps
  /** Forks on their way, by request: a second identical one joins the first. */
  readonly #forking = new Map<string, Promise<SessionSummary | null>>()

  constructor(deps: ForkDeps) {
    this.#deps = deps
  }

  /**
   * Forks and opens the child. The same request while one is on its way (a double click on
   * "Branch from here") is that one: one click, one branch.
   */
  fork(request: Omit<ForkRequest, 'requestId'>, draft?: string): Promise<SessionSummary | null> {
    const key = JSON.stringify(request)
    const pending = this.#forking.get(key)
    if (pending) return pending
    const started = this.#forkOnce(request, draft).finally(() => this.#forking.delete(key))
    this.#forking.set(key, started)
    return started
  }

  /**
   * Forks, then opens the child with its parent expanded. When the Host published the child
   * but could not attach it (`workspace-attach-failed`), the child is still added and opened
   * before the error is shown, so the tree never hides a session that exists.
   */
  async #forkOnce(request: Omit<ForkRequest, 'requestId'>, draft?: string): Promise<SessionSummary | null> {
    const { notices, open } = this.#deps
    const client = this.#deps.client()
    let child: SessionSummary | null = null
    try {
      const result = await client.call('session.fork', { ...request, requestId: randomId() })
      child = result.session
      // Said once, in a notice the page's live region reads out: the worktree lacks these files.
      const leftOut = result.worktree?.leftOut ?? []
      if (leftOut.length > 0)
        notices.notify(
          'info',
          'files-left-out',
          `Not in the fork's worktree (too big to snapshot, or not a regular file): ${leftOut.join(', ')}. Copy them in yourself if it needs them.`,
          // Said in the child, which opens next.
          { sessionId: child.id },
        )
    } catch (error) {
      const attached = error instanceof RpcError && error.dataCode === 'workspace-attach-failed'
      const childId = attached ? error.data.sessionId : undefined
      if (typeof childId === 'string') {
        try {
          child = (await client.call('session.get', { sessionId: childId })).session
          this.#adoptChild(child, draft)
          await open.switchTo(child.id)
        } catch (lookupError) {
          notices.report(lookupError)
        }
      }
      notices.report(error)
      return child
    }
    this.#adoptChild(child, draft)
    await open.switchTo(child.id)
    return child
  }

  #adoptChild(child: SessionSummary, draft: string | undefined): void {
    const { state, sessions, view, composer } = this.#deps
    sessions.upsert(child)
    state.set({
      ...view.expanding(child.parentSession !== null ? [child.parentSession] : []),
      ...composer.drafting(child.id, draft),
    })
  }
}
