// Waits for the branches of an exploration to end (docs/architecture.md §9, §13): their first
// turns run in the background of whoever serves the store (this process or a Host), so the
// command reads each branch's log until its turn ended and, with a check, its `check/ran` is
// recorded. Reading the log (not a subscription) works the same over both backends and cannot
// miss an end that happened before the command started watching.
import type { Backend, SessionEvent, SessionSummary } from './backend.js'

/** How one branch ended: its turn's reason, or `not-started` when its turn never began. */
export type BranchOutcome = 'completed' | 'aborted' | 'error' | 'max-steps' | 'interrupted' | 'not-started'

export interface BranchEnd {
  session: SessionSummary
  outcome: BranchOutcome
  /** The turn's error message, when it ended in an error. */
  error?: string | undefined
}

export interface BranchWatchOptions {
  /** Whether the branches run a check after their turn (they are not done until it is recorded). */
  withCheck: boolean
  /** Called once per branch, in the order they end. */
  onEnd(end: BranchEnd): void | Promise<void>
  /** Called once per branch that asks for an approval nobody answered yet. */
  onWaiting?(session: SessionSummary, tool: string): void
  pollMs?: number
  /** How long no branch may be running while some never started before they count as `not-started`. */
  stalledMs?: number
}

interface Progress {
  session: SessionSummary
  nextSeq: number
  started: boolean
  turnEnd: { seq: number; reason: BranchOutcome; error?: string } | null
  checked: boolean
  waitingNoted: boolean
  /** Approvals asked and not answered yet: callId → tool. */
  open: Map<string, string>
  done: boolean
}

/** Resolves with every branch's end (in `sessions` order) once all of them ended. */
export async function watchBranches(
  backend: Backend,
  sessions: readonly SessionSummary[],
  options: BranchWatchOptions,
): Promise<BranchEnd[]> {
  const pollMs = options.pollMs ?? 150
  const stalledMs = options.stalledMs ?? 3000
  const progress: Progress[] = sessions.map((session) => ({
    session,
    nextSeq: session.inheritedEventCount,
    started: false,
    turnEnd: null,
    checked: false,
    waitingNoted: false,
    open: new Map(),
    done: false,
  }))
  const ends = new Map<string, BranchEnd>()
  let idleSince: number | null = null
  for (;;) {
    for (const branch of progress.filter((candidate) => !candidate.done)) {
      const { session, events } = await backend.getSession(branch.session.id, branch.nextSeq)
      branch.session = session
      for (const event of events) read(branch, event)
      if (!branch.waitingNoted && branch.open.size > 0) {
        branch.waitingNoted = true
        options.onWaiting?.(session, [...branch.open.values()][0]!)
      }
      const turnEnd = branch.turnEnd
      if (turnEnd === null) continue
      const needsCheck = options.withCheck && turnEnd.reason !== 'aborted' && turnEnd.reason !== 'interrupted'
      if (needsCheck && !branch.checked) continue
      branch.done = true
      const end: BranchEnd = { session, outcome: turnEnd.reason, error: turnEnd.error }
      ends.set(session.id, end)
      await options.onEnd(end)
    }
    const waiting = progress.filter((branch) => !branch.done)
    if (waiting.length === 0) break
    // A branch whose prompt failed before its turn began (the runtime reports it, nothing is
    // logged) would be waited for forever: once nothing has run for a while, it is given up.
    if (waiting.every((branch) => !branch.started)) {
      idleSince ??= Date.now()
      if (Date.now() - idleSince >= stalledMs) {
        for (const branch of waiting) {
          const end: BranchEnd = { session: branch.session, outcome: 'not-started' }
          ends.set(branch.session.id, end)
          await options.onEnd(end)
        }
        break
      }
    } else idleSince = null
    await new Promise((resolve) => setTimeout(resolve, pollMs))
  }
  return sessions.map((session) => ends.get(session.id)!)
}

function read(branch: Progress, event: SessionEvent): void {
  branch.nextSeq = event.seq + 1
  const data = (event.data ?? {}) as Record<string, unknown>
  if (event.type === 'turn/start' && branch.turnEnd === null) branch.started = true
  else if (event.type === 'turn/end' && branch.turnEnd === null) {
    branch.turnEnd = {
      seq: event.seq,
      reason: (typeof data.reason === 'string' ? data.reason : 'completed') as BranchOutcome,
      ...(typeof data.error === 'string' ? { error: data.error } : {}),
    }
  } else if (event.type === 'check/ran' && branch.turnEnd !== null && data.afterSeq === branch.turnEnd.seq)
    branch.checked = true
  else if (event.type === 'permission/requested' && typeof data.callId === 'string')
    branch.open.set(data.callId, String(data.toolName))
  else if (event.type === 'permission/answered' && typeof data.callId === 'string')
    branch.open.delete(data.callId)
}
