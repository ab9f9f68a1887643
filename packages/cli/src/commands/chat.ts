// `tangent chat [ID]`: an interactive conversation with streaming answers, Ctrl-C to abort
// a turn, and slash commands to fork, look at the tree and switch branches.
import readline from 'node:readline'
import type { Command } from 'commander'
import type { Backend } from '../backend.js'
import { chatHelp, parseSlashCommand } from '../chat-slash.js'
import { describeFailure, formatFailure } from '../cli-error.js'
import type { CliContext } from '../context.js'
import { withBackend } from '../open-backend.js'
import { renderSessionTree } from '../render/session-tree.js'
import { type Style, styleFor, titleOf } from '../render/style.js'
import { TurnPrinter } from '../render/turn-printer.js'
import { existingDirectory, titleFrom } from './run.js'

interface ChatFlags {
  cwd?: string
  model?: string
}

export function registerChatCommand(program: Command, context: CliContext): void {
  program
    .command('chat')
    .description('Chat interactively (a new session in the current directory, or continue ID)')
    .argument('[id]', 'session to continue')
    .option('--cwd <dir>', 'directory of a new session (default: the current directory)')
    .option('--model <model>', 'model of a new session, as provider:model')
    .option('--json', 'accepted for symmetry; chat is for people')
    .action(async (id: string | undefined, flags: ChatFlags) => {
      const cwd = existingDirectory(context, flags.cwd)
      await withBackend(context, {}, async (backend) => {
        if (id !== undefined) await backend.getSession(id)
        await new ChatLoop(context, backend, { current: id ?? null, cwd, model: flags.model }).run()
      })
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
  /** A line is being handled (a turn or a slash command): further lines are ignored. */
  #busy = false
  /** A turn is running: Ctrl-C aborts it. */
  #running = false
  #abortRequested = false
  /** The line being handled (resolves when it is done; never rejects). */
  #handling: Promise<void> = Promise.resolve()
  #closed = false

  constructor(
    context: CliContext,
    backend: Backend,
    options: { current: string | null; cwd: string; model?: string | undefined },
  ) {
    this.#context = context
    this.#backend = backend
    this.#style = styleFor(context.stdout, context.env)
    this.#current = options.current
    this.#cwd = options.cwd
    this.#model = options.model
  }

  async run(): Promise<void> {
    const rl = readline.createInterface({
      input: this.#context.stdin,
      output: this.#context.stdout as NodeJS.WritableStream,
      terminal: this.#context.stdin.isTTY === true,
    })
    rl.setPrompt(this.#style.green('you › '))
    this.#print(
      this.#style.dim(
        `${this.#current === null ? `New session in ${this.#cwd}` : `Session ${this.#current}`} · ${this.#backend.kind === 'host' ? 'through the running Host' : 'local'} · /help for commands, Ctrl-C to abort or leave`,
      ),
    )
    await new Promise<void>((resolve) => {
      rl.on('close', () => {
        this.#closed = true
        if (this.#running && this.#current !== null) void this.#backend.abort(this.#current)
        // Let an aborted turn write its end before the store closes.
        void this.#handling.then(resolve, resolve)
      })
      rl.on('SIGINT', () => {
        if (!this.#running || this.#abortRequested) {
          rl.close()
          return
        }
        this.#abortRequested = true
        this.#print(this.#style.yellow('\n^C aborting the turn (Ctrl-C again to leave)'))
        if (this.#current !== null) void this.#backend.abort(this.#current)
      })
      rl.on('line', (line) => {
        if (this.#busy) {
          this.#print(this.#style.dim('(still busy: wait for the turn to end, or Ctrl-C to abort it)'))
          return
        }
        this.#handling = this.#handle(line.trim(), rl)
      })
      rl.prompt()
    })
  }

  async #handle(line: string, rl: readline.Interface): Promise<void> {
    if (line === '') return this.#prompt(rl)
    this.#busy = true
    this.#running = !line.startsWith('/')
    try {
      if (line.startsWith('/')) {
        if (await this.#slash(line)) {
          rl.close()
          return
        }
      } else {
        await this.#turn(line)
      }
    } catch (error) {
      this.#context.stderr.write(`${this.#style.red(formatFailure(describeFailure(error)))}\n`)
    } finally {
      this.#busy = false
      this.#running = false
      this.#abortRequested = false
    }
    this.#prompt(rl)
  }

  #prompt(rl: readline.Interface): void {
    if (!this.#closed) rl.prompt()
  }

  async #turn(text: string): Promise<void> {
    if (this.#current === null) {
      const created = await this.#backend.createSession({
        cwd: this.#cwd,
        model: this.#model,
        title: titleFrom(text),
      })
      this.#current = created.id
      this.#print(this.#style.dim(`(session ${created.id})`))
    }
    const printer = new TurnPrinter(this.#context.stdout, this.#context.stderr, this.#style)
    try {
      const result = await this.#backend.prompt(this.#current, text, printer)
      this.#print(this.#style.dim(`  seq ${result.turnStartSeq}–${result.turnEndSeq}`))
    } finally {
      printer.finish()
    }
  }

  /** Runs one slash command; true when the chat should end. */
  async #slash(line: string): Promise<boolean> {
    const command = parseSlashCommand(line)
    if ('error' in command) {
      this.#print(this.#style.yellow(command.error))
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
        const { session } = await this.#backend.getSession(command.id)
        this.#current = session.id
        this.#print(
          `Now in ${this.#style.cyan(session.id)} ${titleOf(session)} (${session.eventCount} events)`,
        )
        return false
      }
      case 'model':
        if (this.#current === null) this.#model = command.model
        else await this.#backend.setModel(this.#current, command.model)
        this.#print(`Model: ${command.model}`)
        return false
      case 'fork': {
        if (this.#current === null) {
          this.#print(this.#style.yellow('Nothing to fork yet: send a message first.'))
          return false
        }
        const parent = this.#current
        const { session, boundary } = await this.#backend.fork({ sessionId: parent, atSeq: command.seq })
        this.#current = session.id
        this.#print(
          `Forked ${parent} through seq ${boundary}: now in ${this.#style.cyan(session.id)} (/switch ${parent} to go back)`,
        )
        return false
      }
    }
  }

  #print(text: string): void {
    this.#context.stdout.write(`${text}\n`)
  }
}
