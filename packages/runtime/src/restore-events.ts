// `files/restored` events (docs/protocol.md "Events"): a restore of a session's files, or the
// undo of one, recorded in the session's log with what it wrote and the tree that undoes it.
import { type Session, type SessionEvent, TangentError } from '@tangent/core'
import { FilesRestoredData } from '@tangent/protocol'

export interface RestoreEvent {
  seq: number
  data: FilesRestoredData
}

/** The event's data when it is a well-formed `files/restored`, else null. */
export function restoreEventOf(event: SessionEvent | undefined): RestoreEvent | null {
  if (event?.type !== 'files/restored') return null
  const parsed = FilesRestoredData.safeParse(event.data)
  return parsed.success ? { seq: event.seq, data: parsed.data } : null
}

/**
 * The restore to undo: the one at `seq`, or the session's latest one not undone yet that
 * changed something. Only
 * the session's own restores (a fork's timeline starts empty); an undo cannot be undone
 * (restore again instead). Throws `not-a-restore` with what to do.
 */
export function undoableRestore(session: Session, seq: number | undefined): RestoreEvent {
  const own = session.seqsOfType('files/restored').filter((at) => at >= session.inheritedEventCount)
  const undone = new Set<number>()
  const restores: RestoreEvent[] = []
  for (const at of own) {
    const restore = restoreEventOf(session.events[at])
    if (!restore) continue
    if (restore.data.undoOf !== undefined) undone.add(restore.data.undoOf)
    else restores.push(restore)
  }
  if (seq === undefined) {
    // The latest that changed something (an older log may hold restores that wrote nothing).
    const latest = restores
      .filter((restore) => !undone.has(restore.seq) && restore.data.restored.length > 0)
      .at(-1)
    if (!latest) {
      throw new TangentError(
        'not-a-restore',
        `Session ${session.id} has no restore to undo: restore its files first (\`tangent restore ${session.id} --to SEQ\`).`,
        { sessionId: session.id },
      )
    }
    return latest
  }
  const target = restores.find((restore) => restore.seq === seq)
  if (!target) {
    throw new TangentError(
      'not-a-restore',
      `Seq ${seq} of session ${session.id} is not a restore of its files: give the seq of a "Restored files" row.`,
      { sessionId: session.id, seq },
    )
  }
  if (undone.has(seq)) {
    throw new TangentError(
      'not-a-restore',
      `The restore at seq ${seq} of session ${session.id} was already undone.`,
      {
        sessionId: session.id,
        seq,
      },
    )
  }
  return target
}

/** Whether a `files/restored` after `afterSeq` undid the restore at `restoreSeq`. */
export function restoreUndone(session: Session, restoreSeq: number, afterSeq: number): boolean {
  return session
    .seqsOfType('files/restored')
    .some((seq) => seq > afterSeq && restoreEventOf(session.events[seq])?.data.undoOf === restoreSeq)
}
