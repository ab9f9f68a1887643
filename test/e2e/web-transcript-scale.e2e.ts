// The transcript at the size of real agent work (issue 17), in real Chromium against a real
// Host: a 50,000-event session (written in the on-disk format) opens tail first with a bounded
// DOM, keeps the reader's place when older rows load above, jumps to a seq far back, and shows
// a 150-call turn as one run until it is opened.
import fs from 'node:fs'
import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TranscriptFixture, writeTranscriptFixture } from '../../bench/transcript-fixture.js'
import {
  chromiumPath,
  eventually,
  failWithoutChromiumInCi,
  launchBrowser,
  newPage,
  openApp,
  openWorkspace,
  row,
  screenshot,
  startTestHost,
  type TestHost,
} from './web-harness.js'

failWithoutChromiumInCi()

const eventCount = 50_000
const maxDomElements = 3_000

describe.skipIf(!chromiumPath)('web UI: a 50,000-event transcript', () => {
  let host: TestHost
  let browser: Browser
  let page: Page
  let log: TranscriptFixture
  /** Older-page requests (`session.get` with `beforeSeq`) wait here while `holding`. */
  const held: (() => void)[] = []
  let holding = false

  beforeAll(async () => {
    host = await startTestHost()
    host = await host.restart(() => {
      log = writeTranscriptFixture(host.home, {
        id: 'long50k',
        cwd: host.workspace,
        title: 'A long agent run',
        events: eventCount,
        toolRun: 150,
        // Near the end, a few pages back: the jump to it stays small through the test's proxy.
        toolRunAt: 0.95,
      })
    })
    browser = await launchBrowser()
    ;({ page } = await newPage(browser))
    // The page's own socket, passed through; an older page's request can be held back, so the
    // test sees the screen before and after it lands (no race with the Host's answer).
    await page.routeWebSocket(/\/rpc/, (socket) => {
      const server = socket.connectToServer()
      socket.onMessage((message) => {
        if (holding && String(message).includes('"beforeSeq"')) held.push(() => server.send(message))
        else server.send(message)
      })
    })
  }, 180_000)
  afterAll(async () => {
    await browser?.close()
    await host?.close()
  })

  it('opens tail first with the end of the log on screen and at most 3,000 DOM elements', async () => {
    expect(log.eventCount).toBeGreaterThanOrEqual(eventCount)
    await openApp(page, host.url)
    await openWorkspace(page, host.workspace)
    await row(page, log.id).getByTestId('row-title').click()
    const transcript = page.getByTestId('transcript')
    await page.locator('[data-testid="transcript"][data-loading="false"]').waitFor({ timeout: 60_000 })
    await page.getByTestId('assistant-message').filter({ hasText: log.lastText.trim() }).waitFor()
    expect(Number(await transcript.getAttribute('data-first-seq'))).toBeGreaterThan(0)
    const elements = await page.evaluate(() => document.getElementsByTagName('*').length)
    expect(elements).toBeLessThanOrEqual(maxDomElements)
    await screenshot(page, 'transcript-50k')
  }, 120_000)

  it('keeps the reader’s place when older rows load above', async () => {
    const transcript = page.getByTestId('transcript')
    const firstSeq = Number(await transcript.getAttribute('data-first-seq'))
    holding = true
    await transcript.evaluate((element) => {
      element.scrollTop = 0
    })
    await eventually(() => held.length).toBe(1)
    // The turn at the top of the screen, and where it is, while the older page is on its way.
    const before = await topTurn(page)
    holding = false
    for (const send of held.splice(0)) send()
    await eventually(async () => Number(await transcript.getAttribute('data-first-seq'))).toBeLessThan(
      firstSeq,
    )
    await eventually(async () => {
      const turn = page.locator(`[data-testid="turn"][data-start-seq="${before.seq}"]`)
      const box = await turn.evaluate((element) => element.getBoundingClientRect().top)
      return Math.round(box - before.top)
    }).toBe(0)
    // Rows were added above it, not instead of it.
    expect(await page.locator(`[data-testid="turn"][data-start-seq="${before.seq}"]`).count()).toBe(1)
    expect(await page.evaluate(() => document.getElementsByTagName('*').length)).toBeLessThanOrEqual(
      maxDomElements,
    )
  }, 120_000)

  it('jumps to a seq before the loaded window (a link): the event is on screen, marked', async () => {
    const file = fs.readFileSync(path.join(host.home, 'sessions', `${log.id}.jsonl`), 'utf8').split('\n')
    // A tool result two pages before the loaded window (this test's socket passes through
    // Playwright, which is slow with megabytes, so the jump stays within a few thousand events).
    const firstSeq = Number(await page.getByTestId('transcript').getAttribute('data-first-seq'))
    const result = file
      .slice(1)
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { seq: number; type: string; data: { callId?: string } })
      .find((event) => event.type === 'tool/result' && event.seq > firstSeq - 3_000)!
    expect(result.seq).toBeLessThan(firstSeq - 1_000)
    await page.evaluate((hash) => {
      window.location.hash = hash
    }, `#session=${log.id}&seq=${result.seq}`)
    const target = page.locator(`[data-jump-target="${result.seq}"]`)
    await target.waitFor()
    expect(await target.getAttribute('data-call-id')).toBe(result.data.callId)
    await eventually(() => inView(page, `[data-jump-target="${result.seq}"]`)).toBe(true)
  }, 120_000)

  it('shows a 150-call turn as one run until it is opened; its failed call shows anyway', async () => {
    const turnSeq = log.toolRunTurnSeq!
    await page.evaluate((hash) => {
      window.location.hash = hash
    }, `#session=${log.id}&seq=${turnSeq}`)
    const turn = page.locator(`[data-testid="turn"][data-start-seq="${turnSeq}"]`)
    await turn.waitFor()
    await eventually(() => inView(page, `[data-testid="turn"][data-start-seq="${turnSeq}"]`)).toBe(true)
    const run = turn.getByTestId('tool-run')
    expect(await run.count()).toBe(1)
    expect(await run.getByTestId('tool-run-summary').textContent()).toBe(
      '150 files written · 3 commands · 1 error',
    )
    const toggle = run.getByTestId('tool-run-toggle')
    expect(await toggle.getAttribute('aria-expanded')).toBe('false')
    // Closed: only the failed call is a row of its own.
    const calls = turn.getByTestId('tool-call')
    expect(await calls.count()).toBe(1)
    expect(await calls.getAttribute('class')).toContain('tool-error')
    await screenshot(page, 'tool-run')
    await toggle.click()
    expect(await toggle.getAttribute('aria-expanded')).toBe('true')
    await eventually(() => calls.count()).toBe(153)
    await toggle.click()
    await eventually(() => calls.count()).toBe(1)
  }, 120_000)
})

/** The first turn whose top is inside the transcript's viewport, and its top on screen. */
async function topTurn(page: Page): Promise<{ seq: number; top: number }> {
  return page.evaluate(() => {
    const scroller = document.querySelector('[data-testid="transcript"]')!.getBoundingClientRect()
    for (const turn of document.querySelectorAll<HTMLElement>('[data-testid="turn"]')) {
      const top = turn.getBoundingClientRect().top
      if (top >= scroller.top && top < scroller.bottom) return { seq: Number(turn.dataset.startSeq), top }
    }
    throw new Error('No turn starts on screen')
  })
}

/** Whether the element's box overlaps the transcript's viewport. */
async function inView(page: Page, selector: string): Promise<boolean> {
  return page.evaluate((css) => {
    const element = document.querySelector(css)
    if (!element) return false
    const box = element.getBoundingClientRect()
    const view = document.querySelector('[data-testid="transcript"]')!.getBoundingClientRect()
    return box.bottom > view.top && box.top < view.bottom
  }, selector)
}
