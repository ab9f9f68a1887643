// File state in the web UI, in real Chromium: file-mode badges, Shared/Worktree forks,
// changed files under a turn, "Restore files to here" (and its conflict list), compare.
import { execFileSync } from 'node:child_process'
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
  focusedTestId,
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
    expect(await axeViolations(app.page)).toEqual([])

    // Someone else edits the file: the restore refuses and names it. All by keyboard.
    fs.writeFileSync(file, 'edited by hand\n')
    const restoreButton = first.getByTestId('restore-files')
    await restoreButton.focus()
    await app.page.keyboard.press('Enter')
    const conflict = app.page.getByTestId('restore-conflict')
    await conflict.waitFor()
    expect(await app.page.getByTestId('conflict-paths').textContent()).toContain('restore-me.txt')
    expect(fs.readFileSync(file, 'utf8')).toBe('edited by hand\n')
    await screenshot(app.page, 'restore-conflict')
    expect(await axeViolations(app.page)).toEqual([])
    // Focus starts on Cancel (the safe choice); Esc closes the dialog and returns to the button.
    expect(await focusedText(app.page)).toBe('Cancel')
    await app.page.keyboard.press('Escape')
    await conflict.waitFor({ state: 'detached' })
    expect(await restoreButton.evaluate((element) => element === document.activeElement)).toBe(true)
    expect(fs.readFileSync(file, 'utf8')).toBe('edited by hand\n')
    // Again, and Tab to "Restore anyway".
    await app.page.keyboard.press('Enter')
    await conflict.waitFor()
    await app.page.keyboard.press('Tab')
    expect(await focusedText(app.page)).toBe('Restore anyway')
    await app.page.keyboard.press('Enter')
    await eventually(() => fs.readFileSync(file, 'utf8')).toBe('version one\n')
    await app.page.getByTestId('notice').filter({ hasText: 'Restored' }).waitFor()
    await app.page.getByTestId('restore-row').waitFor()
    expect(await axeViolations(app.page)).toEqual([])
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

    // Compare by keyboard: the row menu's "Compare with parent" moves focus into the comparison.
    await row(app.page, child).focus()
    await app.page.keyboard.press('Shift+F10')
    await app.page.getByTestId('row-menu').waitFor()
    for (let step = 0; step < 6 && (await focusedTestId(app.page)) !== 'menu-compare-parent'; step++) {
      await app.page.keyboard.press('ArrowDown')
    }
    expect(await focusedTestId(app.page)).toBe('menu-compare-parent')
    await app.page.keyboard.press('Enter')
    const view = app.page.getByTestId('compare-view')
    await view.waitFor()
    await eventually(() => focusedTestId(app.page)).toBe('compare-heading')
    await eventually(() => app.page.getByTestId('compare-file').count()).toBeGreaterThan(0)
    expect(await app.page.getByTestId('compare-b').getByTestId('compare-turn').count()).toBe(1)
    expect(await app.page.getByTestId('compare-files').textContent()).toContain('shared.txt')
    await screenshot(app.page, 'compare')
    expect(await axeViolations(app.page)).toEqual([])
    // Tab reaches Close, and Esc closes it as it closes a dialog; closing goes back to the
    // conversation, focus in its message box.
    await app.page.keyboard.press('Tab')
    expect(await focusedTestId(app.page)).toBe('compare-close')
    await app.page.keyboard.press('Escape')
    await app.page.getByTestId('transcript').waitFor()
    await eventually(() => focusedTestId(app.page)).toBe('composer-input')

    // Deleting the worktree session never loses uncommitted work silently: refused, nothing deleted,
    // the dialog names the files; removing it anyway is a choice made there.
    await rowMenu(app.page, child, 'menu-delete')
    await app.page.getByTestId('delete-worktree').waitFor()
    await app.page.getByTestId('confirm-delete').click()
    const dirty = app.page.getByTestId('delete-dirty')
    await dirty.waitFor()
    expect(await dirty.textContent()).toMatch(/Not deleted: .*uncommitted change/)
    expect(await row(app.page, child).count()).toBe(1)
    expect(await axeViolations(app.page)).toEqual([])
    await app.page.getByTestId('delete-worktree-force').check()
    await app.page.getByTestId('confirm-delete').click()
    await eventually(() => row(app.page, child).count()).toBe(0)
    const notice = app.page.getByTestId('notice').filter({ hasText: 'worktree' })
    await notice.waitFor()
    expect(await notice.textContent()).toMatch(/Removed its worktree/)
  })

  it('says before branching whether the branch shares the folder, one key switches it, and the fork matches', async () => {
    const parent = await newSession(app.page)
    await chat(app.page, 'write approach-a.txt: approach A')
    const turn = app.page.getByTestId('turn').last()
    await eventually(() => turn.getByTestId('changed-file').allTextContents()).toEqual(['approach-a.txt'])

    // By keyboard: Enter on "Branch from here…" opens the choice, nothing is forked yet. The
    // session changed files, so its own worktree comes first, focused and named on the button.
    await turn.getByTestId('branch-from-here').focus()
    await app.page.keyboard.press('Enter')
    await app.page.getByTestId('fork-dialog').waitFor()
    expect(await app.page.getByTestId('fork-files-worktree').isChecked()).toBe(true)
    expect(await focusedTestId(app.page)).toBe('fork-files-worktree')
    expect(await app.page.getByTestId('fork-files-why').textContent()).toMatch(/changed files/)
    expect(await app.page.getByTestId('fork-confirm').textContent()).toBe('Fork with its own worktree')
    expect(await openSessionId(app.page)).toBe(parent)
    await screenshot(app.page, 'fork-files-choice')
    expect(await axeViolations(app.page)).toEqual([])

    // One key switches to the shared folder, and the button says so; Enter forks as chosen.
    await app.page.keyboard.press('ArrowUp')
    expect(await app.page.getByTestId('fork-files-shared').isChecked()).toBe(true)
    expect(await app.page.getByTestId('fork-confirm').textContent()).toBe('Fork sharing the folder')
    await app.page.keyboard.press('Enter')
    await eventually(() => openSessionId(app.page)).not.toBe(parent)
    await eventually(() => app.page.getByTestId('file-badge').getAttribute('data-mode')).toBe('shared')

    // Back on the parent, the default (its own worktree) is one Enter away, and that is what is made.
    await row(app.page, parent).getByTestId('row-title').click()
    await eventually(() => openSessionId(app.page)).toBe(parent)
    await app.page.getByTestId('turn').last().getByTestId('branch-from-here').click()
    await eventually(() => focusedTestId(app.page)).toBe('fork-files-worktree')
    await app.page.keyboard.press('Enter')
    await eventually(() => openSessionId(app.page)).not.toBe(parent)
    await eventually(() => app.page.getByTestId('file-badge').getAttribute('data-mode')).toBe('worktree')
  })

  it('after a Worktree fork, says which files it left out, in a notice the live region reads', async () => {
    const parent = await newSession(app.page)
    await chat(app.page, 'write kept.txt: in the fork')
    // A FIFO: git never lists one, so no snapshot holds it and the worktree cannot have it.
    const fifo = path.join(app.host.workspace, 'left-out.fifo')
    execFileSync('mkfifo', [fifo])
    try {
      await rowMenu(app.page, parent, 'menu-fork')
      await app.page.getByTestId('fork-files-worktree').check()
      await app.page.getByTestId('fork-confirm').click()
      await eventually(() => openSessionId(app.page)).not.toBe(parent)
      const notice = app.page.locator('[data-testid="notice"][data-code="files-left-out"]')
      await notice.waitFor()
      expect(await notice.textContent()).toMatch(/Not in the fork's worktree .*: left-out\.fifo\./)
      await eventually(() => app.page.getByTestId('live-region').textContent()).toContain('left-out.fifo')
      expect(await axeViolations(app.page)).toEqual([])
    } finally {
      fs.rmSync(fifo, { force: true })
    }
  })

  it('says which sessions share a folder', async () => {
    const first = await newSession(app.page)
    await chat(app.page, 'one')
    await app.page.getByTestId('turn').last().getByTestId('branch-from-here').click()
    // Nothing changed files: the shared folder comes first.
    expect(await app.page.getByTestId('fork-files-shared').isChecked()).toBe(true)
    await app.page.getByTestId('fork-confirm').click()
    await eventually(() => openSessionId(app.page)).not.toBe(first)
    await eventually(() => app.page.getByTestId('file-badge').textContent()).toMatch(/^shares files with/)
    expect(await axeViolations(app.page)).toEqual([])
  })
})

function focusedText(page: Page): Promise<string | null> {
  return page.evaluate(() => document.activeElement?.textContent ?? null)
}
