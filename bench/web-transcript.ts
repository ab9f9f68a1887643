// The transcript part of the web benchmark (issue 17): long sessions written in the on-disk
// format, opened in real Chromium against a real Host. Side by side in one run: the time from a
// click on the session to its last message painted at 100 / 10k / 50k events, the longest long
// task meanwhile, the DOM and the renderer's memory; the lag between the Host ending a 300-tool
// turn in a fork of a 10k-event session and the page painting that end; keypress-to-paint in the
// composer while that turn streams.
import fs from 'node:fs'
import path from 'node:path'
import { type RunningHost, startHost } from '@tangent/host'
import type { Browser } from 'playwright-core'
import { type BenchRow, median, percentile } from './table.js'
import { type TranscriptFixture, writeTranscriptFixture } from './transcript-fixture.js'

const sizes = [100, 10_000, 50_000] as const
const opens = 3
const liveWrites = 300

interface Opened {
  /** Click → the frame that first finds the last message in the DOM. */
  paintMs: number
  longestTaskMs: number
  domElements: number
  jsHeapMb: number
  rendererRssMb: number | null
}

async function rpc(host: RunningHost, method: string, params: unknown): Promise<unknown> {
  const response = await host.request('/rpc', {
    method: 'POST',
    headers: { authorization: `Bearer ${host.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const body = (await response.json()) as { result?: unknown; error?: { message: string } }
  if (body.error) throw new Error(`${method}: ${body.error.message}`)
  return body.result
}

/** The largest resident set of a Chromium renderer started by this process (its pages), in MB. */
function rendererRssMb(): number | null {
  const parents = new Map<number, number>()
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8')
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]))
    } catch {
      // The process ended while we looked.
    }
  }
  const mine = (pid: number): boolean => {
    for (let at = parents.get(pid); at !== undefined && at > 1; at = parents.get(at))
      if (at === process.pid) return true
    return false
  }
  let largest: number | null = null
  for (const pid of parents.keys()) {
    try {
      if (!mine(pid) || !fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer')) continue
      const rss = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
      if (rss) largest = Math.max(largest ?? 0, Number(rss[1]) / 1024)
    } catch {
      // Gone meanwhile.
    }
  }
  return largest
}

/** Opens the app, clicks the session's row, and waits for its last message to be painted. */
async function openSession(browser: Browser, url: string, log: TranscriptFixture): Promise<Opened> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  try {
    const page = await context.newPage()
    page.setDefaultTimeout(120_000)
    await page.goto(url)
    const row = page.locator(
      `[data-testid="session-row"][data-session-id="${log.id}"] [data-testid="row-title"]`,
    )
    await row.waitFor()
    await page.evaluate(`(() => {
      const mark = ${JSON.stringify(log.lastText.trim())};
      const open = { start: performance.now(), paintedAt: null, tasks: [] };
      window.__open = open;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) open.tasks.push([entry.startTime, entry.duration]);
      }).observe({ type: 'longtask' });
      const look = (now) => {
        const found = [...document.querySelectorAll('[data-testid="assistant-message"]')].some((m) => m.textContent.includes(mark));
        if (found) open.paintedAt = now; else requestAnimationFrame(look);
      };
      open.start = performance.now();
      document.querySelector('[data-session-id="${log.id}"] [data-testid="row-title"]').click();
      requestAnimationFrame(look);
    })()`)
    await page.waitForFunction('window.__open.paintedAt !== null', undefined, { timeout: 120_000 })
    // Long tasks that began while opening (a task still running at the paint ends just after it).
    await page.waitForTimeout(300)
    const measured = (await page.evaluate(`({
      paintMs: window.__open.paintedAt - window.__open.start,
      longest: Math.max(0, ...window.__open.tasks
        .filter(([start]) => start >= window.__open.start - 1 && start <= window.__open.paintedAt)
        .map(([, duration]) => duration)),
      dom: document.getElementsByTagName('*').length,
      heap: performance.memory ? performance.memory.usedJSHeapSize : 0,
    })`)) as { paintMs: number; longest: number; dom: number; heap: number }
    return {
      paintMs: measured.paintMs,
      longestTaskMs: measured.longest,
      domElements: measured.dom,
      jsHeapMb: measured.heap / 2 ** 20,
      rendererRssMb: rendererRssMb(),
    }
  } finally {
    await context.close()
  }
}

interface Live {
  lagMs: number
  keyToPaintMs: number[]
  events: number
}

/**
 * Forks the 10k-event session, opens the fork, and runs a turn of 300 file writes in it while
 * typing in the composer. The lag: the Host's `turn/end` time to the frame that shows it ended.
 */
async function liveTurn(
  browser: Browser,
  host: RunningHost,
  url: string,
  base: TranscriptFixture,
): Promise<Live> {
  const { session: fork } = (await rpc(host, 'session.fork', { sessionId: base.id })) as {
    session: { id: string; eventCount: number }
  }
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
  try {
    const page = await context.newPage()
    page.setDefaultTimeout(120_000)
    // The fork sits folded under its parent in the tree: open it by its address.
    await page.goto(`${url}#session=${fork.id}`)
    await page.getByTestId('assistant-message').filter({ hasText: base.lastText.trim() }).waitFor()
    await page.evaluate(`(() => {
      const live = { endedAt: null, keys: [] };
      window.__live = live;
      const look = () => {
        const ended = [...document.querySelectorAll('[data-testid="turn"][data-running="false"]')]
          .some((turn) => Number(turn.dataset.startSeq) >= ${fork.eventCount});
        if (ended) live.endedAt = Date.now(); else requestAnimationFrame(look);
      };
      requestAnimationFrame(look);
      document.querySelector('[data-testid="composer-input"]').addEventListener('keydown', (event) => {
        const at = event.timeStamp;
        requestAnimationFrame((now) => live.keys.push(now - at));
      }, true);
    })()`)
    const prompt = Array.from(
      { length: liveWrites },
      (_, i) => `write live/${String(i).padStart(3, '0')}.txt: line ${i}`,
    ).join('\n')
    let done = false
    const turn = rpc(host, 'session.prompt', { sessionId: fork.id, text: prompt }).finally(() => {
      done = true
    })
    const input = page.getByTestId('composer-input')
    await input.focus()
    // Typing the whole time the turn streams (the text is never sent).
    while (!done) await input.pressSequentially('typing while it streams ', { delay: 40 })
    await turn
    await page.waitForFunction('window.__live.endedAt !== null', undefined, { timeout: 300_000 })
    const { events } = (await rpc(host, 'session.get', { sessionId: fork.id, last: 50 })) as {
      events: { type: string; time: number; seq: number }[]
    }
    const end = events.findLast((event) => event.type === 'turn/end')!
    const live = (await page.evaluate('window.__live')) as { endedAt: number; keys: number[] }
    return { lagMs: live.endedAt - end.time, keyToPaintMs: live.keys, events: end.seq + 1 - fork.eventCount }
  } finally {
    await context.close()
  }
}

/** Writes the sessions, starts a Host on them, and measures. */
export async function transcriptRows(browser: Browser, root: string, webRoot: string): Promise<BenchRow[]> {
  const home = path.join(root, 'home-transcripts')
  const workspace = path.join(root, 'project-transcripts')
  fs.mkdirSync(workspace, { recursive: true })
  const logs = sizes.map((events) =>
    writeTranscriptFixture(home, {
      id: `long${events}`,
      cwd: workspace,
      title: `${events} events`,
      events,
      ...(events >= 10_000 ? { toolRun: 150 } : {}),
    }),
  )
  const host = await startHost({
    home,
    port: 0,
    host: '127.0.0.1',
    webRoot,
    defaultModel: 'demo:scripted',
    env: {},
    defaultCwd: workspace,
    handleSignals: false,
    log: () => {},
  })
  try {
    await rpc(host, 'workspace.open', { path: workspace })
    const url = `${host.url}/?token=${host.token}`
    for (const log of logs) await openSession(browser, url, log) // warm-up: the Host loads each log once
    const results = new Map<number, Opened[]>(sizes.map((size) => [size, []]))
    // Interleaved, so a burst of load on the shared machine hits every size.
    for (let i = 0; i < opens; i++) {
      for (const [index, log] of logs.entries())
        results.get(sizes[index]!)!.push(await openSession(browser, url, log))
    }
    const base = median(results.get(100)!.map((open) => open.paintMs))
    const rows: BenchRow[] = []
    for (const size of sizes.slice(1)) {
      const runs = results.get(size)!
      const paint = median(runs.map((open) => open.paintMs))
      const longest = Math.max(...runs.map((open) => open.longestTaskMs))
      const rss = median(runs.flatMap((open) => (open.rendererRssMb === null ? [] : [open.rendererRssMb])))
      rows.push({
        name: `click → last message painted, ${size / 1000}k events (${opens} opens)`,
        medianMs: paint,
        baseline: { name: 'same, 100 events', medianMs: base },
        extra: {
          'longest long task': `${longest.toFixed(0)} ms (100: ${Math.max(...results.get(100)!.map((o) => o.longestTaskMs)).toFixed(0)} ms)`,
          'DOM elements': `${Math.max(...runs.map((open) => open.domElements))} (100: ${Math.max(...results.get(100)!.map((o) => o.domElements))})`,
          'renderer memory': `${Number.isNaN(rss) ? '?' : `${rss.toFixed(0)} MB RSS`}, JS heap ${median(runs.map((o) => o.jsHeapMb)).toFixed(0)} MB`,
        },
        target: {
          text: '≤ 2× of 100 events, longest task ≤ 250 ms',
          met: paint <= 2 * base && longest <= 250,
        },
      })
    }
    const live = await liveTurn(browser, host, url, logs[1]!)
    rows.push({
      name: `live-turn lag at the end of a ${liveWrites}-tool turn (${live.events} events) in a fork of a 10k-event session`,
      medianMs: live.lagMs,
      extra: { 'DOM elements': '', 'longest long task': '', 'renderer memory': '' },
      target: { text: '≤ 1 s', met: live.lagMs <= 1_000 },
    })
    const p95 = percentile(live.keyToPaintMs, 95)
    rows.push({
      name: `keypress → paint in the composer while that turn streams (${live.keyToPaintMs.length} keys, median)`,
      medianMs: median(live.keyToPaintMs),
      extra: {
        'longest long task': `p95 ${p95.toFixed(1)} ms, max ${Math.max(...live.keyToPaintMs).toFixed(0)} ms`,
      },
      target: { text: 'p95 ≤ 100 ms', met: p95 <= 100 },
    })
    return rows
  } finally {
    await host.close()
  }
}
