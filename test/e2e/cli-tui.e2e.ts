// Drives `tangent tui` (and `tangent` alone) in a real pseudo-terminal (tmux) against the demo
// model and reads the screen: the tree, a streamed reply, a fork from the tree and from a turn,
// an approval answered with one key, Esc stopping a turn, a turn from another terminal appearing
// live, the layout after a resize to 80 columns and back to 160, a code block's colours, Ctrl-C
// twice restoring the terminal, and a closed terminal (SIGHUP) or SIGTERM letting the data dir go
// before the process ends.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { startFakeProviderServer } from '../../packages/agent/src/testing/fake-provider-server.js'
import { openaiResponsesWire } from '../../packages/agent/src/testing/wire-formats.js'
import {
  cliMain,
  createSandbox,
  removeSandbox,
  type Sandbox,
  tangent,
  tangentInProcess,
  tangentJson,
} from './cli-harness.js'

const socket = `tangent-tui-test-${process.pid}`
let pane = ''
let counter = 0

function tmux(...args: string[]): string {
  return execFileSync('tmux', ['-L', socket, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  })
}

function screen(): string {
  return tmux('capture-pane', '-p', '-t', pane)
}

/** The screen with its colours and attributes, as escape sequences. */
function screenWithAttributes(): string {
  return tmux('capture-pane', '-p', '-e', '-t', pane)
}

/** The screen's text without its escape sequences (SGR). */
function withoutSequences(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the screen's escape sequences
  return text.replace(/\u001b\[[0-9;]*m/g, '')
}

/**
 * Polls the screen, its rows as the terminal has them (capture-pane -J joins a row the terminal
 * wrapped to the next one), until `check` accepts them.
 */
async function waitForLayout(check: (rows: string[]) => boolean, limitMs = 15_000): Promise<string[]> {
  const deadline = Date.now() + limitMs
  let rows: string[] = []
  while (Date.now() < deadline) {
    rows = tmux('capture-pane', '-p', '-J', '-t', pane).replace(/\n$/, '').split('\n')
    if (check(rows)) return rows
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`the screen never had the layout waited for:\n${rows.join('\n')}`)
}

/** Polls the screen until `pattern` shows (a generous limit: this waits, it does not time anything). */
async function waitForScreen(
  pattern: RegExp | ((screen: string) => boolean),
  limitMs = 15_000,
): Promise<string> {
  const deadline = Date.now() + limitMs
  const matches = typeof pattern === 'function' ? pattern : (text: string) => pattern.test(text)
  let last = ''
  while (Date.now() < deadline) {
    last = screen()
    if (matches(last)) return last
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`screen never showed ${pattern}:\n${last}`)
}

function keys(...sent: string[]): void {
  tmux('send-keys', '-t', pane, ...sent)
}

/** Types text (literally) and then presses Enter as a key of its own. */
function type(text: string): void {
  tmux('send-keys', '-t', pane, '-l', text)
  tmux('send-keys', '-t', pane, 'Enter')
}

/**
 * Starts `tangent ARGS` in a new tmux window of `columns`×`rows`; the shell line prints a marker
 * before and the exit code after, so a test can see the terminal as it was left.
 */
async function start(
  args: string[],
  env: Record<string, string> = {},
  columns = 100,
  rows = 30,
): Promise<void> {
  pane = `tui${counter++}`
  const vars = Object.entries({
    TANGENT_HOME: sandbox.home,
    XDG_CONFIG_HOME: sandbox.env.XDG_CONFIG_HOME!,
    NO_COLOR: '1',
    TANGENT_DEMO_DELAY_MS: '2',
    ...env,
  })
    .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
    .join(' ')
  const command = `cd ${JSON.stringify(sandbox.cwd)} && echo BEFORE-THE-UI && env ${vars} ${JSON.stringify(process.execPath)} ${JSON.stringify(cliMain)} ${args.join(' ')}; echo "EXITED $?"; sleep 60`
  tmux('new-session', '-d', '-s', pane, '-x', String(columns), '-y', String(rows), command)
  await waitForScreen(/\[composer\] Tab/)
}

/** Ctrl-C twice: the UI leaves, the shell's screen comes back as it was, exit code 0. */
async function quit(): Promise<string> {
  keys('C-c')
  await waitForScreen(/Ctrl-C again to quit/)
  keys('C-c')
  return waitForScreen(/EXITED \d+/)
}

/** The process serving the data dir (the UI's own, while no other Host runs): host.json's pid. */
function servingPid(): number {
  const discovery = JSON.parse(fs.readFileSync(path.join(sandbox.home, 'host.json'), 'utf8')) as {
    pid: number
  }
  return discovery.pid
}

/**
 * Whether process `pid` still runs. A zombie does not: its shell died with the terminal too, so
 * it waits to be reaped by whichever process adopts it (which may take a while), and a signal
 * still "reaches" it.
 */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    // /proc/PID/stat: "PID (COMMAND) STATE …"; the command may hold spaces and parentheses.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return true
  }
}

/** Waits for process `pid` to be gone (a generous limit: this waits, it does not time anything). */
async function waitForExit(pid: number, limitMs = 15_000): Promise<void> {
  const deadline = Date.now() + limitMs
  while (alive(pid)) {
    if (Date.now() > deadline) throw new Error(`process ${pid} is still running`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

let sandbox: Sandbox
beforeAll(() => {
  sandbox = createSandbox()
  // bash asks: an approval to answer with one key.
  const config = path.join(sandbox.env.XDG_CONFIG_HOME!, 'tangent')
  fs.mkdirSync(config, { recursive: true })
  fs.writeFileSync(path.join(config, 'config.json'), JSON.stringify({ permission: { bash: 'ask' } }))
})

afterEach(() => {
  try {
    tmux('kill-session', '-t', pane)
  } catch {
    // Already gone.
  }
})

afterAll(() => {
  try {
    tmux('kill-server')
  } catch {
    // No server left.
  }
  removeSandbox(sandbox)
})

describe('tangent tui in a terminal', () => {
  it('`tangent` alone opens it: a message streams its reply, the tree lists the session; Ctrl-C twice restores the terminal', async () => {
    await start([])
    expect(screen()).toContain('New session in')
    type('hello from the terminal ui')
    const shown = await waitForScreen(
      /Turn 1: you said "hello from the terminal ui"\.[\s\S]*turn ends · seq \d+/,
    )
    expect(shown).toMatch(/you › hello from the terminal ui/)
    // The tree (left pane) lists the new session; the status line has the model and the meter.
    expect(shown).toMatch(/^(● )?hello from the terminal ui/m)
    // The turn over: the status says ready, the tree's row no longer running.
    await waitForScreen(
      (text) =>
        /^ready \[composer\] Tab · demo:scripted · ctx \[.*\] .* · \$0 · sandbox (on|off)$/m.test(text) &&
        !text.includes('● hello'),
    )
    // NO_COLOR: not one colour or attribute on the screen.
    expect(screenWithAttributes()).not.toContain('\u001b[')
    const after = await quit()
    expect(after).toContain('EXITED 0')
    expect(after).toContain('BEFORE-THE-UI')
    // The alternate screen is gone: nothing of the UI is left on the shell's screen.
    expect(after).not.toContain('[composer]')
  })

  it('forks from the tree (f) and from a turn in the transcript (f), each opening the fork', async () => {
    const { stdout } = await tangent(sandbox, ['run', '--json', 'first turn for forks'])
    const parent = (JSON.parse(stdout) as { sessionId: string }).sessionId
    await tangent(sandbox, ['run', '--session', parent, 'second turn for forks'])
    await start(['tui', parent.slice(0, 8)])
    await waitForScreen(/Turn 2: you said "second turn for forks"/)
    // Tab to the tree; the parent is selected; f forks its last turn.
    keys('Tab')
    await waitForScreen(/\[tree\] Tab/)
    keys('f')
    const forked = await waitForScreen(/Forked through seq (\d+): now in (\S+)/)
    const [, seq, child] = forked.match(/Forked through seq (\d+): now in (\S+)/)!
    expect(forked).toMatch(new RegExp(`└ @${seq} first turn for forks`))
    // In the fork, Tab twice to the transcript: the last turn is selected; ↑ the one before; f forks there.
    keys('Tab', 'Tab')
    await waitForScreen(/\[transcript\] Tab/)
    keys('Up')
    // The last turn is marked before ↑ lands: wait for the mark to move to an earlier turn (CI once
    // read the screen between the key and its redraw).
    const markedSeq = (text: string) =>
      Number(text.match(/turn ends · seq (\d+) ← fork here/)?.[1] ?? Number.NaN)
    const selected = await waitForScreen((text) => markedSeq(text) < Number(seq))
    const firstEnd = String(markedSeq(selected))
    expect(Number(firstEnd)).toBeLessThan(Number(seq))
    keys('f')
    const second = await waitForScreen(new RegExp(`Forked through seq ${firstEnd}: now in (\\S+)`))
    expect(second.match(/now in (\S+)/)![1]).not.toBe(child)
    // The runtime has both forks, at those seqs.
    const listed = JSON.parse((await tangent(sandbox, ['sessions', '--json'])).stdout) as {
      id: string
      parentSession: string | null
      forkedAt: number | null
    }[]
    expect(listed.find((session) => session.id === child)).toMatchObject({
      parentSession: parent,
      forkedAt: Number(seq),
    })
    expect(
      listed.some((session) => session.parentSession === child && session.forkedAt === Number(firstEnd)),
    ).toBe(true)
    expect(await quit()).toContain('EXITED 0')
  })

  it('an approval is answered with one key (y), its scope shown first; the call runs', async () => {
    await start(['tui'])
    type('run: touch approved.txt')
    const asked = await waitForScreen(/Allow bash: touch approved\.txt\?/)
    expect(asked).toMatch(/\[a\] always = allow bash commands starting with `touch`/)
    expect(asked).toContain('needs approval')
    keys('y')
    await waitForScreen(/✓ bash touch approved\.txt[\s\S]*turn ends/)
    expect(fs.existsSync(path.join(sandbox.cwd, 'approved.txt'))).toBe(true)
    // n denies the next one: nothing runs.
    type('run: touch denied.txt')
    await waitForScreen(/Allow bash: touch denied\.txt\?/)
    keys('n')
    await waitForScreen(/denied[\s\S]*turn ends · seq \d+\n(?![\s\S]*Allow bash)/)
    expect(fs.existsSync(path.join(sandbox.cwd, 'denied.txt'))).toBe(false)
    await quit()
  })

  it('Esc stops a running turn; the session stays usable', async () => {
    await start(['tui'], { TANGENT_DEMO_DELAY_MS: '40' })
    type(`please ${'stream this slowly '.repeat(15)}`)
    await waitForScreen(/busy · Esc stops/)
    await waitForScreen(/Turn 1: you said/)
    keys('Escape')
    await waitForScreen(/turn aborted: Aborted by the user\. · seq \d+/)
    await waitForScreen(/^ready /m)
    // The session stays usable: the next message gets its answer.
    type('after the stop')
    await waitForScreen(/you said "after the stop"/)
    await waitForScreen(/^ready /m)
    // Quitting while a turn of this screen runs stops it: the program ends at once, not with the turn.
    type(`please ${'stream this slowly '.repeat(15)}`)
    await waitForScreen(/busy · Esc stops/)
    expect(await quit()).toContain('EXITED 0')
    const listed = JSON.parse((await tangent(sandbox, ['sessions', '--json'])).stdout) as {
      title: string
      status: string
      lastStatus: string
    }[]
    // Its last turn was stopped, not run to its end.
    expect(listed.find((session) => session.title.startsWith('please stream'))).toMatchObject({
      status: 'idle',
      lastStatus: 'aborted',
    })
  })

  it('shows a turn another terminal runs in the open session as it runs; lays out at 80 columns after a resize and re-wraps at 160', async () => {
    const { stdout } = await tangent(sandbox, ['run', '--json', 'the session both terminals share'])
    const id = (JSON.parse(stdout) as { sessionId: string }).sessionId
    await start(['tui', id])
    await waitForScreen(/Turn 1: you said "the session both terminals share"/)
    // The UI serves the data dir: this command goes through it, and its turn shows here. Its
    // message is longer than the transcript pane is wide at 80 columns, not at 160.
    const words = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike'
    const message = `sent from another terminal ${words}`
    const other = await tangent(sandbox, ['run', '--session', id, message])
    expect(other.code).toBe(0)
    await waitForScreen(/Turn 2: you said "sent from another terminal/)

    // 80 columns: the tree pane is 24 cells wide, then the separator, then 55 for the transcript
    // (app.tsx). Waited for: the separator in its new column and the status line on the last row.
    tmux('resize-window', '-t', pane, '-x', '80', '-y', '24')
    const narrowRows = await waitForLayout(
      (rows) => rows[0]?.[24] === '│' && /^ready \[composer\] Tab/.test(rows.at(-1) ?? ''),
    )
    expect(narrowRows).toHaveLength(24)
    // Nothing was written past the edge: a line longer than the terminal would have wrapped onto
    // the next row (joined again here by capture-pane -J), pushing the layout down.
    for (const row of narrowRows) expect([...row].length).toBeLessThanOrEqual(80)
    // Every row above the composer is tree │ transcript, the separator in the same column.
    const paneRows = narrowRows.slice(
      0,
      narrowRows.findIndex((row) => row.startsWith('› ')),
    )
    expect(paneRows.length).toBeGreaterThan(10)
    for (const row of paneRows) expect(row[24]).toBe('│')
    // The composer, the notice row and the status line, in that order at the bottom.
    expect(narrowRows.at(-3)).toMatch(/^› ▏/)
    expect(narrowRows.at(-1)).toMatch(/^ready \[composer\] Tab · demo:scripted/)
    // The tree shows the open session (its title cut to the pane); the transcript's header its id.
    expect(paneRows.map((row) => row.slice(0, 24)).join('\n')).toMatch(/^(● )?the session both/m)
    expect(paneRows[0]!.slice(25)).toContain(id)
    // The long message wraps within the transcript's 55 cells: it takes more than one row.
    const transcript = paneRows.map((row) => row.slice(25).trimEnd())
    for (const row of transcript) expect([...row].length).toBeLessThanOrEqual(55)
    const first = transcript.findIndex((row) => row.startsWith('you › sent from another terminal'))
    expect(first).toBeGreaterThan(0)
    expect(transcript[first]).not.toContain('mike')
    expect(transcript.slice(first + 1, first + 3).join(' ')).toContain('mike')

    // Back to 160 columns: a 32-cell tree, and the message re-wrapped onto one row.
    tmux('resize-window', '-t', pane, '-x', '160', '-y', '40')
    const wideRows = await waitForLayout((rows) =>
      rows.some((row) => row.slice(33).startsWith(`you › ${message}`)),
    )
    expect(wideRows[0]![32]).toBe('│')
    expect(wideRows.at(-1)).toMatch(/^ready \[composer\] Tab/)
    await quit()
  })

  it('closing the terminal (SIGHUP) mid-turn closes the runtime first: the lock and host.json are gone, the log reads', async () => {
    await start(['tui'], { TANGENT_DEMO_DELAY_MS: '40' })
    type(`hang up ${'while this streams slowly '.repeat(15)}`)
    await waitForScreen(/busy · Esc stops/)
    await waitForScreen(/Turn \d+: you said "hang up/)
    // The UI serves the data dir while it runs: host.json names its process.
    const pid = servingPid()
    // What closing a terminal window does: tmux closes the pane's pseudo-terminal and the
    // program gets SIGHUP.
    tmux('kill-session', '-t', pane)
    await waitForExit(pid)
    // It let the data dir go before it died: nothing for the next command to take over.
    expect(fs.existsSync(path.join(sandbox.home, 'host.json'))).toBe(false)
    expect(fs.existsSync(path.join(sandbox.home, 'lock'))).toBe(false)
    // The session's log is whole and reads: the message, and the turn ended (not cut mid-write).
    const listed = await tangentJson<{ id: string; title: string; status: string }[]>(sandbox, ['sessions'])
    const session = listed.find((entry) => entry.title.startsWith('hang up'))!
    expect(session.status).toBe('idle')
    const { events } = await tangentJson<{ events: { type: string; data: unknown }[] }>(sandbox, [
      'show',
      session.id,
    ])
    expect(events.some((event) => event.type === 'user/message')).toBe(true)
    // The turn the hang-up cut is closed in the log as the runtime closes one it was running:
    // what had streamed kept, then its end, interrupted.
    expect(events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'interrupted' } })
    expect(events.some((event) => event.type === 'assistant/message')).toBe(true)
  })

  it('SIGTERM closes the runtime and restores the terminal before the process exits (143)', async () => {
    await start(['tui'])
    type('before the terminate')
    await waitForScreen(/Turn \d+: you said "before the terminate"[\s\S]*turn ends/)
    process.kill(servingPid(), 'SIGTERM')
    const after = await waitForScreen(/EXITED \d+/)
    expect(after).toContain('EXITED 143')
    expect(after).toContain('BEFORE-THE-UI')
    expect(after).not.toContain('[composer]')
    expect(fs.existsSync(path.join(sandbox.home, 'host.json'))).toBe(false)
    expect(fs.existsSync(path.join(sandbox.home, 'lock'))).toBe(false)
  })

  it('/explore shows the board live, a row per branch; k then a letter keeps that branch', async () => {
    await start(['tui'])
    type('start of the exploration')
    await waitForScreen(/Turn 1: you said "start of the exploration"/)
    type('/explore write a.txt: from A | write b.txt: from B')
    await waitForScreen(/Exploration board/)
    // Both branches end (their rows say idle) with one file each.
    const board = await waitForScreen(
      /│A ○ idle {2}1\/1 turns {2}1f \+1 −0[\s\S]*│B ○ idle {2}1\/1 turns {2}1f \+1 −0/,
    )
    expect(board).toContain('[transcript] Tab')
    // The tree groups the branches under their exploration row.
    expect(board).toMatch(/⋔ exploration A B @\d+/)
    keys('k')
    keys('B')
    await waitForScreen(/kept \S+ into \S+ \(branch\/kept at seq \d+\)/)
    expect(fs.readFileSync(path.join(sandbox.cwd, 'b.txt'), 'utf8')).toBe('from B\n')
    expect(fs.existsSync(path.join(sandbox.cwd, 'a.txt'))).toBe(false)
    await quit()
  })

  it('against an OpenAI-compatible server: a hostile command is shown escaped, `a` allows it always, the Markdown reply renders', async () => {
    const model = await startFakeProviderServer([
      {
        frames: openaiResponsesWire.toolCall('call_1', 'bash', {
          command: 'echo \u001b[2J cleared; touch from-model.txt',
        }),
      },
      { frames: openaiResponsesWire.text('Done with **the file**:\n\n- one\n- two') },
    ])
    try {
      await start(['tui'], {
        TANGENT_MODEL: 'openai:gpt-4.1',
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: model.baseUrl,
      })
      type('make the file')
      const asked = await waitForScreen(/Allow bash: echo \\x1b\[2J cleared; touch from-model\.txt\?/)
      expect(asked).toContain('[a] always = allow')
      keys('a')
      const done = await waitForScreen(/Done with the file:[\s\S]*• one[\s\S]*• two[\s\S]*turn ends/)
      expect(done).toMatch(/✓ bash echo \\x1b\[2J cleared; touch from-model\.txt/)
      expect(done).toContain('openai:gpt-4.1')
      expect(fs.existsSync(path.join(sandbox.cwd, 'from-model.txt'))).toBe(true)
      await quit()
    } finally {
      await model.close()
    }
  })

  it('colours a ts code block (shiki in its worker thread, chunks/shiki-worker.js of the bundle, started on first use); an unknown language stays plain', async () => {
    const model = await startFakeProviderServer([
      {
        frames: openaiResponsesWire.text(
          'Here:\n\n```ts\nconst answer: number = 42\n```\n\n```../../etc\nconst plain = 1\n```',
        ),
      },
    ])
    try {
      await start(['tui'], {
        NO_COLOR: '',
        TANGENT_MODEL: 'openai:gpt-4.1',
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: model.baseUrl,
      })
      type('show me some code')
      await waitForScreen(/const answer: number = 42[\s\S]*const plain = 1[\s\S]*turn ends/)
      // Drawn plain first, coloured once the worker has loaded shiki and the grammar: `const` in the
      // keyword colour (magenta, SGR 35), `42` a number (yellow, 33). tmux writes each attribute
      // as it changes, so other sequences (a background reset) may come between colour and text.
      const lineWith = (text: string, words: string) =>
        text.split('\n').find((line) => withoutSequences(line).includes(words)) ?? ''
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the screen's escape sequences
      const keyword = /\u001b\[35m(?:\u001b\[[0-9;]*m)*const/
      const deadline = Date.now() + 15_000
      let shown = screenWithAttributes()
      while (!keyword.test(lineWith(shown, 'const answer')) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50))
        shown = screenWithAttributes()
      }
      expect(lineWith(shown, 'const answer')).toMatch(keyword)
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the screen's escape sequences
      expect(lineWith(shown, 'const answer')).toMatch(/\u001b\[33m(?:\u001b\[[0-9;]*m)*42/)
      // The block whose info string is no language: no foreground colour on its line (the pane's
      // separator only resets its dim).
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the screen's escape sequences
      expect(lineWith(shown, 'const plain')).not.toMatch(/\u001b\[(?:\d+;)*(?:3[0-8]|9[0-7])(?:;\d+)*m/)
      await quit()
    } finally {
      await model.close()
    }
  })

  it('colours the screen without NO_COLOR (the open session, the status)', async () => {
    await start(['tui', '-c'], { NO_COLOR: '' })
    const coloured = screenWithAttributes()
    expect(coloured).toMatch(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`))
    await quit()
  })
})

describe('tangent tui without a terminal, and --plain', () => {
  it('prints line by line as `tangent chat` does (screen readers, pipes)', async () => {
    const piped = await tangentInProcess(sandbox, ['tui'], { input: 'hello plain mode\n' })
    expect(piped.code).toBe(0)
    expect(piped.stdout).toContain('Turn 1: you said "hello plain mode".')
    expect(piped.stdout).not.toContain('\u001b[')
  })

  it('`tangent` alone without a terminal still prints the help', async () => {
    const alone = await tangentInProcess(sandbox, [])
    expect(alone.code).toBe(2)
    expect(alone.stderr).toContain('tangent tui [ID]')
  })
})
