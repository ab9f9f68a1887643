// Restoring a session's files to the end of a turn, and undoing a restore; a `files-conflict`
// (files changed since) opens the conflict dialog with its paths, from which either is forced.
import { RpcError } from '@tangent/protocol'
import type { RestoreConflict } from './host-state.js'
import type { StoreDeps } from './store-deps.js'

export class RestoreStore {
  readonly #deps: StoreDeps

  constructor(deps: StoreDeps) {
    this.#deps = deps
  }

  /** Restores the session's files to the end of the turn at `seq` (recorded as a `files/restored` row). */
  async restore(sessionId: string, seq: number, force = false): Promise<void> {
    try {
      const result = await this.#deps.client().call('snapshot.restore', { sessionId, seq, force })
      const n = result.restored.length
      this.#deps.state.set({ restoreConflict: null })
      // With a recorded restore (its seq) the notice offers Undo, and so stays until answered.
      const undo =
        n > 0 && result.seq !== undefined
          ? { kind: 'undo-restore' as const, label: 'Undo', sessionId, seq: result.seq }
          : undefined
      this.#deps.notices.notify(
        'info',
        'restored',
        n === 0
          ? 'Nothing to restore: no file this session changed differs from that point.'
          : result.seq !== undefined
            ? `Restored ${n} file${n === 1 ? '' : 's'}: ${result.restored.join(', ')}. Undo it here or from its row in the transcript.`
            : `Restored ${n} file${n === 1 ? '' : 's'}: ${result.restored.join(', ')}. The files as they were before are kept in snapshot ${result.undoTree.slice(0, 10)}.`,
        { sessionId, ...(undo ? { action: undo } : {}) },
      )
    } catch (error) {
      if (!this.#conflict(error, { kind: 'restore', sessionId, seq }))
        this.#deps.notices.report(error, { sessionId })
    }
  }

  /**
   * Undoes the restore recorded at `seq` (a `files/restored` event): its files go back to
   * how they were just before it. A `files-conflict` opens the same dialog as a restore's.
   */
  async undoRestore(sessionId: string, seq: number, force = false): Promise<boolean> {
    try {
      const result = await this.#deps.client().call('snapshot.undoRestore', {
        sessionId,
        seq,
        ...(force ? { force } : {}),
      })
      const n = result.restored.length
      this.#deps.state.set({ restoreConflict: null })
      this.#deps.notices.notify(
        'info',
        'restore-undone',
        n === 0
          ? 'Undid the restore: no file needed changing.'
          : `Undid the restore: ${n} file${n === 1 ? '' : 's'} back as before it: ${result.restored.join(', ')}.`,
        { sessionId },
      )
      return true
    } catch (error) {
      if (!this.#conflict(error, { kind: 'undo', sessionId, seq }))
        this.#deps.notices.report(error, { sessionId })
      return false
    }
  }

  /** A `files-conflict` from a restore or its undo: lists the paths in the conflict dialog. */
  #conflict(error: unknown, what: Omit<RestoreConflict, 'paths'>): boolean {
    if (!(error instanceof RpcError) || error.dataCode !== 'files-conflict') return false
    const paths = error.data.paths
    if (!Array.isArray(paths)) return false
    this.#deps.state.set({ restoreConflict: { ...what, paths: paths.map(String) } })
    return true
  }

  dismissConflict(): void {
    this.#deps.state.set({ restoreConflict: null })
  }
}
