// `tangent run "text"`: one turn, streamed to the terminal; `--json` prints the outcome,
// `--stream-json` every event of the turn as NDJSON, then the outcome.
import fs from 'node:fs'
import path from 'node:path'
import { TangentError, turnAnswerText } from '@tangent/core'
import type { Command } from 'commander'
import { type ApprovalFlags, Approver, askAtTerminal } from '../approvals.js'
import type { Backend, PromptImage, SessionEvent, TurnDelta, TurnObserver } from '../backend.js'
import { ExitCode, UsageError } from '../cli-error.js'
import type { CliContext } from '../context.js'
import { latestSessionIn } from '../continue-session.js'
import { readImageFiles } from '../image-files.js'
import { assertMessageFits } from '../input-limits.js'
import { assertModelAvailable } from '../model-available.js'
import { withBackend } from '../open-backend.js'
import { printJson, printNote } from '../output.js'
import { StreamJsonLines } from '../render/stream-json.js'
import { clipUnescaped, safeText, styleFor } from '../render/style.js'
import { TurnPrinter } from '../render/turn-printer.js'
import { parseModeArgument } from '../session-mode-text.js'

interface RunFlags extends ApprovalFlags {
  session?: string
  continue?: boolean
  cwd?: string
  model?: string
  mode?: string
  json?: boolean
  streamJson?: boolean
  image?: string[]
}

export function registerRunCommand(program: Command, context: CliContext): void {
  program
    .command('run')
    .description('Run one turn: send TEXT to the agent and stream its answer')
    .argument('[text...]', 'the message (several words are joined with spaces; may be empty with --image)')
    .option('--session <id>', 'continue this session, by its id or a unique prefix (default: a new one)')
    .option('-c, --continue', 'continue the latest session of the current directory (or --cwd)')
    .option('--cwd <dir>', 'directory of a new session (default: the current directory)')
    .option('--model <model>', 'model as provider:model, e.g. demo:scripted or openai:gpt-4.1')
    .option('--mode <mode>', "set the session's mode first: ask, edit or plan (read-only); it stays set")
    .option('--json', 'print {"sessionId","turnEndSeq","reason","text"} instead of streaming')
    .option(
      '--stream-json',
      'print each event of the turn as one JSON line as it happens, then {"type":"result",…} as --json (NDJSON)',
    )
    .option('-y, --yes', 'allow every tool call the permission policy would ask about (this turn only)')
    .option(
      '--allow <rule>',
      'allow calls matching TOOL or TOOL:PATTERN without asking, e.g. bash, "bash:npm test", "write:src/**" (repeatable)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option(
      '--image <file>',
      'send this image with the message: PNG, JPEG, GIF or WebP, up to 3.75 MiB; the model must take images (repeatable)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .action((words: string[], flags: RunFlags) => runCommand(context, words.join(' '), flags))
}

async function runCommand(context: CliContext, text: string, flags: RunFlags): Promise<void> {
  // Before anything is made for it: a session whose first message is refused would be litter.
  if (flags.json && flags.streamJson)
    throw new UsageError(
      'run takes --json (one line at the end) or --stream-json (a line per event), not both',
    )
  const images = readImageFiles(flags.image ?? [], context.cwd)
  // The Host refuses an empty prompt too (session.prompt text is at least one character, or images).
  if (text.trim() === '' && images.length === 0)
    throw new UsageError('run needs a non-empty message or an --image, e.g. tangent run "hello"')
  if (flags.session !== undefined && flags.continue)
    throw new UsageError('run takes --session ID or --continue, not both')
  assertMessageFits(text)
  const mode = flags.mode === undefined ? undefined : parseModeArgument(flags.mode, 'run --mode')
  const cwd = flags.session === undefined ? existingDirectory(context, flags.cwd) : undefined
  await withBackend(context, {}, async (backend) => {
    const { sessionId, created } = await targetSession(backend, flags, cwd, text)
    const turn = { ran: false }
    try {
      if (mode !== undefined) await backend.setMode(sessionId, mode)
      await runTurn(context, backend, { text, images }, sessionId, flags, turn)
    } catch (error) {
      // Refused before its first turn (the model cannot run, the folder is refused, …): the
      // session it made for that turn would only be litter.
      if (created && !turn.ran) await forgetNewSession(backend, sessionId)
      throw error
    }
  })
}

async function forgetNewSession(backend: Backend, sessionId: string): Promise<void> {
  try {
    const { events } = await backend.getSession(sessionId)
    // Only a session that is still empty of turns: one that started a turn is the record of it.
    // (Its model, title and `--mode` are not a record of anything.)
    if (events.some((event) => event.type === 'turn/start')) return
    await backend.delete(sessionId)
  } catch {
    // Best effort: the refusal is what the person needs to see.
  }
}

async function runTurn(
  context: CliContext,
  backend: Backend,
  message: { text: string; images: PromptImage[] },
  sessionId: string,
  flags: RunFlags,
  turn: { ran: boolean },
): Promise<void> {
  const style = styleFor(context.stdout, context.env)
  // For a program, stdout is JSON only; the terminal's status line and retries are not printed.
  const forProgram = flags.json === true || flags.streamJson === true
  const printer = new TurnPrinter(
    forProgram ? silent : context.stdout,
    forProgram ? silent : context.stderr,
    style,
  )
  // The events as they are appended, from the same subscription the printer reads (api-backend.ts).
  const lines = flags.streamJson ? new StreamJsonLines(context.stdout, printer) : undefined
  const { session } = await backend.getSession(sessionId)
  const approver = new Approver({
    backend,
    flags,
    ask: askAtTerminal(context, printer),
    notice: (line) => context.stderr.write(`${safeText(line)}\n`),
    cwd: () => session.cwd,
  })
  // The first Ctrl-C aborts the turn (it ends as `aborted`, the log stays whole) and the
  // command then exits 130; a second one is the default: the process ends.
  let interrupted = false
  const onSignal = () => {
    process.off('SIGINT', onSignal)
    interrupted = true
    if (!forProgram) context.stderr.write('\naborting the turn (Ctrl-C again to quit)\n')
    void backend.abort(sessionId)
  }
  process.on('SIGINT', onSignal)
  const answer = new AnswerText(approver.observe(sessionId, lines ?? printer))
  let result: Awaited<ReturnType<Backend['prompt']>>
  try {
    result = await backend.prompt(sessionId, message.text, answer, { images: message.images })
    turn.ran = true
  } finally {
    process.off('SIGINT', onSignal)
    printer.finish()
  }
  const text = answer.text()
  lines?.result({ sessionId, turnEndSeq: result.turnEndSeq, reason: result.reason, text })
  reportTurn(context, printer, flags, sessionId, result, text)
  if (interrupted && result.reason === 'aborted') throw new ExitCode(130)
}

function reportTurn(
  context: CliContext,
  printer: TurnPrinter,
  flags: RunFlags,
  sessionId: string,
  result: Awaited<ReturnType<Backend['prompt']>>,
  text: string,
): void {
  if (flags.json)
    printJson(context, { sessionId, turnEndSeq: result.turnEndSeq, reason: result.reason, text })
  else if (!flags.streamJson)
    printNote(
      context,
      styleFor(context.stderr, context.env).dim(
        `session ${sessionId} · turn seq ${result.turnStartSeq}–${result.turnEndSeq}`,
      ),
    )
  if (result.reason === 'error') {
    throw new TangentError(
      'turn-error',
      `The turn ended in an error: ${printer.error ?? 'see `tangent show`'}`,
      {
        sessionId,
        turnEndSeq: result.turnEndSeq,
      },
    )
  }
}

/** Passes a turn on, keeping the text of its answer (every assistant message, as streamed). */
class AnswerText implements TurnObserver {
  readonly #next: TurnObserver
  readonly #messages: SessionEvent[] = []
  readonly onSharedActivity?: TurnObserver['onSharedActivity']

  constructor(next: TurnObserver) {
    this.#next = next
    if (next.onSharedActivity) this.onSharedActivity = next.onSharedActivity.bind(next)
  }

  onEvent(event: SessionEvent): void {
    if (event.type === 'assistant/message') this.#messages.push(event)
    this.#next.onEvent(event)
  }

  onDelta(delta: TurnDelta): void {
    this.#next.onDelta(delta)
  }

  /** The same text as @tangent/sdk's `turn.result.text` (core's turnAnswerText). */
  text(): string {
    return turnAnswerText(this.#messages)
  }
}

async function targetSession(
  backend: Backend,
  flags: RunFlags,
  cwd: string | undefined,
  text: string,
): Promise<{ sessionId: string; created: boolean }> {
  const existing = flags.continue
    ? await latestSessionIn(backend, cwd!)
    : flags.session !== undefined
      ? await backend.resolveSession(flags.session)
      : undefined
  if (existing !== undefined) {
    if (flags.model !== undefined) await backend.setModel(existing, flags.model)
    return { sessionId: existing, created: false }
  }
  // A new session that could not run its first turn would only be litter: check the model first.
  if (flags.model !== undefined) await assertModelAvailable(backend, flags.model)
  const title = text.trim() === '' ? undefined : titleFrom(text)
  const created = await backend.createSession({ cwd: cwd!, model: flags.model, title })
  return { sessionId: created.id, created: true }
}

/** The directory a new session works in; it must exist. */
export function existingDirectory(context: CliContext, dir: string | undefined): string {
  const resolved = path.resolve(context.cwd, dir ?? '.')
  if (!fs.statSync(resolved, { throwIfNoEntry: false })?.isDirectory()) {
    throw new TangentError(
      'cwd-not-found',
      `${resolved} is not a directory: pass an existing one with --cwd.`,
      {
        cwd: resolved,
      },
    )
  }
  return resolved
}

const silent = { write: () => true }

/** A new session's title: its first message, cut to fit a tree row (kept as typed; shown escaped). */
export function titleFrom(text: string): string {
  return clipUnescaped(text, 48)
}
