// File state in the web UI, in real Chromium: file-mode badges, Shared/Worktree forks,
// changed files under a turn, "Restore files to here" (and its conflict list), compare.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  chat,
  chromiumPath,
  eventually,
  failWithoutChromiumInCi,
  newSession,
  openSessionId,
  row,
  rowMenu,
  screenshot,
  useAppPage,
} from './web-harness.js'

failWithoutChromiumInCi()

describe.skipIf(!chromiumPath)('web UI: files', () => {
  const app = useAppPage()

  it('lists the files a turn changed and restores them to an earlier turn, naming conflicts first', async () => {
    await newSession(app.page)
    const file = path.join(app.host.workspace, 'restore-me.txt')
    await chat(app.page, 'write restore-me.txt: version one')
    await chat(app.page, 'write restore-me.txt: version two')
    const first = app.page.getByTestId('turn').first()
    // The session's baseline snapshot comes first, so a turn lists only what it changed.
    await eventually(() => first.getByTestId('changed-file').allTextContents()).toEqual(['restore-me.txt'])
    expect(await app.page.getByTestId('turn').nth(1).getByTestId('changed-file').allTextContents()).toEqual([
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
    const conflict = app.page.getByTestId('restore-conflict')
    await conflict.waitFor()
    expect(await app.page.getByTestId('conflict-paths').textContent()).toContain('restore-me.txt')
    expect(fs.readFileSync(file, 'utf8')).toBe('edited by hand\n')
    await screenshot(app.page, 'restore-conflict')
    await app.page.getByTestId('restore-force').click()
    await eventually(() => fs.readFileSync(file, 'utf8')).toBe('version one\n')
    await app.page.getByTestId('notice').filter({ hasText: 'Restored' }).waitFor()
  })

  it('forks with Worktree from the dialog, badges both modes, and compares the branches', async () => {
    const parent = await newSession(app.page)
    await chat(app.page, 'write shared.txt: base')
    await eventually(() => app.page.getByTestId('file-badge').getAttribute('data-mode')).toBe('shared')

    await rowMenu(app.page, parent, 'menu-fork')
    await app.page.getByTestId('fork-files-worktree').check()
    await app.page.getByTestId('fork-confirm').click()
    await eventually(() => openSessionId(app.page)).not.toBe(parent)
    const child = (await openSessionId(app.page))!
    const badge = app.page.getByTestId('file-badge')
    await eventually(() => badge.getAttribute('data-mode')).toBe('worktree')
    expect(await badge.textContent()).toMatch(/^worktree: /)
    await row(app.page, child).getByTestId('row-file-badge').waitFor()

    await chat(app.page, 'write shared.txt: changed in the worktree')
    expect(fs.readFileSync(path.join(app.host.workspace, 'shared.txt'), 'utf8')).toBe('base\n')

    await rowMenu(app.page, child, 'menu-compare-parent')
    const view = app.page.getByTestId('compare-view')
    await view.waitFor()
    await eventually(() => app.page.getByTestId('compare-file').count()).toBeGreaterThan(0)
    expect(await app.page.getByTestId('compare-b').getByTestId('compare-turn').count()).toBe(1)
    expect(await app.page.getByTestId('compare-files').textContent()).toContain('shared.txt')
    await screenshot(app.page, 'compare')
    await app.page.getByTestId('compare-close').click()
    await app.page.getByTestId('transcript').waitFor()

    // Deleting the worktree session never removes uncommitted work silently: it stays, and says so.
    await rowMenu(app.page, child, 'menu-delete')
    await app.page.getByTestId('delete-worktree').waitFor()
    await app.page.getByTestId('confirm-delete').click()
    await eventually(() => row(app.page, child).count()).toBe(0)
    const notice = app.page.getByTestId('notice').filter({ hasText: 'worktree' })
    await notice.waitFor()
    expect(await notice.textContent()).toMatch(/Kept its worktree/)
  })

  it('says which sessions share a folder', async () => {
    const first = await newSession(app.page)
    await chat(app.page, 'one')
    await app.page.getByTestId('turn').last().getByTestId('branch-from-here').click()
    await eventually(() => openSessionId(app.page)).not.toBe(first)
    await eventually(() => app.page.getByTestId('file-badge').textContent()).toMatch(/^shares files with/)
  })
})
