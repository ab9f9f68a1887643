// "Try N ways" in the web UI, in real Chromium (docs/architecture.md §8): from a completed turn,
// three branches with their own prompts and a check, the board filling in live, one branch's
// check failing, and keeping another by keyboard — its files in the parent, the keep and its
// summary in the parent's transcript, the other two archived with their worktrees gone.
import fs from 'node:fs'
import path from 'node:path'
import type { SessionSummary } from '@tangent/protocol'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  axeViolations,
  chat,
  chromiumPath,
  eventually,
  failWithoutChromiumInCi,
  focusedTestId,
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

/** One JSON-RPC call over the Host's HTTP endpoint, with the page's token. */
async function rpc<T>(host: TestHost, method: string, params: unknown): Promise<T> {
  const url = new URL(host.url)
  const response = await fetch(new URL('/rpc', url.origin), {
    method: 'POST',
    headers: {
      authorization: `Bearer ${url.searchParams.get('token')}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const answer = (await response.json()) as { result?: T; error?: { message: string } }
  if (answer.error) throw new Error(answer.error.message)
  return answer.result as T
}

/** Each branch column's label, phase and check state, read at one instant. */
function boardState(page: Page) {
  return page.getByTestId('board-branch').evaluateAll((columns) =>
    columns.map((column) => ({
      label: column.getAttribute('data-label'),
      phase: column.getAttribute('data-phase'),
      check: column.querySelector('[data-testid="board-check"]')?.getAttribute('data-state') ?? null,
    })),
  )
}

describe.skipIf(!chromiumPath)('web UI: try N ways', () => {
  let host: TestHost
  let browser: Browser

  beforeAll(async () => {
    // Slow enough that the board is seen before the branches finish.
    host = await startTestHost({ TANGENT_DEMO_DELAY_MS: '60' })
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
    await host?.close()
  })

  it('tries three ways from a turn, fills the board live, and keeps B by keyboard', async () => {
    const { page, errors } = await newPage(browser)
    await openApp(page, host.url)
    await openWorkspace(page, host.workspace)
    const parentId = await newSession(page)
    await chat(page, 'write base.txt: base')

    // "Try N ways…" on the completed turn, by keyboard: focus goes into the dialog and stays.
    const tryWays = page.getByTestId('turn').first().getByTestId('try-ways')
    await tryWays.focus()
    await page.keyboard.press('Enter')
    const dialog = page.getByTestId('explore-dialog')
    await dialog.waitFor()
    expect(await page.evaluate(() => document.activeElement?.closest('dialog') !== null)).toBe(true)
    expect(await dialog.getByTestId('explore-files-worktree').isChecked()).toBe(true)
    await dialog.getByTestId('explore-add-prompt').focus()
    await page.keyboard.press('Enter')
    const prompts = dialog.getByTestId('explore-prompt')
    await eventually(() => prompts.count()).toBe(3)
    await prompts.nth(0).fill('write a.txt: A')
    await prompts.nth(1).fill('write b.txt: B')
    await prompts.nth(2).fill('write c.txt: C')
    await dialog.getByTestId('explore-check').fill('test ! -f a.txt')
    expect(await axeViolations(page)).toEqual([])
    await dialog.getByTestId('explore-start').focus()
    await page.keyboard.press('Enter')

    // The board opens with focus on its heading, while the branches still run.
    const board = page.getByTestId('board')
    await board.waitFor()
    await eventually(() => focusedTestId(page)).toBe('board-heading')
    await eventually(() => page.getByTestId('board-branch').count()).toBe(3)
    // The page header names what is shown (a session's title, or the board), never "No session open".
    expect(await page.locator('.main-header h1').textContent()).not.toBe('No session open')
    const early = await boardState(page)
    expect(early.map((column) => column.label)).toEqual(['A', 'B', 'C'])
    // Live: some branch has not finished (no check recorded yet) when the board first shows.
    expect(early.some((column) => column.phase !== 'idle' && column.check === 'none')).toBe(true)
    expect(await board.getAttribute('data-settled')).toBe('false')

    // Then every branch is done: A's check fails (it wrote a.txt), B's and C's pass.
    // (Three demo turns and their checks: on a busy machine this takes a while.)
    await expect
      .poll(() => board.getAttribute('data-settled'), { timeout: 60_000, interval: 100 })
      .toBe('true')
    await eventually(() => boardState(page)).toEqual([
      { label: 'A', phase: 'idle', check: 'failed' },
      { label: 'B', phase: 'idle', check: 'passed' },
      { label: 'C', phase: 'idle', check: 'passed' },
    ])
    const column = (label: string) => page.locator(`[data-testid="board-branch"][data-label="${label}"]`)
    expect(await column('A').getByTestId('board-check').textContent()).toContain('Failed (exit 1)')
    expect(await column('B').getByTestId('board-file').allTextContents()).toEqual(['b.txt'])
    expect(await column('B').textContent()).toContain('+1')
    expect(await column('B').getByTestId('board-turns').textContent()).toBe('1 of 1 done')

    // One file across the branches: B has it (added against the fork point), A and C do not.
    await page.getByTestId('board-file-picker').selectOption('b.txt')
    const versions = page.getByTestId('board-diff-branch')
    await eventually(() => versions.nth(1).textContent()).toContain('+ B')
    expect(await versions.nth(0).textContent()).toContain('No such file here.')
    expect(await page.getByTestId('board-diff-base').textContent()).toContain('No such file here.')

    // The tree groups them under the parent: "Tried 3 ways" with A, B, C labelled.
    const group = page.locator(`[data-testid="exploration-row"][data-parent-id="${parentId}"]`)
    expect(await group.textContent()).toContain('Tried 3 ways')
    const ids = await page
      .getByTestId('board-branch')
      .evaluateAll((columns) => columns.map((element) => element.getAttribute('data-session-id')!))
    const [aId, bId, cId] = ids as [string, string, string]
    expect(await row(page, bId).getByTestId('row-branch-label').textContent()).toBe('B')
    const sessionsBefore = await rpc<SessionSummary[]>(host, 'session.list', {})
    const worktreeOf = (id: string) => sessionsBefore.find((session) => session.id === id)!.files.path
    expect(fs.existsSync(worktreeOf(aId))).toBe(true)

    await page.mouse.move(0, 0)
    expect(await axeViolations(page)).toEqual([])
    await page.screenshot({ path: '/tmp/tangent-board.png', fullPage: false })

    // Keep B by keyboard: its button, the confirmation (Cancel first, then Keep B).
    await column('B').getByTestId('board-keep').focus()
    await page.keyboard.press('Enter')
    const confirm = page.getByTestId('keep-dialog')
    await confirm.waitFor()
    expect(await confirm.textContent()).toContain('(A, C) are archived')
    await page.keyboard.press('Tab')
    expect(await focusedTestId(page)).toBe('keep-confirm')
    await page.keyboard.press('Enter')
    const outcome = page.getByTestId('keep-outcome')
    await outcome.waitFor()
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('keep-outcome')
    expect(await outcome.getByTestId('keep-applied').textContent()).toContain('b.txt')
    expect(await outcome.getByTestId('keep-archived').textContent()).toContain('Archived 2 other branches')
    expect(await axeViolations(page)).toEqual([])

    // The parent's folder has exactly B's changes.
    expect(fs.readFileSync(path.join(host.workspace, 'b.txt'), 'utf8')).toBe('B\n')
    expect(fs.existsSync(path.join(host.workspace, 'a.txt'))).toBe(false)
    expect(fs.existsSync(path.join(host.workspace, 'c.txt'))).toBe(false)
    expect(fs.readFileSync(path.join(host.workspace, 'base.txt'), 'utf8')).toBe('base\n')

    // A and C are archived (gone from the default tree and list) and their worktrees removed.
    const listed = (await rpc<SessionSummary[]>(host, 'session.list', {})).map((session) => session.id)
    expect(listed).toContain(bId)
    expect(listed).not.toContain(aId)
    expect(listed).not.toContain(cId)
    const all = await rpc<SessionSummary[]>(host, 'session.list', { includeArchived: true })
    expect(
      all
        .filter((session) => session.archived)
        .map((session) => session.id)
        .sort(),
    ).toEqual([aId, cId].sort())
    expect(fs.existsSync(worktreeOf(aId))).toBe(false)
    expect(fs.existsSync(worktreeOf(cId))).toBe(false)
    await eventually(() => row(page, aId).count()).toBe(0)
    await eventually(() => row(page, cId).count()).toBe(0)
    expect(await row(page, bId).count()).toBe(1)

    // The parent's transcript: the exploration, the files from B (with Undo) and the keep with its summary.
    await page.getByTestId('board-close').click()
    await page.locator(`[data-testid="transcript"][data-session-id="${parentId}"]`).waitFor()
    expect(await page.getByTestId('exploration-started').textContent()).toContain('Tried 3 ways: A, B, C')
    const restore = page.getByTestId('restore-row')
    expect(await restore.getByTestId('restore-title').textContent()).toBe('Files from branch B (kept)')
    expect(await restore.getByTestId('undo-restore').count()).toBe(1)
    const kept = page.getByTestId('kept-row')
    expect(await kept.getByTestId('kept-title').textContent()).toContain('Kept branch B')
    expect(await kept.getByTestId('kept-title').textContent()).toContain('files: b.txt')
    await kept.getByTestId('kept-title').click()
    expect(await kept.getByTestId('kept-summary').textContent()).toContain('was kept')
    expect(await axeViolations(page)).toEqual([])

    // The board opens again from the transcript row.
    await page.getByTestId('open-board').click()
    await eventually(() => page.getByTestId('board-branch').count()).toBe(3)
    expect(errors).toEqual([])
    await page.context().close()
  }, 180_000)

  it('marks a kept branch Kept with Undo, unarchives from the board, wraps and marks changed characters, titles branches apart', async () => {
    const { page, errors } = await newPage(browser)
    await openApp(page, host.url)
    await openWorkspace(page, host.workspace)
    const parentId = await newSession(page)
    const long = `${'word '.repeat(60)}end`
    await chat(page, `write long.txt: ${long}`)

    // Two ways whose prompts share their start: each title leads with its own part.
    await page.getByTestId('turn').first().getByTestId('try-ways').click()
    const dialog = page.getByTestId('explore-dialog')
    await dialog.waitFor()
    const prompts = dialog.getByTestId('explore-prompt')
    await prompts.nth(0).fill(`write long.txt: ${long.replace(/end$/, 'enD')}`)
    await prompts.nth(1).fill(`write long.txt: ${long.replace(/end$/, 'fin')}`)
    await dialog.getByTestId('explore-start').click()
    const board = page.getByTestId('board')
    await board.waitFor()
    await expect
      .poll(() => board.getAttribute('data-settled'), { timeout: 60_000, interval: 100 })
      .toBe('true')
    const ids = await page
      .getByTestId('board-branch')
      .evaluateAll((columns) => columns.map((element) => element.getAttribute('data-session-id')!))
    const [aId, bId] = ids as [string, string]
    // The sidebar's branch rows: the label first, then the prompt's distinct part (not the shared start).
    await page.locator(`[data-testid="exploration-row"][data-parent-id="${parentId}"]`).waitFor()
    const titleText = (id: string) => row(page, id).locator('.title-text').textContent()
    await eventually(() => titleText(aId)).toBe('…enD')
    expect(await titleText(bId)).toBe('…fin')
    expect(await row(page, aId).getByTestId('row-branch-label').textContent()).toBe('A')

    // Side by side: the long line wraps (nothing cut), the changed characters marked within it.
    await page.getByTestId('board-file-picker').selectOption('long.txt')
    const branchB = page.getByTestId('board-diff-branch').nth(1)
    await eventually(() => branchB.getByTestId('board-diff-change').count()).toBe(2)
    expect(await branchB.getByTestId('board-diff-change').allTextContents()).toEqual(['end', 'fin'])
    const added = branchB.locator('.patch > span[data-kind="add"]')
    const fits = await added.evaluate((line) => ({
      scroll: line.parentElement!.scrollWidth,
      client: line.parentElement!.clientWidth,
      height: line.getBoundingClientRect().height,
      lineHeight: Number.parseFloat(getComputedStyle(line).lineHeight) || 16,
    }))
    expect(fits.scroll).toBeLessThanOrEqual(fits.client)
    expect(fits.height).toBeGreaterThan(fits.lineHeight * 1.5)
    expect(await axeViolations(page)).toEqual([])

    // Keep B by keyboard: B is marked Kept, its Keep disabled with the reason, Undo offered.
    const column = (label: string) => page.locator(`[data-testid="board-branch"][data-label="${label}"]`)
    await column('B').getByTestId('board-keep').focus()
    await page.keyboard.press('Enter')
    await page.getByTestId('keep-dialog').waitFor()
    await page.getByTestId('keep-confirm').focus()
    await page.keyboard.press('Enter')
    await page.getByTestId('keep-outcome').waitFor()
    await eventually(() => column('B').getAttribute('data-kept')).toBe('true')
    expect(await column('B').getByTestId('board-kept').textContent()).toBe('Kept')
    expect(await column('B').getByTestId('board-keep').isDisabled()).toBe(true)
    expect(await column('B').getByTestId('board-keep-why').textContent()).toContain('It is kept in')
    expect(await column('A').getAttribute('data-kept')).toBe('false')
    await eventually(() => column('A').getAttribute('data-phase')).toBe('archived')
    expect(fs.readFileSync(path.join(host.workspace, 'long.txt'), 'utf8')).toContain('fin')
    await page.mouse.move(0, 0)
    expect(await axeViolations(page)).toEqual([])
    await page.getByTestId('keep-outcome').getByRole('button', { name: 'Dismiss' }).click()
    await screenshot(page, 'board-kept')

    // Undo the keep by keyboard: the parent's file is back, B may be kept again.
    await column('B').getByTestId('board-undo-keep').focus()
    await page.keyboard.press('Enter')
    await eventually(() => column('B').getAttribute('data-kept')).toBe('false')
    expect(await column('B').getByTestId('board-keep').isDisabled()).toBe(false)
    expect(await column('B').getByTestId('board-undo-keep').count()).toBe(0)
    expect(fs.readFileSync(path.join(host.workspace, 'long.txt'), 'utf8')).toContain('end')

    // A, archived by the keep, comes back from the board by keyboard.
    await column('A').getByTestId('board-unarchive').focus()
    await page.keyboard.press('Enter')
    await eventually(() => column('A').getAttribute('data-phase')).toBe('idle')
    expect(await column('A').getByTestId('board-unarchive').count()).toBe(0)
    expect(await column('A').getByTestId('board-keep').isDisabled()).toBe(false)
    const listed = (await rpc<SessionSummary[]>(host, 'session.list', {})).map((session) => session.id)
    expect(listed).toContain(aId)
    expect(await axeViolations(page)).toEqual([])
    expect(errors).toEqual([])
    await page.context().close()
  }, 180_000)
})
