// The lineage tree in real Chromium: archive/unarchive, delete a parent with forks, two tabs
// seeing each other's forks live, the fork dialog and a narrow window.
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
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
  openSessionId,
  openWorkspace,
  row,
  rowMenu,
  screenshot,
  startTestHost,
  type TestHost,
} from './web-harness.js'

failWithoutChromiumInCi()

describe.skipIf(!chromiumPath)('web UI: the lineage tree', () => {
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

  async function branchFromLastTurn(): Promise<string> {
    const before = await openSessionId(page)
    await page.getByTestId('turn').last().getByTestId('branch-from-here').click()
    await page.getByTestId('fork-confirm').click()
    await eventually(() => openSessionId(page)).not.toBe(before)
    return (await openSessionId(page))!
  }

  it('archives a session out of sight and brings it back', async () => {
    const id = await newSession(page)
    await chat(page, 'to be archived')
    await rowMenu(page, id, 'menu-archive')
    await eventually(() => row(page, id).count()).toBe(0)
    // Its row (and the menu button focus went back to) is gone: focus is in the tree, not on <body>.
    await eventually(() => page.evaluate(() => document.activeElement?.getAttribute('role') ?? null)).toBe(
      'treeitem',
    )
    // Still open, and its header says it is archived.
    expect(await openSessionId(page)).toBe(id)
    expect(await page.getByTestId('session-archived').textContent()).toBe('archived')

    await page.getByTestId('show-archived').check()
    await row(page, id).waitFor()
    expect(await row(page, id).getAttribute('data-archived')).toBe('true')

    await rowMenu(page, id, 'menu-archive') // now labelled Unarchive
    await eventually(() => row(page, id).getAttribute('data-archived')).toBe('false')
    expect(await page.getByTestId('session-archived').count()).toBe(0)
    await page.getByTestId('show-archived').uncheck()
    expect(await row(page, id).count()).toBe(1)
  })

  it('deletes a parent with forks: the forks stay, with their history, and the dialog names them', async () => {
    const parent = await newSession(page)
    await chat(page, 'shared history')
    const childA = await branchFromLastTurn()
    await chat(page, 'only in A')
    await row(page, parent).getByTestId('row-title').click()
    await eventually(() => openSessionId(page)).toBe(parent)
    const childB = await branchFromLastTurn()

    // By keyboard: Shift+F10 on the row opens its menu; End goes to the last item, Delete…;
    // the dialog starts on Cancel.
    const parentRow = row(page, parent)
    await parentRow.focus()
    await page.keyboard.press('Shift+F10')
    await page.keyboard.press('End')
    expect(await focusedTestId(page)).toBe('menu-delete')
    await page.keyboard.press('Enter')
    const keeps = page.getByTestId('delete-keeps')
    await keeps.waitFor()
    expect(await keeps.locator('li').count()).toBe(2)
    await screenshot(page, 'delete-dialog')
    expect(await axeViolations(page)).toEqual([])
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel')
    // Esc keeps the session and gives focus back to its row.
    await page.keyboard.press('Escape')
    await page.getByTestId('delete-dialog').waitFor({ state: 'detached' })
    expect(await hasFocus(parentRow)).toBe(true)
    expect(await row(page, parent).count()).toBe(1)
    await page.keyboard.press('Shift+F10')
    await page.keyboard.press('End')
    await page.keyboard.press('Enter')
    await page.getByTestId('delete-dialog').waitFor()
    await page.keyboard.press('Tab')
    expect(await focusedTestId(page)).toBe('confirm-delete')
    await page.keyboard.press('Enter')

    await eventually(() => row(page, parent).count()).toBe(0)
    // Its row is gone: focus is on the tree's Tab stop, not lost to the page.
    await eventually(() =>
      page.evaluate(() => document.activeElement?.getAttribute('role') ?? document.activeElement?.tagName),
    ).toBe('treeitem')
    for (const child of [childA, childB]) {
      await row(page, child).waitFor()
      expect(await row(page, child).getAttribute('data-depth')).toBe('0')
    }
    await row(page, childA).getByTestId('row-title').click()
    await eventually(() => openSessionId(page)).toBe(childA)
    await eventually(() => page.getByTestId('user-message').allTextContents()).toEqual([
      expect.stringContaining('shared history'),
      expect.stringContaining('only in A'),
    ])
  })

  it('shows forks made in one tab live in another', async () => {
    const parent = await newSession(page)
    await chat(page, 'seen by both tabs')

    const other = await context.newPage()
    other.setDefaultTimeout(15_000)
    await openApp(other, host.url)
    await row(other, parent).waitFor()

    const child = await branchFromLastTurn()
    await eventually(() => row(other, parent).getByTestId('child-count').textContent()).toBe('1')
    await row(other, parent).getByTestId('row-toggle').click()
    await row(other, child).waitFor()
    expect(await row(other, child).getAttribute('data-parent-id')).toBe(parent)

    // And the other way round: a fork from the second tab reaches the first.
    await row(other, child).getByTestId('row-title').click()
    await eventually(() => openSessionId(other)).toBe(child)
    await other.getByTestId('turn').last().getByTestId('branch-from-here').click()
    await other.getByTestId('fork-confirm').click()
    await eventually(() => openSessionId(other)).not.toBe(child)
    const grandchild = (await openSessionId(other))!
    await eventually(() => row(page, child).getByTestId('child-count').textContent()).toBe('1')
    await row(page, child).getByTestId('row-toggle').click()
    expect(await row(page, grandchild).getAttribute('data-depth')).toBe('2')
    await other.close()
  })

  it('learns a workspace opened in another tab from its first session', async () => {
    const other = await context.newPage()
    other.setDefaultTimeout(15_000)
    await openApp(other, host.url)
    const folder = path.join(path.dirname(host.workspace), 'elsewhere')
    fs.mkdirSync(folder, { recursive: true })
    await openWorkspace(page, folder)
    const workspaceRow = page.locator('[data-testid="workspace-row"]').filter({ hasText: 'elsewhere' })
    await workspaceRow.getByTestId('new-session').click()
    await eventually(() => openSessionId(page)).not.toBe(null)
    const id = (await openSessionId(page))!

    await row(other, id).waitFor()
    const group = other.locator('[data-testid="workspace-row"]').filter({ hasText: 'elsewhere' })
    await group.waitFor()
    // The session sits in that workspace's group, not under "Other sessions".
    const rows = await other
      .locator('[data-testid="workspace-row"], [data-testid="session-row"]')
      .evaluateAll((elements) =>
        elements
          .sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top)
          .map(
            (element) => element.getAttribute('data-workspace-id') ?? element.getAttribute('data-session-id'),
          ),
      )
    const groupId = await group.getAttribute('data-workspace-id')
    expect(rows[rows.indexOf(groupId) + 1]).toBe(id)
    await other.close()
  })

  it('renames from the row menu and forks through the dialog', async () => {
    const id = await newSession(page)
    await chat(page, 'a session to name')
    await row(page, id).getByTestId('row-menu-button').click()
    await page.getByTestId('row-menu').waitFor()
    expect(await axeViolations(page)).toEqual([])
    await page.getByTestId('menu-rename').click()
    await page.getByTestId('rename-input').fill('Refactor plan')
    expect(await axeViolations(page)).toEqual([])
    await page.getByTestId('rename-input').press('Enter')
    await eventually(() => row(page, id).getByTestId('row-title').textContent()).toContain('Refactor plan')

    await rowMenu(page, id, 'menu-fork')
    await page.getByTestId('fork-dialog').waitFor()
    await page.getByTestId('fork-title').fill('Approach B')
    await screenshot(page, 'fork-dialog')
    expect(await axeViolations(page)).toEqual([])
    await page.getByTestId('fork-confirm').click()
    await eventually(() => openSessionId(page)).not.toBe(id)
    const child = (await openSessionId(page))!
    await eventually(() => row(page, child).getByTestId('row-title').textContent()).toContain('Approach B')
    expect(await row(page, child).getAttribute('data-parent-id')).toBe(id)
  })

  it('forks by keyboard: the row menu and the dialog open, fill and confirm; Esc gives focus back', async () => {
    const id = await newSession(page)
    await chat(page, 'forked by keyboard')
    const menuButton = row(page, id).getByTestId('row-menu-button')
    const sessionRow = row(page, id)
    expect(await menuButton.getAttribute('aria-haspopup')).toBe('menu')
    // The row is the tree's one Tab stop; Shift+F10 opens its menu.
    await sessionRow.focus()
    await page.keyboard.press('Shift+F10')
    await page.getByTestId('row-menu').waitFor()
    expect(await menuButton.getAttribute('aria-expanded')).toBe('true')
    expect(await focusedTestId(page)).toBe('menu-fork')
    await page.keyboard.press('ArrowDown')
    expect(await focusedTestId(page)).toBe('menu-rename')
    await page.keyboard.press('ArrowUp')
    expect(await focusedTestId(page)).toBe('menu-fork')
    // Esc closes the menu and puts focus back on the row that opened it.
    await page.keyboard.press('Escape')
    await eventually(() => page.getByTestId('row-menu').count()).toBe(0)
    expect(await hasFocus(sessionRow)).toBe(true)
    expect(await menuButton.getAttribute('aria-expanded')).toBe('false')
    // Tab leaves the menu: it closes, and focus moves on from its row (so Shift+Tab
    // comes straight back to it).
    await page.keyboard.press('Shift+F10')
    await page.getByTestId('row-menu').waitFor()
    await page.keyboard.press('Tab')
    await eventually(() => page.getByTestId('row-menu').count()).toBe(0)
    expect(await hasFocus(sessionRow)).toBe(false)
    await page.keyboard.press('Shift+Tab')
    expect(await hasFocus(sessionRow)).toBe(true)

    // Fork… opens the dialog with focus on where the files live (shared first: the session
    // changed none); Esc closes it, back to the row.
    await page.keyboard.press('Shift+F10')
    await page.keyboard.press('Enter')
    await page.getByTestId('fork-dialog').waitFor()
    expect(await focusedTestId(page)).toBe('fork-files-shared')
    await page.keyboard.press('Escape')
    await eventually(() => page.getByTestId('fork-dialog').count()).toBe(0)
    expect(await hasFocus(sessionRow)).toBe(true)

    // Again, and this time fill it in and confirm it without the mouse.
    await page.keyboard.press('Shift+F10')
    await page.keyboard.press('Enter')
    await page.getByTestId('fork-dialog').waitFor()
    await page.keyboard.press('Shift+Tab')
    expect(await focusedTestId(page)).toBe('fork-title')
    await page.keyboard.type('Keyboard fork')
    await page.keyboard.press('Tab')
    expect(await focusedTestId(page)).toBe('fork-files-shared')
    await page.keyboard.press('ArrowDown')
    expect(await focusedTestId(page)).toBe('fork-files-worktree')
    expect(await page.getByTestId('fork-files-worktree').isChecked()).toBe(true)
    await page.keyboard.press('Tab')
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel')
    await page.keyboard.press('Tab')
    expect(await focusedTestId(page)).toBe('fork-confirm')
    await page.keyboard.press('Enter')
    await eventually(() => openSessionId(page)).not.toBe(id)
    const child = (await openSessionId(page))!
    await eventually(() => row(page, child).getByTestId('row-title').textContent()).toContain('Keyboard fork')
    await row(page, child).getByTestId('row-file-badge').waitFor()
    // The new branch is open and its message box has the focus.
    await eventually(() => focusedTestId(page)).toBe('composer-input')
  })

  it('renames by keyboard: Enter keeps the title, Esc cancels, and focus stays on the row', async () => {
    const id = await newSession(page)
    await chat(page, 'renamed by keyboard')
    const title = row(page, id).getByTestId('row-title')
    const sessionRow = row(page, id)
    await sessionRow.focus()
    await page.keyboard.press('Shift+F10')
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('Enter')
    await eventually(() => focusedTestId(page)).toBe('rename-input')
    await page.keyboard.type('Named by keyboard')
    await page.keyboard.press('Enter')
    await eventually(() => title.textContent()).toContain('Named by keyboard')
    await eventually(() => hasFocus(sessionRow)).toBe(true)
    // Its accessible name (as Playwright computes it) starts with the new title.
    const named = page.getByRole('treeitem', { name: /^Named by keyboard/ })
    expect(await named.getAttribute('data-session-id')).toBe(id)

    // Esc leaves the title as it was; F2 starts a rename straight from the row.
    await page.keyboard.press('F2')
    await eventually(() => focusedTestId(page)).toBe('rename-input')
    await page.keyboard.type('Not this')
    await page.keyboard.press('Escape')
    await eventually(() => hasFocus(sessionRow)).toBe(true)
    expect(await title.textContent()).toContain('Named by keyboard')
  })

  it('stays usable in a narrow window: the sidebar folds away behind a button', async () => {
    const id = await newSession(page)
    await chat(page, 'narrow window check')
    // A wide window shows the sidebar, with no button to fold it.
    expect(await page.getByTestId('sidebar-toggle').isVisible()).toBe(false)
    expect(await page.getByTestId('sidebar-close').isVisible()).toBe(false)
    await page.setViewportSize({ width: 420, height: 760 })
    await eventually(() =>
      page.getByTestId('sidebar').evaluate((el) => el.getBoundingClientRect().right),
    ).toBeLessThanOrEqual(0)
    await screenshot(page, 'narrow')
    expect(await axeViolations(page)).toEqual([])
    await page.getByTestId('sidebar-toggle').click()
    await eventually(() =>
      page.getByTestId('sidebar').evaluate((el) => el.getBoundingClientRect().left),
    ).toBe(0)
    await screenshot(page, 'narrow-sidebar')
    expect(await axeViolations(page)).toEqual([])
    await row(page, id).getByTestId('row-title').click()
    await eventually(() =>
      page.getByTestId('sidebar').evaluate((el) => el.getBoundingClientRect().right),
    ).toBeLessThanOrEqual(0)
    const composer = await page.getByTestId('composer').boundingBox()
    expect(composer!.width).toBeLessThanOrEqual(420)

    // By keyboard: folded, Tab never reaches the sidebar; unfolded, it never leaves it.
    const toggle = page.getByTestId('sidebar-toggle')
    expect(await toggle.getAttribute('aria-expanded')).toBe('false')
    await toggle.focus()
    expect(await tabbedThrough(page, 'sidebar')).toBe(0)
    await toggle.focus()
    await page.keyboard.press('Enter')
    expect(await toggle.getAttribute('aria-expanded')).toBe('true')
    // Focus moves into the sidebar, onto the open session.
    await eventually(() => hasFocus(row(page, id))).toBe(true)
    expect(await tabbedThrough(page, 'main')).toBe(0)
    expect(await axeViolations(page)).toEqual([])
    // Esc folds it again and puts focus back on the button.
    await page.keyboard.press('Escape')
    await eventually(() =>
      page.getByTestId('sidebar').evaluate((el) => el.getBoundingClientRect().right),
    ).toBeLessThanOrEqual(0)
    expect(await hasFocus(toggle)).toBe(true)
    expect(await toggle.getAttribute('aria-expanded')).toBe('false')
    // Its close button does the same.
    await page.keyboard.press('Enter')
    await eventually(() => hasFocus(row(page, id))).toBe(true)
    await page.getByTestId('sidebar-close').focus()
    await page.keyboard.press('Enter')
    await eventually(() => hasFocus(toggle)).toBe(true)
    expect(await toggle.getAttribute('aria-expanded')).toBe('false')
  })

  it('adds the child to the tree and opens it, then shows workspace-attach-failed', async () => {
    let host = await startTestHost()
    let { context: own, page } = await newPage(browser)
    try {
      await openApp(page, host.url)
      await openWorkspace(page, host.workspace)
      const parent = await newSession(page)
      await chat(page, 'before the workspace goes away')
      await own.close()

      // The workspace disappears while the Host is down (its registry file is lost).
      host = await host.restart(() => fs.rmSync(path.join(host.home, 'workspaces.json')))
      ;({ context: own, page } = await newPage(browser))
      await openApp(page, host.url)
      await row(page, parent).getByTestId('row-title').click()
      await eventually(() => openSessionId(page)).toBe(parent)
      await page.getByTestId('turn').last().getByTestId('branch-from-here').click()
      await page.getByTestId('fork-confirm').click()

      const banner = page.getByTestId('error-banner')
      await banner.waitFor()
      expect(await banner.getAttribute('data-code')).toBe('workspace-attach-failed')
      await eventually(() => openSessionId(page)).not.toBe(parent)
      const child = (await openSessionId(page))!
      expect(await row(page, child).getAttribute('data-parent-id')).toBe(parent)
    } finally {
      await own.close()
      await host.close()
    }
  })

  it('shows the lost connection, reconnects by itself and shows the same sessions', async () => {
    // A fixed port and token (as with `TANGENT_TOKEN` and `--port`), so the page can come back.
    const port = await freePort()
    let host = await startTestHost({}, { port, token: 'web-restart-token' })
    const { context: own, page } = await newPage(browser)
    try {
      await openApp(page, host.url)
      await openWorkspace(page, host.workspace)
      const id = await newSession(page)
      await chat(page, 'survives a restart')

      // The Host stays down until the page showing it has been checked.
      let bringBack = () => {}
      const checked = new Promise<void>((resolve) => {
        bringBack = resolve
      })
      const next = host.restart(() => checked)
      let offlineViolations: unknown
      try {
        await eventually(() => page.getByTestId('connection').textContent()).toBe('offline')
        await page.getByTestId('connection-lost').waitFor()
        offlineViolations = await axeViolations(page)
      } finally {
        bringBack()
        host = await next
      }
      expect(offlineViolations).toEqual([])
      await eventually(() => page.getByTestId('connection').textContent()).toBe('connected')
      await eventually(() => openSessionId(page)).toBe(id)
      await eventually(() => page.getByTestId('user-message').allTextContents()).toEqual([
        expect.stringContaining('survives a restart'),
      ])
      await eventually(() => page.getByTestId('connection-lost').count()).toBe(0)
      // Failed reconnection attempts are not errors of their own.
      expect(await page.getByTestId('error-banner').allTextContents()).toEqual([])
      await chat(page, 'and goes on after it')
      expect(await page.getByTestId('turn').count()).toBe(2)
    } finally {
      await own.close()
      await host.close()
    }
  })
})

function hasFocus(locator: Locator): Promise<boolean> {
  return locator.evaluate((element) => element === document.activeElement)
}

/**
 * Presses Tab 40 times (more than either side of a narrow window holds) and counts how often
 * focus landed inside `where`: the sidebar ('sidebar') or the session view ('main').
 */
async function tabbedThrough(page: Page, where: 'sidebar' | 'main'): Promise<number> {
  let inside = 0
  for (let step = 0; step < 40; step++) {
    await page.keyboard.press('Tab')
    const hit = await page.evaluate(
      (selector) => document.querySelector(selector)?.contains(document.activeElement) ?? false,
      where === 'sidebar' ? '[data-testid="sidebar"]' : 'main',
    )
    if (hit) inside++
  }
  return inside
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
}
