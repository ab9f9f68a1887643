// Keeping a branch (docs/architecture.md §13.4): its file changes since the fork point are merged
// into its parent's directory (three-way, against the fork point's tree), the parent's log
// records which branch was kept with a summary the next turn's model reads, and the branch's
// siblings are archived with their clean worktrees removed. Files are written through the safe
// restore, so `snapshot.undoRestore` undoes them (and the keep with them); a conflict writes nothing.
import {
  type AssistantMessageData,
  replayNoteOpening,
  type Session,
  type SessionPersistence,
  TangentError,
  type UserMessageData,
} from '@tangent/core'
import type { SessionKeepParams, SessionKeepResult } from '@tangent/protocol'
import { latestCheck } from './board.js'
import { headerMetaOf } from './header-meta.js'
import { restoreUndone } from './restore-events.js'
import type { SessionBusy } from './session-busy.js'
import type { SessionFiles } from './session-files.js'
import type { SessionHooks } from './session-hooks.js'
import type { SessionWorktrees } from './session-worktrees.js'
import type { Sessions } from './sessions.js'
import type { WriteAccess } from './write-access.js'

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

export interface KeepingDeps {
  /** Its `keep` hooks run once a keep is recorded (§12.7). */
  hooks: SessionHooks
  store: SessionPersistence
  access: WriteAccess
  busy: SessionBusy
  sessions: Sessions
  files: SessionFiles
  worktrees: SessionWorktrees
  announce(sessionId: string, name: 'session-updated'): void
}

/** The keep operation over the runtime's sessions, files and worktrees. */
export class Keeping {
  readonly #deps: KeepingDeps

  constructor(deps: KeepingDeps) {
    this.#deps = deps
  }

  /**
   * Keeps a branch: merges its file changes since the fork point into its parent's directory
   * (refusing with \`files-conflict\` and the paths, writing nothing), records the keep and a
   * summary in the parent's log, archives its siblings and removes their clean worktrees.
   */
  async keep(params: SessionKeepParams): Promise<SessionKeepResult> {
    const { access, busy, sessions } = this.#deps
    access.assertWritable('keep a branch')
    const branch = await sessions.load(params.sessionId)
    const parentId = branch.header.parentSession
    if (typeof parentId !== 'string') {
      throw new TangentError(
        'invalid-params',
        `Session ${branch.id} is not a fork: keep a branch into the session it was forked from.`,
        { issues: [{ path: ['sessionId'], message: 'not a fork' }] },
      )
    }
    const parent = await sessions.load(parentId)
    const takeoverBranch = access.takeOverAbandoned(branch)
    if (takeoverBranch) await takeoverBranch
    const takeoverParent = access.takeOverAbandoned(parent)
    if (takeoverParent) await takeoverParent
    busy.assertIdle(branch, 'keep it')
    busy.assertIdle(parent, 'keep a branch into it')
    access.assertOnThisMachine(parent, 'keep a branch into it')
    return access.claimed(parent.id, () => this.#keep(params, branch, parent))
  }

  async #keep(params: SessionKeepParams, branch: Session, parent: Session): Promise<SessionKeepResult> {
    const { sessions, worktrees } = this.#deps
    assertKeepable(parent, branch)
    const files = await this.#deps.files.state()
    const meta = headerMetaOf(branch.header)
    const label = meta.exploration?.label
    const mode = meta.files?.mode ?? 'shared'
    let applied: string[] = []
    let restoreSeq: number | undefined
    let tree: string | undefined
    if (mode === 'worktree') {
      // The branch's files as they are now (hand edits in its worktree included).
      tree = (await files.snapshot(branch.header.cwd)).tree
      const theirs = tree
      await this.#deps.busy.rewritingFiles(parent, `keeping branch ${label ?? branch.id}`, async () => {
        const ours = (await files.snapshot(parent.header.cwd)).tree
        const merge = await files.mergeTrees({ base: meta.baseTree ?? null, ours, theirs })
        if (merge.conflicts.length > 0) {
          throw new TangentError(
            'files-conflict',
            `Keeping ${branch.id} would overwrite lines ${parent.id} changed since the fork in ${merge.conflicts.join(', ')}: nothing was written. Resolve them in one of the sessions, then keep again.`,
            { paths: merge.conflicts, undoTree: ours },
          )
        }
        if (merge.changed.length === 0) return
        const recorded = await this.#deps.files.recordedRestore(
          parent,
          { keptFrom: { sessionId: branch.id, ...(label !== undefined ? { label } : {}) } },
          (commit) =>
            files.restoreTree({
              cwd: parent.header.cwd,
              tree: merge.tree,
              paths: merge.changed,
              expectTree: ours,
              commit,
            }),
        )
        applied = recorded.restored
        restoreSeq = recorded.seq
      })
    }
    // The other branches of its exploration; archived unless the caller keeps them listed.
    const explorationSiblings =
      meta.exploration === undefined
        ? []
        : (await sessions.list({})).filter(
            (summary) => summary.exploration?.id === meta.exploration!.id && summary.id !== branch.id,
          )
    const siblings = params.archiveOthers === false ? [] : explorationSiblings
    const data: BranchKeptData = {
      sessionId: branch.id,
      ...(label !== undefined ? { label } : {}),
      title: branch.title ?? '',
      throughSeq: branch.lastSeq,
      files: mode,
      ...(tree !== undefined ? { tree } : {}),
      applied,
      ...(restoreSeq !== undefined ? { restoreSeq } : {}),
      summary: summarizeBranch(branch, { label, mode, changed: applied }),
      archived: siblings.map((sibling) => sibling.id),
    }
    const kept = parent.append('branch/kept', data)
    await this.#deps.store.flush(parent.id)
    this.#deps.announce(parent.id, 'session-updated')
    const worktreeOutcomes: SessionKeepResult['worktrees'] = []
    for (const sibling of siblings) {
      await sessions.setArchived({ sessionId: sibling.id, archived: true })
      if (sibling.files.mode !== 'worktree') continue
      const users = (await worktrees.sessionsWorkingIn(sibling.files.path)).filter((id) => id !== sibling.id)
      if (users.length > 0) {
        worktreeOutcomes.push({
          sessionId: sibling.id,
          path: sibling.files.path,
          removed: false,
          reason: `sessions ${users.join(', ')} still work in it`,
        })
        continue
      }
      // A worktree whose files are all in the branch's history (nothing changed since its last
      // snapshot) is removed — a fork at that point brings it back; one with newer changes stays.
      const outcome = await worktrees.removeCaptured(sibling.id, sibling.files.path)
      worktreeOutcomes.push({
        sessionId: sibling.id,
        path: sibling.files.path,
        removed: outcome.removed,
        ...(outcome.reason !== undefined ? { reason: outcome.reason } : {}),
      })
    }
    await this.#deps.hooks.fire(
      'keep',
      { sessionId: parent.id, cwd: parent.header.cwd },
      {
        kept: {
          sessionId: branch.id,
          ...(label !== undefined ? { label } : {}),
          title: data.title,
          throughSeq: data.throughSeq,
          files: mode,
          applied,
        },
        siblings: explorationSiblings.map((sibling) => ({
          sessionId: sibling.id,
          ...(sibling.exploration?.label !== undefined ? { label: sibling.exploration.label } : {}),
          title: sibling.title,
          archived: siblings.includes(sibling),
        })),
      },
    )
    return {
      kept: branch.id,
      parent: parent.id,
      seq: kept.seq,
      files: { mode, applied, ...(restoreSeq !== undefined ? { restoreSeq } : {}) },
      archived: [...data.archived],
      worktrees: worktreeOutcomes,
    }
  }
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
