// `tangent tui` in a real pseudo-terminal (tmux), issue 34: how long a 10,000-event session takes
// from the command to its last answer on screen, against a 10-event one in the same run (the
// ratio is what the long log costs: the screen opens with its tail), and how long a key typed in
// the composer takes to show while a turn streams (p95, target ≤ 50 ms). The screen is read with
// `tmux capture-pane` (a few ms a read), so the echo times include that much.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { type BenchRow, type BenchSuite, median, percentile } from './table.js'
import { writeTranscriptFixture } from './transcript-fixture.js'

const cliMain = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  'packages',
  'cli',
  'dist',
  'main.js',
)
const socket = `tangent-tui-bench-${process.pid}`

function tmux(...args: string[]): string {
  return execFileSync('tmux', ['-L', socket, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  })
}

async function waitFor(pane: string, check: (screen: string) => boolean, limitMs = 30_000): Promise<void> {
  const deadline = Date.now() + limitMs
  while (!check(tmux('capture-pane', '-p', '-J', '-t', pane))) {
    if (Date.now() > deadline)
      throw new Error(
        `the screen never showed what was waited for:\n${tmux('capture-pane', '-p', '-t', pane)}`,
      )
    // A pause between reads: polling flat out would take the CPU the program under test needs.
    await new Promise((resolve) => setTimeout(resolve, 4))
  }
}

function start(
  pane: string,
  home: string,
  cwd: string,
  args: string,
  env: Record<string, string> = {},
): void {
  const vars = Object.entries({ TANGENT_HOME: home, NO_COLOR: '1', ...env })
    .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
    .join(' ')
  tmux(
    'new-session',
    '-d',
    '-s',
    pane,
    '-x',
    '120',
    '-y',
    '40',
    `cd ${JSON.stringify(cwd)} && env ${vars} ${JSON.stringify(process.execPath)} ${JSON.stringify(cliMain)} ${args}; sleep 60`,
  )
}

/** True while `file` names a live process (the data directory's writer lock). */
function lockHeld(file: string): boolean {
  try {
    process.kill((JSON.parse(fs.readFileSync(file, 'utf8')) as { pid: number }).pid, 0)
    return true
  } catch {
    return false
  }
}

/** Milliseconds from the command to `text` on screen (the process's start-up included). */
async function timeToScreen(home: string, cwd: string, args: string, text: string): Promise<number> {
  const pane = `open${Math.random().toString(36).slice(2, 8)}`
  const begin = performance.now()
  start(pane, home, cwd, args)
  await waitFor(pane, (screen) => screen.includes(text))
  const took = performance.now() - begin
  tmux('kill-session', '-t', pane)
  // The killed program (SIGHUP) closes the Host it served and lets go of the data directory's
  // lock a moment later: the next one measured must not start before, or it times its wait for the
  // leaving one — a person does not reopen in 1 ms.
  const lockFile = path.join(home, 'lock')
  const deadline = Date.now() + 10_000
  while (Date.now() < deadline && lockHeld(lockFile)) await new Promise((resolve) => setTimeout(resolve, 10))
  return took
}

export const suite: BenchSuite = {
  title:
    'tangent tui in a pseudo-terminal: opening a 10,000-event session, keystroke echo while a turn streams',
  async run(): Promise<BenchRow[]> {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-bench-tui-'))
    const home = path.join(root, 'home')
    const cwd = path.join(root, 'work')
    fs.mkdirSync(cwd, { recursive: true })
    try {
      // A session that lives through the run: the server does not exit between the measured ones.
      tmux('new-session', '-d', '-s', 'keeper', 'sleep 600')
      const long = writeTranscriptFixture(home, {
        id: 'tuilong',
        cwd,
        title: 'A long run',
        events: 10_000,
        toolRun: 200,
      })
      const short = writeTranscriptFixture(home, { id: 'tuishort', cwd, title: 'A short one', events: 10 })
      // The end of the last answer: its first words are in every turn's.
      const tail = (text: string) => text.slice(-30).trim()
      const chatTimes: number[] = []
      const shortTimes: number[] = []
      const longTimes: number[] = []
      // Interleaved, so a change in the machine's load falls on all three alike.
      for (let i = 0; i < 3; i++) {
        chatTimes.push(await timeToScreen(home, cwd, `chat ${short.id}`, 'you › '))
        shortTimes.push(await timeToScreen(home, cwd, `tui ${short.id}`, tail(short.lastText)))
        longTimes.push(await timeToScreen(home, cwd, `tui ${long.id}`, tail(long.lastText)))
      }

      // Keys typed while an answer streams (the demo quotes 200 characters, a delta every 150 ms): each
      // one's time to show in the composer.
      const pane = 'echo'
      start(pane, home, cwd, 'tui', { TANGENT_DEMO_DELAY_MS: '150' })
      await waitFor(pane, (screen) => screen.includes('[composer] Tab'))
      tmux('send-keys', '-t', pane, '-l', `please ${'stream this for a while '.repeat(10)}`)
      tmux('send-keys', '-t', pane, 'Enter')
      await waitFor(pane, (screen) => screen.includes('Turn 1: you said'))
      const echoes: number[] = []
      let typed = ''
      for (let i = 0; i < 30; i++) {
        const key = String.fromCharCode(97 + (i % 26))
        typed += key
        const begin = performance.now()
        tmux('send-keys', '-t', pane, '-l', key)
        await waitFor(pane, (screen) => screen.includes(`› ${typed}▏`))
        echoes.push(performance.now() - begin)
      }
      const streaming = tmux('capture-pane', '-p', '-t', pane).includes('busy')
      tmux('kill-session', '-t', pane)
      const shortMedian = median(shortTimes)
      const chatMedian = median(chatTimes)
      return [
        { name: `tangent chat ID: to its prompt (${short.eventCount} events)`, medianMs: chatMedian },
        {
          name: `tangent tui ID: a ${short.eventCount}-event session to its last answer on screen`,
          medianMs: shortMedian,
          baseline: { name: 'chat', medianMs: chatMedian },
        },
        {
          name: `tangent tui ID: a ${long.eventCount.toLocaleString('en')}-event session`,
          medianMs: median(longTimes),
          baseline: { name: `${short.eventCount} events`, medianMs: shortMedian },
          target: { text: '≤ 1 s', met: median(longTimes) <= 1000 },
        },
        {
          name: `keystroke echo while a turn streams (p95 of ${echoes.length}${streaming ? '' : '; the turn had ended'})`,
          medianMs: percentile(echoes, 95),
          extra: { medianMs: median(echoes).toFixed(1) },
          target: { text: 'p95 ≤ 50 ms', met: percentile(echoes, 95) <= 50 },
        },
      ]
    } finally {
      try {
        tmux('kill-server')
      } catch {
        // No server left.
      }
      fs.rmSync(root, { recursive: true, force: true })
    }
  },
}
