// Keeping a branch (docs/architecture.md §13.4): its file changes since the fork point are merged
// into its parent's directory (three-way, against the fork point's tree), the parent's log
// records which branch was kept with a summary the next turn's model reads, and the branch's
// siblings are archived with their clean worktrees removed. Files are written through the safe
// restore, so `snapshot.undoRestore` undoes them (and the keep with them); a conflict writes nothing.
import {
  type AssistantMessageData,
  replayNoteOpening,
  type Session,
  TangentError,
  type UserMessageData,
} from '@tangent/core'
import { latestCheck } from './board.js'
import { restoreEventOf } from './restore-events.js'

export interface BranchKeptData {
  sessionId: string
  label?: string
  title: string
  /** The branch's last seq that was kept. */
  throughSeq: number
  files: 'shared' | 'worktree'
  /** The branch's files' tree that was merged (worktree branches). */
  tree?: string
  /** Paths written into this session's directory. */
  applied: string[]
  restoreSeq?: number
  /** What the model of this session is told about the branch (replay sends it with the next message). */
  summary: string
  archived: string[]
}

/**
 * Refuses (`already-kept`) to keep a branch again when its latest keep into `parent` holds all
 * it has (a second click on Keep would only log the same note twice). A branch that went on
 * working may be kept again, and so may one whose keep was undone (its restore undone in the
 * parent: its files are no longer there).
 */
export function assertKeepable(parent: Session, branch: Session): void {
  for (let i = parent.events.length - 1; i >= 0; i--) {
    const event = parent.events[i]!
    if (event.type !== 'branch/kept') continue
    const kept = event.data as { sessionId?: unknown; throughSeq?: unknown; restoreSeq?: unknown }
    if (kept.sessionId !== branch.id) continue
    if (kept.throughSeq !== branch.lastSeq) return
    if (typeof kept.restoreSeq === 'number' && restoreUndone(parent, kept.restoreSeq, event.seq)) return
    throw new TangentError(
      'already-kept',
      `Branch ${branch.id} was kept into ${parent.id} at #${event.seq} and has not changed since: there is nothing new to keep.`,
      { sessionId: branch.id, seq: event.seq },
    )
  }
}

/** Whether a `files/restored` after `afterSeq` undid the restore at `restoreSeq`. */
function restoreUndone(session: Session, restoreSeq: number, afterSeq: number): boolean {
  return session
    .seqsOfType('files/restored')
    .some((seq) => seq > afterSeq && restoreEventOf(session.events[seq])?.data.undoOf === restoreSeq)
}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

/** A short, factual account of what a branch did since its fork point (no model call: it cannot fail). */
export function summarizeBranch(
  branch: Session,
  options: { label?: string | undefined; mode: 'shared' | 'worktree'; changed: readonly string[] },
): string {
  const own = branch.events.slice(branch.inheritedEventCount)
  const asked = own
    .filter((event) => event.type === 'user/message')
    .map((event) =>
      (event.data as UserMessageData).content.map((part) => (part.type === 'text' ? part.text : '')).join(''),
    )
    .filter((text) => text.trim() !== '')
  const answered = own
    .filter((event) => event.type === 'assistant/message')
    .map((event) =>
      (event.data as AssistantMessageData).content
        .map((part) => (part.type === 'text' ? part.text : ''))
        .join(''),
    )
    .filter((text) => text.trim() !== '')
    .at(-1)
  const check = latestCheck(own)
  const name = `branch ${options.label ? `${options.label} ` : ''}"${branch.title || branch.id}" (${branch.id})`
  // A note of its own in the next user message (core's replay): readers tell it from the user's words.
  const lines = [`${replayNoteOpening}${name} was kept.]`]
  if (asked.length > 0)
    lines.push(`It was asked: ${asked.map((text) => `"${clip(text.trim(), 300)}"`).join('; ')}.`)
  if (answered) lines.push(`Its last answer: "${clip(answered.trim(), 600)}"`)
  if (options.mode === 'shared')
    lines.push('It worked in this same directory, so its file changes are already here.')
  else if (options.changed.length > 0)
    lines.push(`Its file changes are now in this directory: ${clip(options.changed.join(', '), 400)}.`)
  else lines.push('It changed no files.')
  if (check)
    lines.push(
      `Its check \`${clip(check.command, 100)}\` ${check.ok ? 'passed' : `failed${check.exitCode !== null ? ` (exit ${check.exitCode})` : ''}`}.`,
    )
  return lines.join('\n')
}
