// File state in the web UI, in real Chromium: file-mode badges, Shared/Worktree forks,
// changed files under a turn, "Restore files to here" (and its conflict list), compare.
import fs from 'node:fs'
import path from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  chat,
  chromiumPath,
  eventually,
  launchBrowser,
  mustRunBrowser,
  newPage,
  newSession,
  openApp,
  openSessionId,
  openWorkspace,
  row,
  rowMenu,
  screenshot,
  startTestHost,
  type TestHost,
} from './web-harness.js'

if (!chromiumPath && mustRunBrowser) {
  it('needs chromium (CI=true)', () => {
    throw new Error('Chromium is missing and CI=true: install it (apt-get install chromium).')
  })
}

describe.skipIf(!chromiumPath)('web UI: files', () => {
  let host: TestHost
  let browser: Browser
  let context: BrowserContext
  let page: Page

  beforeAll(async () => {
    host = await startTestHost()
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
    await host?.close()
  })
  beforeEach(async () => {
    await context?.close()
    ;({ context, page } = await newPage(browser))
    await openApp(page, host.url)
    await openWorkspace(page, host.workspace)
  })

  it('lists the files a turn changed and restores them to an earlier turn, naming conflicts first', async () => {
    await newSession(page)
    const file = path.join(host.workspace, 'restore-me.txt')
    await chat(page, 'write restore-me.txt: version one')
    await chat(page, 'write restore-me.txt: version two')
    const first = page.getByTestId('turn').first()
    // The folder's first snapshot may list files that were there before (README.md) too.
    await eventually(() => first.getByTestId('changed-file').allTextContents()).toContain('restore-me.txt')
    expect(await page.getByTestId('turn').nth(1).getByTestId('changed-file').allTextContents()).toEqual([
      'restore-me.txt',
    ])
    expect(fs.readFileSync(file, 'utf8')).toBe('version two\n')
    // Tool calls are collapsed to one line and open to show input and result.
    const tool = first.getByTestId('tool-call').first()
    expect(await tool.getAttribute('data-tool')).toBe('write')
    expect(await tool.getByTestId('tool-result').isVisible()).toBe(false)
    await tool.locator('summary').click()
    expect(await tool.getByTestId('tool-result').textContent()).toContain('restore-me.txt')

    // Someone else edits the file: the restore refuses and names it.
    fs.writeFileSync(file, 'edited by hand\n')
    await first.getByTestId('restore-files').click()
    const conflict = page.getByTestId('restore-conflict')
    await conflict.waitFor()
    expect(await page.getByTestId('conflict-paths').textContent()).toContain('restore-me.txt')
    expect(fs.readFileSync(file, 'utf8')).toBe('edited by hand\n')
    await screenshot(page, 'restore-conflict')
    await page.getByTestId('restore-force').click()
    await eventually(() => fs.readFileSync(file, 'utf8')).toBe('version one\n')
    await page.getByTestId('notice').filter({ hasText: 'Restored' }).waitFor()
  })

  it('forks with Worktree from the dialog, badges both modes, and compares the branches', async () => {
    const parent = await newSession(page)
    await chat(page, 'write shared.txt: base')
    await eventually(() => page.getByTestId('file-badge').getAttribute('data-mode')).toBe('shared')

    await rowMenu(page, parent, 'menu-fork')
    await page.getByTestId('fork-files-worktree').check()
    await page.getByTestId('fork-confirm').click()
    await eventually(() => openSessionId(page)).not.toBe(parent)
    const child = (await openSessionId(page))!
    const badge = page.getByTestId('file-badge')
    await eventually(() => badge.getAttribute('data-mode')).toBe('worktree')
    expect(await badge.textContent()).toMatch(/^worktree: /)
    await row(page, child).getByTestId('row-file-badge').waitFor()

    await chat(page, 'write shared.txt: changed in the worktree')
    expect(fs.readFileSync(path.join(host.workspace, 'shared.txt'), 'utf8')).toBe('base\n')

    await rowMenu(page, child, 'menu-compare-parent')
    const view = page.getByTestId('compare-view')
    await view.waitFor()
    await eventually(() => page.getByTestId('compare-file').count()).toBeGreaterThan(0)
    expect(await page.getByTestId('compare-b').getByTestId('compare-turn').count()).toBe(1)
    expect(await page.getByTestId('compare-files').textContent()).toContain('shared.txt')
    await screenshot(page, 'compare')
    await page.getByTestId('compare-close').click()
    await page.getByTestId('transcript').waitFor()

    // Deleting the worktree session never removes uncommitted work silently: it stays, and says so.
    await rowMenu(page, child, 'menu-delete')
    await page.getByTestId('delete-worktree').waitFor()
    await page.getByTestId('confirm-delete').click()
    await eventually(() => row(page, child).count()).toBe(0)
    const notice = page.getByTestId('notice').filter({ hasText: 'worktree' })
    await notice.waitFor()
    expect(await notice.textContent()).toMatch(/Kept its worktree/)
  })

  it('says which sessions share a folder', async () => {
    const first = await newSession(page)
    await chat(page, 'one')
    await page.getByTestId('turn').last().getByTestId('branch-from-here').click()
    await eventually(() => openSessionId(page)).not.toBe(first)
    await eventually(() => page.getByTestId('file-badge').textContent()).toMatch(/^shares files with/)
  })
})
