// Drives `tangent chat` through a real pseudo-terminal (tmux) and reads the screen:
// a streamed answer, Ctrl-C aborting a turn, /fork, /tree, and Ctrl-C at the prompt to leave.
import { execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cliMain, createSandbox, removeSandbox, type Sandbox, tangentInProcess } from './cli-harness.js'

const socket = `tangent-cli-test-${process.pid}`
const name = 'chat'

function tmux(...args: string[]): string {
  return execFileSync('tmux', ['-L', socket, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  })
}

function screen(pane = name): string {
  return tmux('capture-pane', '-p', '-J', '-S', '-200', '-t', pane)
}

/** Polls the screen until `pattern` shows (a generous limit: this waits, it does not time anything). */
async function waitForScreen(pattern: RegExp, limitMs = 20_000, pane = name): Promise<string> {
  const deadline = Date.now() + limitMs
  let last = ''
  while (Date.now() < deadline) {
    last = screen(pane)
    if (pattern.test(last)) return last
    await new Promise((resolve) => setTimeout(resolve, 150))
  }
  throw new Error(`screen never showed ${pattern}:\n${last}`)
}

/** Waits until `count` turns have ended (each prints its seq range) and the prompt is back. */
async function waitForTurns(count: number): Promise<string> {
  const deadline = Date.now() + 20_000
  let last = ''
  while (Date.now() < deadline) {
    last = screen()
    const ended = last.match(/^\s+seq \d+–\d+$/gm)?.length ?? 0
    if (ended >= count && /you › $/m.test(last)) return last
    await new Promise((resolve) => setTimeout(resolve, 150))
  }
  throw new Error(`screen never showed ${count} finished turns:\n${last}`)
}

function sessionAlive(): boolean {
  try {
    tmux('has-session', '-t', name)
    return true
  } catch {
    return false
  }
}

let sandbox: Sandbox
beforeAll(() => {
  sandbox = createSandbox()
  const env = Object.entries({ TANGENT_HOME: sandbox.home, NO_COLOR: '1', TANGENT_DEMO_DELAY_MS: '60' })
    .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
    .join(' ')
  const command = `cd ${JSON.stringify(sandbox.cwd)} && env ${env} ${JSON.stringify(process.execPath)} ${JSON.stringify(cliMain)} chat`
  tmux('new-session', '-d', '-s', name, '-x', '120', '-y', '40', command)
})

afterAll(() => {
  if (sessionAlive()) tmux('kill-server')
  removeSandbox(sandbox)
})

describe('tangent chat in a terminal', () => {
  it('streams answers, aborts with Ctrl-C, forks and shows the tree', async () => {
    await waitForScreen(/you › $/m)
    tmux('send-keys', '-t', name, 'write chat.txt: from the chat', 'Enter')
    await waitForTurns(1)
    expect(screen()).toMatch(/▸ write chat\.txt\n\s+✓ Wrote chat\.txt/)
    expect(fs.readFileSync(path.join(sandbox.cwd, 'chat.txt'), 'utf8')).toContain('from the chat')

    tmux('send-keys', '-t', name, 'hello chat', 'Enter')
    await waitForTurns(2)
    expect(screen()).toContain('Turn 2: you said "hello chat".')

    // A long answer streams slowly: Ctrl-C while it streams aborts the turn, not the chat.
    tmux('send-keys', '-t', name, `please ${'stream this slowly '.repeat(12)}`, 'Enter')
    await waitForScreen(/Turn 3: you said/)
    tmux('send-keys', '-t', name, 'C-c')
    await waitForScreen(/turn ended: aborted/)
    await waitForTurns(3)
    expect(sessionAlive()).toBe(true)

    tmux('send-keys', '-t', name, '/fork', 'Enter')
    const forked = await waitForScreen(/Forked (\S+) through seq (\d+): now in (\S+)/)
    const [, parentId, , childId] = forked.match(/Forked (\S+) through seq (\d+): now in (\S+)/)!

    tmux('send-keys', '-t', name, '/tree', 'Enter')
    const tree = await waitForScreen(new RegExp(`└─ \\* ${childId}`))
    expect(tree).toMatch(new RegExp(`^${parentId}  `, 'm'))

    tmux('send-keys', '-t', name, 'in the fork', 'Enter')
    await waitForTurns(4)
    expect(screen()).toMatch(/you said "in the fork"/)

    // Ctrl-C at an idle prompt leaves.
    tmux('send-keys', '-t', name, 'C-c')
    const deadline = Date.now() + 10_000
    while (sessionAlive() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
    expect(sessionAlive()).toBe(false)
  })
})

describe('tangent chat with piped input', () => {
  it('answers each line in order, runs slash commands, and exits 0 at the end of input', async () => {
    const piped = createSandbox()
    try {
      const result = await tangentInProcess(piped, ['chat'], {
        input: 'write piped.txt: yes\nsecond line\n/fork\n/tree\n',
      })
      expect(result.code).toBe(0)
      expect(fs.readFileSync(path.join(piped.cwd, 'piped.txt'), 'utf8')).toContain('yes')
      expect(result.stdout).toContain('Turn 2: you said "second line".')
      const forked = result.stdout.match(/Forked (\S+) through seq \d+: now in (\S+)/)
      expect(forked).not.toBeNull()
      expect(result.stdout).toMatch(new RegExp(`^└─ \\* ${forked![2]}`, 'm'))
    } finally {
      removeSandbox(piped)
    }
  })
})

describe('tangent chat: single-key approvals, messages from elsewhere, slash commands', () => {
  const pane = 'chat-keys'
  let keys: Sandbox

  beforeAll(() => {
    keys = createSandbox()
    // bash asks, so the chat has an approval to answer.
    const config = path.join(keys.env.XDG_CONFIG_HOME!, 'tangent')
    fs.mkdirSync(config, { recursive: true })
    fs.writeFileSync(path.join(config, 'config.json'), JSON.stringify({ permission: { bash: 'ask' } }))
    const env = Object.entries({
      TANGENT_HOME: keys.home,
      XDG_CONFIG_HOME: keys.env.XDG_CONFIG_HOME!,
      NO_COLOR: '1',
      TANGENT_DEMO_DELAY_MS: '60',
    })
      .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
      .join(' ')
    const command = `cd ${JSON.stringify(keys.cwd)} && env ${env} ${JSON.stringify(process.execPath)} ${JSON.stringify(cliMain)} chat`
    tmux('new-session', '-d', '-s', pane, '-x', '200', '-y', '50', command)
  })
  afterAll(() => {
    try {
      tmux('kill-session', '-t', pane)
    } catch {}
    removeSandbox(keys)
  })

  it('answers with one key, prints another terminal’s warning above the question, and runs /restore /undo /show /diff /explore /keep', async () => {
    const send = (...keysToSend: string[]) => tmux('send-keys', '-t', pane, ...keysToSend)
    // Forgets what the pane showed, so the next wait reads only what comes after.
    const wipe = () => {
      tmux('send-keys', '-t', pane, '-R')
      tmux('clear-history', '-t', pane)
    }
    const turnsDone = async (count: number) =>
      waitForScreen(new RegExp(`(?:^\\s+seq \\d+–\\d+\\n(?:.*\\n)*?){${count}}`, 'm'), 30_000, pane)
    await waitForScreen(/you › $/m, 20_000, pane)
    send('write base.txt: base', 'Enter')
    const firstEnd = Number((await turnsDone(1)).match(/^\s+seq \d+–(\d+)$/m)![1])

    // The question: the call and what "always" keeps, then the keys as the prompt.
    send('run: touch one.txt', 'Enter')
    await waitForScreen(/\[y\] once · \[a\] always · \[n\] deny › $/m, 20_000, pane)
    expect(screen(pane)).toContain(
      '  [a] always = allow bash commands starting with `touch` for the rest of this session',
    )

    // Another terminal starts a turn in the same folder: its warning lands above the question, not in it.
    const other = spawn(process.execPath, [cliMain, 'run', `please ${'stream this slowly '.repeat(6)}`], {
      cwd: keys.cwd,
      env: { ...keys.env, TANGENT_DEMO_DELAY_MS: '60' } as NodeJS.ProcessEnv,
      stdio: 'ignore',
    })
    const warned = await waitForScreen(
      /share its files\.\n\[y\] once · \[a\] always · \[n\] deny › $/m,
      30_000,
      pane,
    )
    expect(warned).toMatch(
      /^warning: sessions .* are running turns in .* at the same time; they share its files\.$/m,
    )
    await new Promise<void>((resolve) => other.once('exit', () => resolve()))

    // One key, no Enter: "a" allows always.
    send('a')
    await waitForScreen(/✓ allowed always in this session: bash touch/, 20_000, pane)
    await turnsDone(2)
    expect(fs.existsSync(path.join(keys.cwd, 'one.txt'))).toBe(true)
    expect(screen(pane)).toContain('[y] once · [a] always · [n] deny › a')

    // /help lists the new commands.
    send('/help', 'Enter')
    const help = await waitForScreen(/\/exit\s+leave/, 20_000, pane)
    for (const command of [
      '/restore SEQ',
      '/undo [SEQ]',
      '/diff ID',
      '/explore P1 | P2',
      '/show [ID]',
      '/keep ID',
    ])
      expect(help).toContain(command)

    // /show: the transcript with seqs; /restore to the first turn's end removes one.txt, /undo brings it back.
    wipe()
    send('/show', 'Enter')
    const shown = await waitForScreen(/touch one\.txt[\s\S]*you › $/m, 20_000, pane)
    expect(shown).toContain('write base.txt: base')
    send(`/restore ${firstEnd}`, 'Enter')
    await waitForScreen(/Restored 1 path\(s\) to seq \d+: one\.txt \(undo with \/undo \d+\)/, 20_000, pane)
    expect(fs.existsSync(path.join(keys.cwd, 'one.txt'))).toBe(false)
    send('/undo', 'Enter')
    await waitForScreen(/Undid the restore: put back 1 path\(s\): one\.txt/, 20_000, pane)
    expect(fs.existsSync(path.join(keys.cwd, 'one.txt'))).toBe(true)

    // /explore two ways, /keep B, /diff against A.
    send('/explore write a.txt: from A | write b.txt: from B', 'Enter')
    const explored = await waitForScreen(
      /Trying 2 ways from \S+[^\n]*\n\s+A (\S+) [^\n]*\n\s+B (\S+)/,
      20_000,
      pane,
    )
    const [, aId, bId] = explored.match(/Trying 2 ways from \S+[^\n]*\n\s+A (\S+) [^\n]*\n\s+B (\S+)/)!
    // The branches' turns run in this process: wait until B's file is in its worktree and the turn is done.
    const deadline = Date.now() + 30_000
    for (;;) {
      send('/keep', 'Space', bId!, 'Enter')
      const after = await waitForScreen(/kept \S+ into|wait for it to end/, 20_000, pane)
      if (/kept \S+ into/.test(after)) break
      if (Date.now() > deadline) throw new Error(`never kept:\n${after}`)
      wipe()
      await new Promise((resolve) => setTimeout(resolve, 500))
    }
    expect(fs.readFileSync(path.join(keys.cwd, 'b.txt'), 'utf8')).toBe('from B\n')
    send(`/diff ${aId}`, 'Enter')
    await waitForScreen(/Files \(\d+\):[\s\S]*The whole diff: tangent diff/, 20_000, pane)
  }, 120_000)
})
