// `tangent demo`: a first look without an API key. The offline demo model does two turns
// in a sample directory, then the conversation is forked so `tangent sessions` shows a tree.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Command } from 'commander'
import type { Backend, TurnObserver } from '../backend.js'
import type { CliContext } from '../context.js'
import { withBackend } from '../open-backend.js'
import { printJson, printLines } from '../output.js'
import { renderSessionTree } from '../render/session-tree.js'
import { safeLine, styleFor } from '../render/style.js'
import { TurnPrinter } from '../render/turn-printer.js'
import { existingDirectory } from './run.js'

interface DemoFlags {
  dir?: string
  json?: boolean
}

export function registerDemoCommand(program: Command, context: CliContext): void {
  program
    .command('demo')
    .description('Create a demo session (offline model) with two turns and a fork, in a sample directory')
    .option('--dir <dir>', 'work in this directory (default: a new temporary one)')
    .option('--json', 'print {dir, parent, child} (session summaries)')
    .action((flags: DemoFlags) => demo(context, flags))
}

async function demo(context: CliContext, flags: DemoFlags): Promise<void> {
  const dir =
    flags.dir === undefined
      ? fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-demo-'))
      : existingDirectory(context, flags.dir)
  const style = styleFor(context.stdout, context.env)
  await withBackend(context, {}, async (backend) => {
    const say = async (sessionId: string, text: string) => {
      if (!flags.json) context.stdout.write(`${style.green('you ›')} ${text}\n`)
      const observer: TurnObserver = flags.json
        ? { onEvent: () => {}, onDelta: () => {} }
        : new TurnPrinter(context.stdout, context.stderr, style)
      return backend.prompt(sessionId, text, observer)
    }
    const parent = await backend.createSession({ cwd: dir, title: 'Demo: notes', model: 'demo:scripted' })
    const first = await say(parent.id, 'write notes.txt: Tangent keeps every turn of a conversation.')
    await say(parent.id, 'What can I do next?')
    const fork = await backend.fork({
      sessionId: parent.id,
      atSeq: first.turnEndSeq,
      title: 'Demo: another idea',
    })
    if (!flags.json)
      context.stdout.write(style.dim(`\n— forked after the first turn (seq ${fork.boundary}) —\n`))
    await say(fork.session.id, 'append notes.txt: Forks are branches you can compare.')
    const summaries = await sessionsOf(backend, [parent.id, fork.session.id])
    if (flags.json) return printJson(context, { dir, parent: summaries[0], child: summaries[1] })
    printLines(context, [
      '',
      style.bold('Your sessions now form a tree:'),
      ...renderSessionTree(summaries, style),
      '',
      `Files are in ${safeLine(dir)}`,
      `Next: tangent show ${parent.id}    tangent fork ${parent.id} --at ${first.turnEndSeq}    tangent chat ${fork.session.id}`,
    ])
  })
}

async function sessionsOf(backend: Backend, ids: readonly string[]) {
  return Promise.all(ids.map(async (id) => (await backend.getSession(id)).session))
}
