// How a failure leaves the CLI: one line `error[<code>]: <message>` on stderr, exit 1,
// or exit 2 for bad usage. Errors from the store, the agent and the Host all look alike.
import { TangentError } from '@tangent/core'
import { safeLine } from './render/style.js'

/** Bad usage (a flag that does not parse, a missing argument): exit code 2. */
export class UsageError extends Error {
  readonly code = 'usage'
}

/** An exit with this code and nothing more to say (what happened was already printed). */
export class ExitCode extends Error {
  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`)
  }
}

export interface FailureReport {
  code: string
  message: string
  data: Record<string, unknown>
  exitCode: 1 | 2
}

/** Anything a command threw, as the code and message the user sees. */
export function describeFailure(error: unknown): FailureReport {
  if (error instanceof UsageError) return { code: 'usage', message: error.message, data: {}, exitCode: 2 }
  if (TangentError.isInstance(error)) {
    return { code: error.code, message: error.message, data: error.data, exitCode: 1 }
  }
  if (isCodedError(error)) {
    return { code: error.code, message: error.message, data: error.data ?? {}, exitCode: 1 }
  }
  const message = error instanceof Error ? error.message : String(error)
  return { code: 'internal', message, data: {}, exitCode: 1 }
}

/**
 * A message of the runtime or the Host in the CLI's words: where it names a protocol method,
 * a param or a web control (front-end-neutral words the web UI maps to its buttons), the flag or
 * command that does it here. The code and data stay as they are.
 */
export function inCliWords(report: FailureReport): FailureReport {
  const id = typeof report.data.sessionId === 'string' ? report.data.sessionId : 'ID'
  let message = report.message
  for (const rewrite of cliRewrites) {
    if (rewrite.code !== undefined && rewrite.code !== report.code) continue
    message = message.replace(rewrite.from, rewrite.to.replaceAll('{id}', id))
  }
  return message === report.message ? report : { ...report, message }
}

const cliRewrites: readonly { code?: string; from: RegExp; to: string }[] = [
  { from: / or session\.list\./, to: '.' },
  { from: /^Invalid params for [\w.]+: /, to: 'Invalid arguments: ' },
  {
    code: 'files-conflict',
    from: /restore with force to overwrite them \(undo brings them back\)/,
    to: 'run the same `tangent restore` again with --force to overwrite them (`tangent restore {id} --undo` brings them back)',
  },
  {
    code: 'files-conflict',
    from: /and force does not write through/,
    to: 'and --force does not write through',
  },
  {
    code: 'worktree-dirty',
    from: /delete it with worktree "keep" \(the folder stays\) or "force" \(removed with its changes\)/,
    to: 'run `tangent delete {id} --worktree keep` (the folder stays) or `--worktree force` (removed with its changes)',
  },
  { from: /keepTo needs worktree "keep"\./, to: '--to needs --worktree keep.' },
  {
    code: 'not-a-restore',
    from: /give the seq of a "Restored files" row/,
    to: 'give the seq of a `restore` row of `tangent show {id}` (or --undo without a seq: the latest)',
  },
]

/**
 * The one line printed for a failure, with the details a user needs to act (paths, holder pid);
 * escaped (docs/architecture.md §9): a message may quote a title, a path or a model's words.
 */
export function formatFailure(report: FailureReport): string {
  let line = `error[${report.code}]: ${oneLine(inCliWords(report).message)}`
  const paths = report.data.paths
  if (Array.isArray(paths) && paths.length > 0 && !paths.every((p) => line.includes(String(p)))) {
    line += ` (${paths.map(String).join(', ')})`
  }
  return safeLine(line)
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim()
}

/** An error that crossed the wire or another package: `{code, message, data?}` with a string code. */
function isCodedError(
  value: unknown,
): value is { code: string; message: string; data?: Record<string, unknown> } {
  if (typeof value !== 'object' || value === null) return false
  const record = value as Record<string, unknown>
  return typeof record.code === 'string' && typeof record.message === 'string'
}
