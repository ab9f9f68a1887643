// Drives `tangent chat` through a real pseudo-terminal (tmux) and reads the screen:
// a streamed answer, Ctrl-C aborting a turn, /fork, /tree, and Ctrl-C at the prompt to leave.
import { execFileSync } from 'node:child_process'
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

function screen(): string {
  return tmux('capture-pane', '-p', '-J', '-S', '-200', '-t', name)
}

/** Polls the screen until `pattern` shows (a generous limit: this waits, it does not time anything). */
async function waitForScreen(pattern: RegExp, limitMs = 20_000): Promise<string> {
  const deadline = Date.now() + limitMs
  let last = ''
  while (Date.now() < deadline) {
    last = screen()
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
