// A running turn in real Chromium (the demo model slowed by TANGENT_DEMO_DELAY_MS): actions
// inside it are disabled and say why, Esc stops it, and the aborted end is shown.
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  axeViolations,
  chat,
  chromiumPath,
  eventually,
  failWithoutChromiumInCi,
  launchBrowser,
  newPage,
  newSession,
  openApp,
  openWorkspace,
  row,
  screenshot,
  startTestHost,
  type TestHost,
} from './web-harness.js'

failWithoutChromiumInCi()

const slowPrompt =
  'a slow answer: the demo model quotes this whole message back four characters at a time, ' +
  'so a message this long keeps the turn running while the test looks at the page and then stops it'

describe.skipIf(!chromiumPath)('web UI: a running turn', () => {
  let host: TestHost
  let browser: Browser
  let page: Page

  beforeAll(async () => {
    host = await startTestHost({ TANGENT_DEMO_DELAY_MS: '250' })
    browser = await launchBrowser()
    ;({ page } = await newPage(browser, { width: 1100, height: 760 }))
  })
  afterAll(async () => {
    await browser?.close()
    await host?.close()
  })

  it('disables actions inside the running turn with the reason, and Esc stops it', async () => {
    await openApp(page, host.url)
    await openWorkspace(page, host.workspace)
    const id = await newSession(page)
    await chat(page, 'one')

    const input = page.getByTestId('composer-input')
    // ~200 characters at 4 a delta and 250 ms a delta: over 10 s of streaming, far longer
    // than the checks below take even on a loaded machine; Esc ends it early.
    await input.fill(slowPrompt)
    await input.press('Enter')
    const running = page.locator('[data-testid="turn"][data-running="true"]')
    await running.waitFor()
    await eventually(() => row(page, id).getAttribute('data-status')).toBe('running')
    await page.getByTestId('stop').waitFor()

    const branch = running.getByTestId('branch-from-here')
    expect(await branch.isDisabled()).toBe(true)
    expect(await branch.getAttribute('title')).toMatch(/still running/)
    const edit = running.getByTestId('edit-in-branch')
    expect(await edit.isDisabled()).toBe(true)
    expect(await edit.getAttribute('title')).toMatch(/still running/)
    // The finished turn before it stays available.
    expect(await page.getByTestId('turn').first().getByTestId('branch-from-here').isEnabled()).toBe(true)

    // Streaming text shows up before the turn ends.
    await page.getByTestId('streaming').waitFor()
    expect(await axeViolations(page)).toEqual([])
    expect(await running.count()).toBe(1)

    await input.press('Escape')
    const end = page.getByTestId('turn-end-reason')
    await end.waitFor()
    expect(await end.getAttribute('data-reason')).toBe('aborted')
    // The stopped call reported no usage: its cost is unknown, never "$0".
    await eventually(() => page.getByTestId('turn').last().getByTestId('turn-usage').textContent()).toMatch(
      /cost unknown$/,
    )
    await eventually(() => row(page, id).getAttribute('data-status')).toBe('idle')
    expect(await page.getByTestId('turn').last().getByTestId('branch-from-here').isEnabled()).toBe(true)
  })

  it('warns when another session runs in the same folder at the same time', async () => {
    await openApp(page, host.url)
    const first = await newSession(page)
    const input = page.getByTestId('composer-input')
    await input.fill(`first session: ${slowPrompt}`)
    await input.press('Enter')
    await eventually(() => row(page, first).getAttribute('data-status')).toBe('running')
    await screenshot(page, 'running-turn')

    const second = await newSession(page)
    await input.fill(`second session: ${slowPrompt}`)
    await input.press('Enter')
    const banner = page.getByTestId('shared-activity')
    await banner.waitFor()
    const firstTitle = await row(page, first).getByTestId('row-title').locator('.title-text').textContent()
    expect(await banner.textContent()).toContain(firstTitle!)
    await screenshot(page, 'shared-activity')
    expect(await axeViolations(page)).toEqual([])
    // Once the other session stops, the warning goes.
    await row(page, first).getByTestId('row-title').click()
    await input.press('Escape')
    await row(page, second).getByTestId('row-title').click()
    await input.press('Escape')
    await eventually(() => banner.count()).toBe(0)
  })

  it('queues one message while a turn runs: shown as queued, editable and cancellable, sent when the turn ends', async () => {
    await openApp(page, host.url)
    await openWorkspace(page, host.workspace)
    await newSession(page)
    await chat(page, 'one')
    const input = page.getByTestId('composer-input')
    // ~120 characters at 4 a delta and 250 ms a delta: some 7 s of streaming.
    await input.fill(
      'a medium answer: the demo model quotes this back four characters at a time, long enough to queue',
    )
    await input.press('Enter')
    await page.locator('[data-testid="turn"][data-running="true"]').waitFor()
    await page.getByTestId('stop').waitFor()

    // Enter queues instead of refusing; the box empties and the message shows as queued.
    const queued = page.getByTestId('queued-message')
    await input.fill('cancel me')
    await input.press('Enter')
    await eventually(() => page.getByTestId('queued-text').textContent()).toBe('cancel me')
    expect(await input.inputValue()).toBe('')
    // Cancel takes it away, focus back in the box.
    await queued.getByTestId('queued-cancel').focus()
    await page.keyboard.press('Enter')
    await eventually(() => queued.count()).toBe(0)
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe(
      'composer-input',
    )

    // One at a time: a second message stays in the box while one is queued.
    await input.fill('draft')
    await input.press('Enter')
    await queued.waitFor()
    await input.fill('second')
    await input.press('Enter')
    expect(await input.inputValue()).toBe('second')
    expect(await page.getByTestId('queue').isDisabled()).toBe(true)
    expect(await axeViolations(page)).toEqual([])
    // Edit puts it back in the box, before what the box holds.
    await queued.getByTestId('queued-edit').focus()
    await page.keyboard.press('Enter')
    await eventually(() => input.inputValue()).toBe('draft\n\nsecond')
    expect(await queued.count()).toBe(0)
    await input.fill('the queued message')
    await input.press('Enter')
    await eventually(() => page.getByTestId('queued-text').textContent()).toBe('the queued message')

    // The turn ends: the queued message is sent as the next turn, and is no longer shown queued.
    await eventually(() => page.getByTestId('user-message').count()).toBe(3)
    expect(await page.getByTestId('user-message').last().textContent()).toContain('the queued message')
    expect(await queued.count()).toBe(0)
    await expect
      .poll(() => page.locator('[data-testid="turn"][data-running="false"]').count(), { timeout: 30_000 })
      .toBe(3)
  }, 90_000)
})
