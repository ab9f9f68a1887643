// `tangent run "text"`: one turn, streamed to the terminal; `--json` prints the outcome.
import fs from 'node:fs'
import path from 'node:path'
import { TangentError } from '@tangent/core'
import type { Command } from 'commander'
import { type ApprovalFlags, Approver, askAtTerminal } from '../approvals.js'
import type { Backend } from '../backend.js'
import { UsageError } from '../cli-error.js'
import type { CliContext } from '../context.js'
import { latestSessionIn } from '../continue-session.js'
import { assertMessageFits } from '../input-limits.js'
import { assertModelAvailable } from '../model-available.js'
import { withBackend } from '../open-backend.js'
import { printJson, printNote } from '../output.js'
import { clipUnescaped, safeText, styleFor } from '../render/style.js'
import { TurnPrinter } from '../render/turn-printer.js'

interface RunFlags extends ApprovalFlags {
  session?: string
  continue?: boolean
  cwd?: string
  model?: string
  json?: boolean
}

export function registerRunCommand(program: Command, context: CliContext): void {
  program
    .command('run')
    .description('Run one turn: send TEXT to the agent and stream its answer')
    .argument('<text...>', 'the message (several words are joined with spaces)')
    .option('--session <id>', 'continue this session, by its id or a unique prefix (default: a new one)')
    .option('-c, --continue', 'continue the latest session of the current directory (or --cwd)')
    .option('--cwd <dir>', 'directory of a new session (default: the current directory)')
    .option('--model <model>', 'model as provider:model, e.g. demo:scripted or openai:gpt-4.1')
    .option('--json', 'print {"sessionId","turnEndSeq","reason"} instead of streaming')
    .option('-y, --yes', 'allow every tool call the permission policy would ask about (this turn only)')
    .option(
      '--allow <rule>',
      'allow calls matching TOOL or TOOL:PATTERN without asking, e.g. bash, "bash:npm test", "write:src/**" (repeatable)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .action((words: string[], flags: RunFlags) => runCommand(context, words.join(' '), flags))
}

async function runCommand(context: CliContext, text: string, flags: RunFlags): Promise<void> {
  // The Host refuses an empty prompt too (session.prompt text is at least one character).
  if (text.trim() === '') throw new UsageError('run needs a non-empty message, e.g. tangent run "hello"')
  if (flags.session !== undefined && flags.continue)
    throw new UsageError('run takes --session ID or --continue, not both')
  // Before anything is made for it: a session whose first message is refused would be litter.
  assertMessageFits(text)
  const cwd = flags.session === undefined ? existingDirectory(context, flags.cwd) : undefined
  await withBackend(context, {}, async (backend) => {
    const sessionId = await targetSession(backend, flags, cwd, text)
    const style = styleFor(context.stdout, context.env)
    const printer = new TurnPrinter(
      flags.json ? silent : context.stdout,
      flags.json ? silent : context.stderr,
      style,
    )
    const { session } = await backend.getSession(sessionId)
    const approver = new Approver({
      backend,
      flags,
      ask: askAtTerminal(context, printer),
      notice: (line) => context.stderr.write(`${safeText(line)}\n`),
      cwd: () => session.cwd,
    })
    // The first Ctrl-C aborts the turn (it ends as `aborted`, the log stays whole);
    // a second one is the default: the process ends.
    const onSignal = () => {
      process.off('SIGINT', onSignal)
      if (!flags.json) context.stderr.write('\naborting the turn (Ctrl-C again to quit)\n')
      void backend.abort(sessionId)
    }
    process.on('SIGINT', onSignal)
    let result: Awaited<ReturnType<Backend['prompt']>>
    try {
      result = await backend.prompt(sessionId, text, approver.observe(sessionId, printer))
    } finally {
      process.off('SIGINT', onSignal)
      printer.finish()
    }
    if (flags.json) printJson(context, { sessionId, turnEndSeq: result.turnEndSeq, reason: result.reason })
    else
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
  })
}

async function targetSession(
  backend: Backend,
  flags: RunFlags,
  cwd: string | undefined,
  text: string,
): Promise<string> {
  const existing = flags.continue
    ? await latestSessionIn(backend, cwd!)
    : flags.session !== undefined
      ? await backend.resolveSession(flags.session)
      : undefined
  if (existing !== undefined) {
    if (flags.model !== undefined) await backend.setModel(existing, flags.model)
    return existing
  }
  // A new session that could not run its first turn would only be litter: check the model first.
  if (flags.model !== undefined) await assertModelAvailable(backend, flags.model)
  const created = await backend.createSession({ cwd: cwd!, model: flags.model, title: titleFrom(text) })
  return created.id
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
