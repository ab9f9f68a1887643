// Notices belong to their session (issue 28), in real Chromium against a real Host: a notice
// raised in one session is not shown in another, one without an action goes by itself, a
// restore's notice offers Undo and stays until answered, and an error leads with what happened
// and what to do, its code after.
import fs from 'node:fs'
import path from 'node:path'
import type { Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import {
  axeViolations,
  chat,
  chromiumPath,
  eventually,
  failWithoutChromiumInCi,
  newSession,
  row,
  useAppPage,
} from './web-harness.js'

failWithoutChromiumInCi()

/** Longer than a notice's life (6 s, an error's 10 s), on a busy machine. */
const gone = { timeout: 25_000, interval: 100 }

/**
 * The page's clock moves on by `ms` at once (Playwright's fake timers, installed at the test's
 * start, otherwise run at the real pace): a notice's life passes without the test waiting it out.
 */
const passes = (page: Page, ms: number) => page.clock.fastForward(ms)

describe.skipIf(!chromiumPath)('web UI: notices', () => {
  const app = useAppPage()

  it('shows a notice only in the session it was raised in, and lets it go by itself', async () => {
    const { page } = app
    await page.clock.install()
    const first = await newSession(page)
    await chat(page, 'hello')
    await page.getByTestId('header-compact').click()
    const compacted = page.locator('[data-testid="notice"][data-code="compacted"]')
    await compacted.waitFor()
    expect(await compacted.getAttribute('data-session-id')).toBe(first)
    // Another session: the notice stays with its own.
    await newSession(page)
    expect(await compacted.count()).toBe(0)
    await row(page, first).getByTestId('row-title').click()
    await eventually(() => page.getByTestId('transcript').getAttribute('data-session-id')).toBe(first)
    // It has no action: it goes by itself.
    await passes(page, 6_500)
    await expect.poll(() => compacted.count(), gone).toBe(0)
  }, 60_000)

  it('keeps a restore notice with Undo until it is answered; Undo undoes the restore', async () => {
    const { page, host } = app
    await page.clock.install()
    await newSession(page)
    const file = path.join(host.workspace, 'undo-me.txt')
    await chat(page, 'write undo-me.txt: one')
    await chat(page, 'write undo-me.txt: two')
    await eventually(() => page.getByTestId('turn').first().getByTestId('changed-file').count()).toBe(1)
    await page.getByTestId('turn').first().getByTestId('restore-files').click()
    await eventually(() => fs.readFileSync(file, 'utf8')).toBe('one\n')
    const restored = page.locator('[data-testid="notice"][data-code="restored"]')
    await restored.waitFor()
    expect(await axeViolations(page)).toEqual([])
    // Still there after an ordinary notice's life.
    await page.mouse.move(0, 0)
    await passes(page, 7_000)
    expect(await restored.count()).toBe(1)
    await restored.getByTestId('notice-action').click()
    await eventually(() => fs.readFileSync(file, 'utf8')).toBe('two\n')
    await expect.poll(() => restored.count(), gone).toBe(0)
  }, 60_000)

  it('leads an error with what happened and what to do, the code after, and lets it go by itself', async () => {
    const { page } = app
    await page.clock.install()
    await page.getByTestId('workspace-path').fill('/definitely/not/a/folder')
    await page.getByTestId('workspace-open').click()
    const banner = page.locator('[data-testid="error-banner"][data-code="folder-not-found"]')
    await banner.waitFor()
    const text = (await banner.locator('.banner-text').textContent()) ?? ''
    expect(text).toMatch(
      /^\S.*\/definitely\/not\/a\/folder.*Check the path, or pick the folder with Browse…\. folder-not-found$/,
    )
    await page.mouse.move(0, 0)
    await passes(page, 10_500)
    await expect.poll(() => banner.count(), gone).toBe(0)
  }, 60_000)
})
