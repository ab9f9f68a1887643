// `tangent chat [ID]`: an interactive conversation with streaming answers, Ctrl-C to abort
// a turn, single-key approvals, and slash commands to fork, restore, compare, explore and keep.
import type { Interface } from 'node:readline'
import { defaultSessionMode, type SessionModeId } from '@tangent/protocol'
import type { Command } from 'commander'
import {
  type ApprovalFlags,
  Approver,
  type AskPerson,
  approvalQuestion,
  type Decision,
  parseDecision,
  questionHint,
} from '../approvals.js'
import type { Backend, PromptImage } from '../backend.js'
import { chatHelp, parseSlashCommand } from '../chat-slash.js'
import { describeFailure, formatFailure, UsageError } from '../cli-error.js'
import type { CliContext } from '../context.js'
import { latestSessionIn } from '../continue-session.js'
import { readImageFiles } from '../image-files.js'
import { assertMessageFits } from '../input-limits.js'
import { assertModelAvailable } from '../model-available.js'
import { withBackend } from '../open-backend.js'
import { renderSessionTree } from '../render/session-tree.js'
import { type Style, safeLine, safeText, styleFor, titleOf } from '../render/style.js'
import { renderTranscript } from '../render/transcript.js'
import { sharedActivityWarning, TurnPrinter } from '../render/turn-printer.js'
import { isSessionCommand, runSessionCommand } from '../session-commands.js'
import { modeLabel, modeListLines } from '../session-mode-text.js'
import { existingDirectory, titleFrom } from './run.js'

interface ChatFlags extends ApprovalFlags {
  continue?: boolean | undefined
  cwd?: string
  model?: string
}

export function registerChatCommand(program: Command, context: CliContext): void {
  program
    .command('chat')
    .description('Chat interactively (a new session in the current directory, or continue ID)')
    .argument('[id]', 'session to continue: its id or a unique prefix of one')
    .option('-c, --continue', 'continue the latest session of the current directory (or --cwd)')
    .option('--cwd <dir>', 'directory of a new session (default: the current directory)')
    .option('--model <model>', 'model of a new session, as provider:model')
    .option('--json', 'accepted for symmetry; chat is for people')
    .option('-y, --yes', 'allow every tool call the permission policy would ask about')
    .option(
      '--allow <rule>',
      'allow calls matching TOOL or TOOL:PATTERN without asking, e.g. bash or "bash:npm test" (repeatable)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .action(async (id: string | undefined, flags: ChatFlags) => {
      if (id !== undefined && flags.continue)
        throw new UsageError('chat takes a session ID or --continue, not both')
      await runChat(context, { ...flags, id })
    })
}

/** The chat loop on session `id` (or the folder's latest with `continue`, or a new one): also `tangent tui --plain`. */
export async function runChat(
  context: CliContext,
  flags: ChatFlags & { id?: string | undefined },
): Promise<void> {
  const cwd = existingDirectory(context, flags.cwd)
  await withBackend(context, { reopen: true }, async (backend) => {
    let current: string | null = null
    if (flags.continue) current = await latestSessionIn(backend, cwd)
    else if (flags.id !== undefined) current = await backend.resolveSession(flags.id)
    // The model of the session the first message makes: refused now, not after making it.
    if (current === null && flags.model !== undefined) await assertModelAvailable(backend, flags.model)
    await new ChatLoop(context, backend, { current, cwd, model: flags.model, flags }).run()
  })
}

class ChatLoop {
  readonly #context: CliContext
  readonly #backend: Backend
  readonly #style: Style
  readonly #cwd: string
  #current: string | null
  /** Model for the session chat creates on the first message. */
  #model: string | undefined
  /** The mode a session made by the first message gets (`/mode` before it). */
  #mode: SessionModeId = defaultSessionMode
  /** Lines typed (or piped) while another is handled wait here, in order. */
  readonly #queue: string[] = []
  /** Images `/image` attached, sent with the next message (then dropped, sent or refused). */
  #images: PromptImage[] = []
  /** The queue is being worked through; resolves when it is empty (never rejects). */
  #draining: Promise<void> | null = null
  /** A turn is running: Ctrl-C aborts it. */
  #running = false
  #abortRequested = false
  /** The user asked to leave (Ctrl-C, /exit): queued lines are dropped. */
  #leaving = false
  #closed = false
  /** Set while a tool call waits for the person's answer: the next line typed answers it. */
  #awaitingAnswer: ((line: string | null) => void) | null = null
  #printer: TurnPrinter | null = null
  readonly #approver: Approver

  constructor(
    context: CliContext,
    backend: Backend,
    options: { current: string | null; cwd: string; model?: string | undefined; flags?: ApprovalFlags },
  ) {
    this.#context = context
    this.#backend = backend
    this.#style = styleFor(context.stdout, context.env)
    this.#current = options.current
    this.#cwd = options.cwd
    this.#model = options.model
    this.#terminal = context.stdin.isTTY === true
    this.#approver = new Approver({
      backend,
      flags: options.flags ?? {},
      ask: this.#ask,
      notice: (line) => this.#above(this.#style.yellow(safeText(line)), this.#context.stderr),
      cwd: () => this.#sessionCwd ?? this.#cwd,
    })
  }

  #sessionCwd: string | null = null

  /** The line interface (set by `run`), and whether its prompt (or a question) is on screen now. */
  #rl: Interface | null = null
  #promptShown = false
  /** Ends a single-key question still on screen when its turn has ended. */
  #cancelQuestion: (() => void) | null = null
  readonly #terminal: boolean

  /**
   * Asks for an approval. At a terminal one key answers — `y` once, `a` always, `n` deny, no
   * Enter — after the whole call and what "always" covers are shown; lines typed before the
   * question stay messages. Without a terminal the next line answers, and a line already waiting
   * that is not an answer, or the end of input, denies: nothing runs unasked.
   */
  readonly #ask: AskPerson = async (request) => {
    this.#printer?.pause()
    // The whole call and what `always` would keep, shown before any answer is read.
    const question = approvalQuestion(request, (this.#context.stdout as { columns?: number }).columns)
    if (this.#terminal && this.#rl !== null && !this.#closed) return this.#askByKey(question)
    for (;;) {
      const queued = this.#queue.length > 0 ? this.#queue.shift()! : undefined
      const line =
        queued !== undefined
          ? queued
          : this.#closed
            ? null
            : await new Promise<string | null>((resolve) => {
                this.#context.stdout.write(this.#style.yellow(question))
                this.#awaitingAnswer = resolve
              })
      this.#awaitingAnswer = null
      if (line === null) return null
      const decision = parseDecision(line)
      if (queued !== undefined) this.#print(`${this.#style.yellow(question)}${safeLine(line)}`)
      if (decision) return { decision }
      if (queued !== undefined) return null
      this.#print(this.#style.dim(`Answer ${questionHint}.`))
    }
  }

  /**
   * The question's last line (the keys) becomes the prompt; a key that is an answer answers at
   * once. What the person had typed of a message is put aside and given back after the answer.
   */
  async #askByKey(question: string): Promise<{ decision: Decision } | null> {
    const rl = this.#rl!
    const editable = rl as unknown as { line: string; cursor: number }
    const lines = question.split('\n')
    const keys = lines.pop()!
    const draft = editable.line
    editable.line = ''
    editable.cursor = 0
    this.#context.stdout.write('\r\x1b[2K')
    this.#print(this.#style.yellow(lines.join('\n')))
    rl.setPrompt(this.#style.yellow(keys))
    rl.prompt()
    this.#promptShown = true
    const input = this.#context.stdin
    const decision = await new Promise<Decision | null>((resolve) => {
      let done = false
      let hinted = false
      const finish = (answer: Decision | null) => {
        if (done) return
        done = true
        input.off('keypress', onKey)
        this.#awaitingAnswer = null
        this.#cancelQuestion = null
        resolve(answer)
      }
      // Runs after readline's own handler: the key is in its line already.
      const onKey = (
        _text: string | undefined,
        key: { name?: string; ctrl?: boolean; meta?: boolean } | undefined,
      ) => {
        if (done || key?.ctrl || key?.meta || key?.name === 'return' || key?.name === 'enter') return
        const typed = editable.line.trim()
        const answer = typed.length === 1 ? parseDecision(typed) : null
        if (answer !== null) {
          this.#context.stdout.write('\n')
          finish(answer)
          return
        }
        if (typed !== '') {
          editable.line = ''
          editable.cursor = 0
          // Said once per question; further keys that are no answer are dropped quietly.
          if (!hinted) this.#above(this.#style.dim(`Press one key: ${questionHint}.`), this.#context.stdout)
          else rl.prompt(true)
          hinted = true
        }
      }
      input.on('keypress', onKey)
      // The turn ended without an answer (aborted): the call is no longer pending, so a deny
      // changes nothing; the keys prompt goes away.
      this.#cancelQuestion = () => finish('deny')
      // Enter on its own, or a whole word (`yes`) with Enter, or the end of input.
      this.#awaitingAnswer = (line) => {
        if (line === null) return finish(null)
        const answer = parseDecision(line)
        if (answer !== null) return finish(answer)
        this.#above(this.#style.dim(`Press one key: ${questionHint}.`), this.#context.stdout)
        rl.prompt()
        this.#promptShown = true
      }
    })
    editable.line = ''
    editable.cursor = 0
    this.#promptShown = false
    rl.setPrompt(this.#style.green('you › '))
    if (draft !== '') rl.write(draft)
    return decision === null ? null : { decision }
  }

  /**
   * Prints a message that comes from elsewhere (another session in the folder, an approval
   * notice) above the prompt or question on screen, which is drawn again below it with what
   * was typed, so it never lands inside what the person is answering or writing.
   */
  #above(text: string, stream: { write(text: string): unknown }): void {
    const rl = this.#rl
    if (this.#terminal && this.#promptShown && rl !== null && !this.#closed) {
      this.#context.stdout.write('\r\x1b[2K')
      stream.write(`${text}\n`)
      rl.prompt(true)
      return
    }
    this.#printer?.pause()
    stream.write(`${text}\n`)
  }

  async run(): Promise<void> {
    // Before the interface exists: piped input could otherwise end (and close it) during this await.
    const where = await this.#where()
    // node:readline on first use: importing it costs start-up that other commands never need.
    const rl = process.getBuiltinModule('node:readline').createInterface({
      input: this.#context.stdin,
      output: this.#context.stdout as NodeJS.WritableStream,
      terminal: this.#context.stdin.isTTY === true,
    })
    this.#rl = rl
    rl.setPrompt(this.#style.green('you › '))
    this.#print(
      this.#style.dim(
        `${where} · ${this.#backend.kind === 'host' ? 'through the running Host' : 'local'} · /help for commands, Ctrl-C to abort or leave`,
      ),
    )
    const terminal = this.#context.stdin.isTTY === true
    await new Promise<void>((resolve) => {
      rl.on('close', () => {
        this.#closed = true
        this.#awaitingAnswer?.(null)
        // Ctrl-C/`/exit` abort a running turn; end of input (Ctrl-D, a pipe) lets queued lines finish.
        if (this.#leaving && this.#running && this.#current !== null) void this.#backend.abort(this.#current)
        void (this.#draining ?? Promise.resolve()).then(resolve)
      })
      rl.on('SIGINT', () => {
        if (!this.#running || this.#abortRequested) {
          this.#leave(rl)
          return
        }
        this.#abortRequested = true
        this.#print(this.#style.yellow('\n^C aborting the turn (Ctrl-C again to leave)'))
        if (this.#current !== null) void this.#backend.abort(this.#current)
      })
      rl.on('line', (line) => {
        this.#promptShown = false
        if (this.#leaving) return
        if (this.#awaitingAnswer) {
          this.#awaitingAnswer(line.trim())
          return
        }
        this.#queue.push(line.trim())
        if (this.#draining === null) this.#draining = this.#drain(rl)
        else if (terminal) this.#print(this.#style.dim('(queued: sent when the current turn ends)'))
      })
      rl.prompt()
      this.#promptShown = true
    })
  }

  #leave(rl: Interface): void {
    this.#leaving = true
    this.#queue.length = 0
    rl.close()
  }

  async #drain(rl: Interface): Promise<void> {
    while (this.#queue.length > 0 && !this.#leaving) {
      const line = this.#queue.shift()!
      if (line === '') continue
      if (await this.#handle(line)) this.#leave(rl)
    }
    this.#draining = null
    this.#prompt(rl)
  }

  /** Handles one line; true when the chat should end. Failures are printed, never thrown. */
  async #handle(line: string): Promise<boolean> {
    this.#running = !line.startsWith('/')
    try {
      if (line.startsWith('/')) return await this.#slash(line)
      await this.#turn(line)
    } catch (error) {
      this.#context.stderr.write(`${this.#style.red(formatFailure(describeFailure(error)))}\n`)
    } finally {
      this.#running = false
      this.#abortRequested = false
    }
    return false
  }

  #prompt(rl: Interface): void {
    if (this.#closed) return
    rl.prompt()
    this.#promptShown = true
  }

  async #turn(text: string): Promise<void> {
    assertMessageFits(text)
    if (this.#current === null) {
      const created = await this.#backend.createSession({
        cwd: this.#cwd,
        model: this.#model,
        title: titleFrom(text),
      })
      this.#current = created.id
      if (this.#mode !== created.mode) await this.#backend.setMode(created.id, this.#mode)
      this.#print(this.#style.dim(`(session ${created.id})`))
    }
    const printer = new TurnPrinter(this.#context.stdout, this.#context.stderr, this.#style)
    this.#printer = printer
    this.#sessionCwd = (await this.#backend.getSession(this.#current)).session.cwd
    try {
      // Other sessions working in the folder are told above the prompt or question on screen.
      const observer = {
        onEvent: printer.onEvent.bind(printer),
        onDelta: printer.onDelta.bind(printer),
        onSharedActivity: (activity: { cwd: string; sessionIds: string[] }) =>
          this.#above(sharedActivityWarning(activity, this.#style), this.#context.stderr),
      }
      const images = this.#images
      this.#images = []
      const result = await this.#backend.prompt(
        this.#current,
        text,
        this.#approver.observe(this.#current, observer),
        { images },
      )
      this.#print(this.#style.dim(`  seq ${result.turnStartSeq}–${result.turnEndSeq}`))
    } finally {
      this.#cancelQuestion?.()
      printer.finish()
      this.#printer = null
    }
  }

  /** Runs one slash command; true when the chat should end. */
  async #slash(line: string): Promise<boolean> {
    const command = parseSlashCommand(line)
    if ('error' in command) {
      this.#print(this.#style.yellow(command.error))
      return false
    }
    if (isSessionCommand(command)) {
      const result = await runSessionCommand(this.#backend, this.#current, command, {
        style: this.#style,
        frontEnd: 'chat',
      })
      // A failure goes where chat's failures go: stderr.
      const stream = result.outcome === 'failed' ? this.#context.stderr : this.#context.stdout
      stream.write(`${result.text}\n`)
      if (result.switchTo !== undefined) this.#current = result.switchTo
      return false
    }
    switch (command.name) {
      case 'exit':
        return true
      case 'help':
        this.#print(chatHelp.join('\n'))
        return false
      case 'tree': {
        const sessions = await this.#backend.listSessions({ includeArchived: false })
        this.#print(
          sessions.length === 0
            ? this.#style.dim('No sessions yet.')
            : renderSessionTree(sessions, this.#style, { current: this.#current }).join('\n'),
        )
        return false
      }
      case 'switch': {
        const { session } = await this.#backend.getSession(await this.#backend.resolveSession(command.id))
        this.#current = session.id
        this.#print(
          `Now in ${this.#style.cyan(session.id)} ${titleOf(session)} (${session.eventCount} events)`,
        )
        return false
      }
      case 'image': {
        this.#images.push(...readImageFiles([command.file], this.#context.cwd, '/image'))
        const count = this.#images.length
        this.#print(
          this.#style.dim(
            `${this.#images.at(-1)!.mediaType} attached: ${count} image${count === 1 ? ' goes' : 's go'} with your next message.`,
          ),
        )
        return false
      }
      case 'model':
        if (this.#current === null) {
          await assertModelAvailable(this.#backend, command.model)
          this.#model = command.model
        } else await this.#backend.setModel(this.#current, command.model)
        this.#print(`Model: ${safeLine(command.model)}`)
        return false
      case 'mode': {
        if (command.mode === undefined) {
          const current =
            this.#current === null
              ? this.#mode
              : (await this.#backend.getSession(this.#current, Number.MAX_SAFE_INTEGER)).session.mode
          this.#print([`Mode: ${modeLabel(current)}`, ...modeListLines(current)].join('\n'))
          return false
        }
        // Before the first message there is no session yet: the mode is set when it is made.
        if (this.#current === null) this.#mode = command.mode
        else await this.#backend.setMode(this.#current, command.mode)
        this.#print(`Mode: ${modeLabel(command.mode)}`)
        return false
      }
      case 'show': {
        const id = command.id !== undefined ? await this.#backend.resolveSession(command.id) : this.#current
        if (id === null) {
          this.#print(this.#style.yellow('Nothing to show yet: send a message first (or /show ID).'))
          return false
        }
        const { session, events, usage } = await this.#backend.getSession(id)
        this.#print(renderTranscript(session, events, this.#style, usage).join('\n'))
        return false
      }
    }
  }

  /** Where the chat starts: a new session's directory, or the session and its last turn end. */
  async #where(): Promise<string> {
    if (this.#current === null) return `New session in ${safeLine(this.#cwd)}`
    const { session, events } = await this.#backend.getSession(this.#current)
    const lastEnd = events.findLast((event) => event.type === 'turn/end')
    return `${session.id} ${titleOf(session)} (${events.length} events${lastEnd ? `, last turn ended at seq ${lastEnd.seq}` : ''})`
  }

  #print(text: string): void {
    this.#context.stdout.write(`${text}\n`)
  }
}
