// The slash commands that act on a session — /fork, /explore, /compact, /restore, /undo, /keep,
// /diff (/compare) — run once for every front-end that offers them: `tangent chat` prints the
// result, `tangent acp` sends it to the editor (acp/acp-commands.ts). What a front-end does
// beyond the text (continue in a new session) is said in the result, not done here.
import { TangentError } from '@tangent/core'
import picocolors from 'picocolors'
import type { Backend, CompareResult } from './backend.js'
import type { SlashCommand } from './chat-slash.js'
import { describeFailure, formatFailure } from './cli-error.js'
import { describeCompaction } from './commands/compact.js'
import { keepLines } from './commands/keep.js'
import { type Style, safeLine, titleOf } from './render/style.js'

/** The commands this module runs (the others — /tree, /switch, /model, /show… — are chat's own). */
export type SessionCommand = Extract<
  SlashCommand,
  { name: 'fork' | 'explore' | 'compact' | 'restore' | 'undo' | 'keep' | 'diff' }
>

export const sessionCommandNames: readonly SessionCommand['name'][] = [
  'fork',
  'explore',
  'compact',
  'restore',
  'undo',
  'keep',
  'diff',
]

export function isSessionCommand(command: SlashCommand): command is SessionCommand {
  return (sessionCommandNames as readonly string[]).includes(command.name)
}

export interface SessionCommandResult {
  /**
   * What to show: lines styled with the `style` given (none by default: plain text, no ANSI),
   * untrusted parts (titles, paths, messages) escaped by `safeLine`.
   */
  text: string
  /**
   * `done`; `refused` when there was nothing to act on (no session yet); `failed` when the
   * runtime refused it (a bad seq or id, a running turn): `text` says why, nothing changed.
   */
  outcome: 'done' | 'refused' | 'failed'
  /** The session the command made (/fork). */
  newSessionId?: string
  /** The session the front-end should go on in: chat switches to it, an editor is told to open it. */
  switchTo?: string
  /** The title of `newSessionId` ('' when it has none). */
  title?: string
  /** Branches /explore made, in order (A, B, …); their first turns are running. */
  branches?: { label: string; sessionId: string; title: string }[]
}

export interface SessionCommandOptions {
  /** Colours (chat at a terminal); plain by default. */
  style?: Style
  /**
   * Who shows the text: its follow-up hints name what that front-end offers (`/switch` exists in
   * chat only; an editor opens a session itself).
   */
  frontEnd: 'chat' | 'editor'
}

const plain: Style = picocolors.createColors(false)

/**
 * Runs one command on `sessionId` (null: chat before its first message). A failure the user can
 * act on (any error with a Tangent code) is returned as `outcome: 'failed'` with the CLI's one
 * line for it; anything else is a programming error and is thrown.
 */
export async function runSessionCommand(
  backend: Backend,
  sessionId: string | null,
  command: SessionCommand,
  options: SessionCommandOptions,
): Promise<SessionCommandResult> {
  const style = options.style ?? plain
  try {
    return await run(backend, sessionId, command, style, options.frontEnd)
  } catch (error) {
    const report = describeFailure(error)
    if (report.code === 'internal' && !TangentError.isInstance(error)) throw error
    return { text: style.red(formatFailure(report)), outcome: 'failed' }
  }
}

async function run(
  backend: Backend,
  current: string | null,
  command: SessionCommand,
  style: Style,
  frontEnd: 'chat' | 'editor',
): Promise<SessionCommandResult> {
  if (command.name === 'keep') {
    const id = await backend.resolveSession(command.id)
    const result = await backend.keep(id, true)
    const undoInCli = `tangent restore ${result.parent} --undo ${result.files.restoreSeq}`
    const text = keepLines(result, style)
      .join('\n')
      .replace(undoInCli, result.parent === current ? `/undo ${result.files.restoreSeq}` : undoInCli)
    return { text, outcome: 'done' }
  }
  if (current === null) return { text: style.yellow(nothingYet(command)), outcome: 'refused' }
  switch (command.name) {
    case 'fork': {
      const { session, boundary } = await backend.fork({ sessionId: current, atSeq: command.seq })
      const made = { newSessionId: session.id, switchTo: session.id, title: session.title }
      const text =
        frontEnd === 'chat'
          ? `Forked ${current} through seq ${boundary}: now in ${style.cyan(session.id)} (/switch ${current} to go back)`
          : `Forked ${current} through seq ${boundary} into ${session.id} ${titleOf(session)}. This session stays as it was; open ${session.id} to go on from seq ${boundary}.`
      return { text, outcome: 'done', ...made }
    }
    case 'explore': {
      const explored = await backend.explore({
        sessionId: current,
        branches: command.prompts.map((prompt) => ({ prompt })),
      })
      const branches = explored.sessions.map((session) => ({
        label: session.exploration?.label ?? '?',
        sessionId: session.id,
        title: session.title,
      }))
      const hint =
        frontEnd === 'chat'
          ? '/show ID to read a branch, /keep ID to keep one, /switch ID to go on in it'
          : '/compare ID to compare a branch with this session, /keep ID to keep one; open a branch to read it or go on in it'
      const text = [
        `Trying ${explored.sessions.length} ways from ${current} (each in its own worktree; their turns run now):`,
        ...explored.sessions.map(
          (session) => `  ${session.exploration?.label ?? '?'} ${style.cyan(session.id)} ${titleOf(session)}`,
        ),
        style.dim(hint),
      ].join('\n')
      return { text, outcome: 'done', branches }
    }
    case 'compact':
      return { text: describeCompaction(current, await backend.compact(current)), outcome: 'done' }
    case 'restore':
    case 'undo': {
      const result =
        command.name === 'restore'
          ? await backend.restore(current, command.seq, false)
          : await backend.undoRestore(current, command.seq, false)
      const paths = safeLine(result.restored.join(', '))
      const text =
        result.restored.length === 0
          ? command.name === 'undo'
            ? 'Nothing to undo: no file to write back.'
            : `Nothing to restore: the files this session changed after seq ${command.seq} are already as they were there.`
          : command.name === 'undo'
            ? `Undid the restore: put back ${result.restored.length} path(s): ${paths}`
            : `Restored ${result.restored.length} path(s) to seq ${command.seq}: ${paths}${result.seq !== undefined ? ` (undo with /undo ${result.seq})` : ''}`
      return { text, outcome: 'done' }
    }
    case 'diff': {
      const other = await backend.resolveSession(command.id)
      return {
        text: diffSummary(current, other, await backend.compare(current, other), style),
        outcome: 'done',
      }
    }
  }
}

function nothingYet(command: SessionCommand): string {
  switch (command.name) {
    case 'fork':
      return 'Nothing to fork yet: send a message first.'
    case 'explore':
      return 'Nothing to explore from yet: send a message first.'
    case 'compact':
      return 'Nothing to compact yet: send a message first.'
    case 'diff':
      return 'Nothing to compare yet: send a message first.'
    default:
      return `Nothing to ${command.name} yet: send a message first.`
  }
}

/** `/diff`: where two sessions diverged, their turns since in numbers, and each file with +/− counts. */
function diffSummary(a: string, b: string, result: CompareResult, style: Style): string {
  const turns = (events: readonly { type: string }[]) =>
    events.filter((event) => event.type === 'user/message').length
  const lines = [
    result.ancestor === null
      ? style.dim('No common history: these sessions are unrelated.')
      : style.dim(`Common ancestor ${result.ancestor}; shared history through seq ${result.forkSeq ?? '?'}.`),
    `${a}: ${turns(result.a.events)} turn(s) since · ${b}: ${turns(result.b.events)} turn(s) since`,
  ]
  if (result.files.length === 0)
    lines.push(style.dim('Files: no differences between their latest snapshots.'))
  else lines.push(`Files (${result.files.length}):`)
  for (const file of result.files) {
    let added = 0
    let removed = 0
    for (const line of file.patch.split('\n')) {
      if (line.startsWith('+') && !line.startsWith('+++')) added++
      else if (line.startsWith('-') && !line.startsWith('---')) removed++
    }
    lines.push(
      `  ${safeLine(file.path)} ${style.green(`+${added}`)} ${style.red(`−${removed}`)} ${file.status}`,
    )
  }
  lines.push(style.dim(`The whole diff: tangent diff ${a} ${b}`))
  return lines.join('\n')
}
