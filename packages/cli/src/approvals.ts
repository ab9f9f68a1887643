// How the CLI answers approvals (docs/architecture.md §12.1): a call the policy asks about
// (`permission/requested`) is answered from `--yes`/`--allow` flags, else by asking the person
// at the terminal, else denied with one line naming the flag to pass. Nothing runs unasked.
import { loadBashGrammar, permissionSubject, ruleCovers } from '@tangent/agent/light'
import type { PermissionRequestedData } from '@tangent/core'
import { alwaysScopeOf } from '@tangent/protocol'
import type { Backend, SessionEvent, TurnDelta, TurnObserver } from './backend.js'
import { UsageError } from './cli-error.js'
import type { CliContext } from './context.js'
import { safeLine } from './render/style.js'

export type Decision = 'once' | 'always' | 'deny'

export interface ApprovalFlags {
  /** Answer `once` to every ask. */
  yes?: boolean
  /** `TOOL` or `TOOL:PATTERN` (bash: a command prefix or `exact:LINE`; file tools: a path glob), repeatable. */
  allow?: string[]
}

export interface AllowRule {
  tool: string
  pattern: string
}

/** Parses `--allow` values: `bash`, `bash:npm test`, `write:src/**`. */
export function parseAllowRules(values: readonly string[] | undefined): AllowRule[] {
  return (values ?? []).map((value) => {
    const at = value.indexOf(':')
    const tool = (at < 0 ? value : value.slice(0, at)).trim()
    const pattern = at < 0 ? '*' : value.slice(at + 1).trim() || '*'
    if (!/^[a-z][a-z0-9_-]*$/i.test(tool) && tool !== '*') {
      throw new UsageError(
        `--allow ${value}: use TOOL or TOOL:PATTERN, e.g. --allow bash or --allow "bash:npm test"`,
      )
    }
    return { tool, pattern }
  })
}

/** Asks the person; null when nobody can be asked. */
export type AskPerson = (
  request: PermissionRequestedData,
) => Promise<{ decision: Decision; reason?: string } | null>

/**
 * One line describing a call for a question or a notice: `bash: npm test` or `write: src/a.ts`;
 * escaped (docs/architecture.md §9), so the command asked about is the command shown.
 */
export function describeCall(request: PermissionRequestedData): string {
  const oneLine = safeLine(permissionSubject(request.toolName, request.input).replace(/\s+/g, ' '))
  return `${safeLine(request.toolName)}: ${oneLine.length > 200 ? `${oneLine.slice(0, 199)}…` : oneLine}`
}

/** The flag a person would pass to allow this call without being asked. */
export function flagFor(request: PermissionRequestedData): string {
  // Kept as it is: it goes into the log as a denial's reason, and is escaped where it is shown.
  return request.pattern && request.pattern !== '**'
    ? `--allow "${request.toolName}:${request.pattern}"`
    : `--allow ${request.toolName}`
}

export class Approver {
  readonly #backend: Backend
  readonly #flags: ApprovalFlags
  readonly #rules: AllowRule[]
  readonly #ask: AskPerson
  readonly #notice: (line: string) => void
  readonly #cwd: () => string

  constructor(options: {
    backend: Backend
    flags: ApprovalFlags
    ask: AskPerson
    notice: (line: string) => void
    /** The session's directory (file patterns of --allow are relative to it). */
    cwd: () => string
  }) {
    this.#backend = options.backend
    this.#flags = options.flags
    this.#rules = parseAllowRules(options.flags.allow)
    this.#ask = options.ask
    this.#notice = options.notice
    this.#cwd = options.cwd
  }

  /** The observer of a turn, answering each ask as it arrives. */
  observe(sessionId: string, observer: TurnObserver): TurnObserver {
    return {
      onEvent: (event: SessionEvent) => {
        observer.onEvent(event)
        if (event.type === 'permission/requested')
          void this.#answer(sessionId, event.data as PermissionRequestedData)
      },
      onDelta: (delta: TurnDelta) => observer.onDelta(delta),
      ...(observer.onSharedActivity ? { onSharedActivity: observer.onSharedActivity.bind(observer) } : {}),
    }
  }

  /**
   * What to pass to allow the call next time: never a flag already given (an `--allow` that did
   * not cover the call — a bash rule whose grammar could not load, a path outside the folder —
   * is named as such, and `--yes` is what is left).
   */
  #hint(request: PermissionRequestedData): string {
    const flag = flagFor(request)
    const wanted = parseAllowRules([flag.slice('--allow '.length).replace(/^"|"$/g, '')])[0]!
    const given = (this.#flags.allow ?? []).filter((value) => {
      const passed = parseAllowRules([value])[0]!
      return passed.tool === wanted.tool && (passed.pattern === wanted.pattern || passed.pattern === '*')
    })
    if (given.length === 0) return `pass ${flag} (or --yes) to allow it`
    const named = given.map((value) => `--allow ${/\s/.test(value) ? `"${value}"` : value}`).join(' ')
    return `${named} was given but does not cover this call: pass --yes to allow every call of this turn`
  }

  async #answer(sessionId: string, request: PermissionRequestedData): Promise<void> {
    try {
      // `--allow bash:…` matches the parsed line (§12.1): the grammar loads first. If it cannot,
      // no flag covers a bash line (ruleCovers fails closed) and the person is asked instead.
      if (request.toolName === 'bash' && this.#rules.length > 0)
        await loadBashGrammar().catch((error: Error) =>
          this.#notice(`tangent: --allow cannot match bash commands: ${error.message}`),
        )
      const byFlag =
        this.#flags.yes === true ||
        this.#rules.some((rule) => ruleCovers(rule, request.toolName, request.input, this.#cwd()))
      if (byFlag) {
        await this.#backend.answerPermission(sessionId, request.callId, { decision: 'once', by: 'flag' })
        return
      }
      const answer = await this.#ask(request)
      if (answer) {
        await this.#backend.answerPermission(sessionId, request.callId, { ...answer, by: 'user' })
        return
      }
      const reason = `no terminal to ask: ${this.#hint(request)}`
      this.#notice(`tangent: denied ${describeCall(request)} (${reason})`)
      await this.#backend.answerPermission(sessionId, request.callId, {
        decision: 'deny',
        reason,
        by: 'no-terminal',
      })
    } catch (error) {
      // Another client may have answered first, or the turn was aborted: the turn goes on without us.
      if ((error as { code?: string }).code === 'permission-not-pending') return
      this.#notice(
        `tangent: could not answer the approval of ${describeCall(request)}: ${(error as Error).message}`,
      )
    }
  }
}

/** Reads an answer typed at a question: y/yes/o/once, a/always, n/no/d/deny (anything else: null). */
export function parseDecision(line: string): Decision | null {
  const word = line.trim().toLowerCase()
  if (['y', 'yes', 'o', 'once', 'allow'].includes(word)) return 'once'
  if (['a', 'always'].includes(word)) return 'always'
  if (['n', 'no', 'd', 'deny'].includes(word)) return 'deny'
  return null
}

export const questionHint = '[y] once · [a] always · [n] deny'

/**
 * What answering `always` keeps for the rest of the session, in words: the event's `pattern`
 * exactly as the rule will hold it (escaped), so the person sees the scope before answering.
 */
export function alwaysScope(request: PermissionRequestedData): string {
  const tool = safeLine(request.toolName)
  const scope = alwaysScopeOf(request.toolName, request.pattern)
  switch (scope.kind) {
    case 'everything':
      return request.toolName === 'bash'
        ? 'every bash command'
        : fileTools.has(request.toolName)
          ? `${tool} anywhere in the session's directory`
          : `${tool} with any input`
    // What `always` keeps for a destructive or not fully understood line: that line only (§12.1).
    case 'exact-line':
      return scope.line === permissionSubject('bash', request.input)
        ? 'only this exact bash command'
        : `only the exact bash command \`${safeLine(scope.line)}\``
    case 'prefix':
      return `bash commands starting with \`${safeLine(scope.prefix)}\``
    case 'paths':
      return `${tool} on \`${safeLine(scope.glob)}\``
    case 'asked-every-time':
      return `nothing more: writing \`${safeLine(scope.path)}\` (the repository's .git or the project's .tangent) asks every time`
  }
}

const fileTools = new Set(['read', 'write', 'edit', 'list', 'grep'])

/**
 * The question for an ask, before any answer is read: the whole call — every line of the command
 * (or the path, or the input), escaped and folded to `columns`, never cut — then what `always`
 * would allow, then the choices. Ends with `› ` where the answer is typed.
 */
export function approvalQuestion(request: PermissionRequestedData, columns = 80): string {
  const subject = permissionSubject(request.toolName, request.input)
  const gutter = '  │ '
  const width = Math.max(20, columns - gutter.length - 1)
  const lines = subject.split('\n').flatMap((line) => foldLine(safeLine(line), width))
  const what =
    request.toolName === 'bash'
      ? 'to run'
      : typeof (request.input as { path?: unknown } | null)?.path === 'string'
        ? 'on'
        : 'with'
  return [
    `Allow ${safeLine(request.toolName)} ${what}:`,
    ...lines.map((line) => `${gutter}${line}`),
    `  [a] always = allow ${alwaysScope(request)} for the rest of this session`,
    `${questionHint} › `,
  ].join('\n')
}

/** Cuts an (escaped, one-line) text into pieces of at most `width` characters: all of it is kept. */
function foldLine(line: string, width: number): string[] {
  if (line.length <= width) return [line]
  // By code point, so a character outside the BMP is never split in two.
  const characters = Array.from(line)
  const pieces: string[] = []
  for (let start = 0; start < characters.length; start += width)
    pieces.push(characters.slice(start, start + width).join(''))
  return pieces
}

/**
 * Asks at the terminal (stdin a TTY): one question on stderr, one typed answer. Without a
 * terminal nobody can be asked (null): the call is denied and the flag to pass is named.
 */
export function askAtTerminal(context: CliContext, printer: { pause(): void }): AskPerson {
  if (context.stdin.isTTY !== true) return async () => null
  return async (request) => {
    printer.pause()
    // node:readline on first use: importing it costs start-up that a command that only reads never needs.
    const rl = process.getBuiltinModule('node:readline').createInterface({
      input: context.stdin,
      output: context.stderr as NodeJS.WritableStream,
      terminal: true,
    })
    // One close listener for every question asked: the end of input answers the pending one.
    let answer: ((line: string | null) => void) | null = null
    rl.once('close', () => answer?.(null))
    try {
      for (;;) {
        const line = await new Promise<string | null>((resolve) => {
          answer = resolve
          const columns = (context.stderr as { columns?: number }).columns
          rl.question(approvalQuestion(request, columns), resolve)
        })
        if (line === null) return null
        const decision = parseDecision(line)
        if (decision) return { decision }
      }
    } finally {
      rl.close()
    }
  }
}
