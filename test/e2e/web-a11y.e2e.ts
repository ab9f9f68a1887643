// Accessibility of the web UI in real Chromium (docs/architecture.md §8, accessibility):
// axe-core's WCAG 2.2 AA rules on every main screen in light and dark, focus going back to
// what opened a dialog or menu, the session tree as a WAI-ARIA tree (one Tab stop, arrows,
// Home/End, type-ahead, windowed for hundreds of rows), the polite live region, full titles
// on hover and the resizable sidebar.
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
  openApp,
  openSessionId,
  row,
  type TestHost,
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
    await page.getByTestId('fork-confirm').click()
    await eventually(() => openSessionId(page)).not.toBe(parent)
    await page.locator('[data-testid="transcript"][data-loading="false"]').waitFor()
    await chat(page, 'only in the fork')
    expect(await page.locator('.turn.inherited').count()).toBeGreaterThan(0)
    expect(await axeViolations(page)).toEqual([])

    // The row menu, then the fork dialog with each files option chosen.
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

  it('gives focus back to what opened a dialog or menu, and keeps it in the composer after Send', async () => {
    const { page } = app
    const id = await newSession(page)
    // Sent with the button (which turns into Stop), focus stays in the message box.
    await page.getByTestId('composer-input').fill('sent with the button')
    await page.getByTestId('send').click()
    expect(await focusedTestId(page)).toBe('composer-input')
    await eventually(() => page.locator('[data-testid="turn"][data-running="false"]').count()).toBe(1)
    expect(await focusedTestId(page)).toBe('composer-input')

    // The turn's "Fork…": Esc goes back to it.
    const forkButton = page.getByTestId('turn').last().getByTestId('branch-from-here')
    await forkButton.focus()
    await page.keyboard.press('Enter')
    await page.getByTestId('fork-dialog').waitFor()
    await page.keyboard.press('Escape')
    await page.getByTestId('fork-dialog').waitFor({ state: 'detached' })
    expect(await hasFocus(forkButton)).toBe(true)
    // "Try N ways…" likewise.
    const tryWays = page.getByTestId('turn').last().getByTestId('try-ways')
    await tryWays.focus()
    await page.keyboard.press('Enter')
    await page.getByTestId('explore-dialog').waitFor()
    await page.keyboard.press('Escape')
    await page.getByTestId('explore-dialog').waitFor({ state: 'detached' })
    expect(await hasFocus(tryWays)).toBe(true)

    // The row menu by keyboard: Esc goes back to the row; so does Esc in the dialog it opened.
    const sessionRow = row(page, id)
    await sessionRow.focus()
    await page.keyboard.press('Shift+F10')
    await page.getByTestId('row-menu').waitFor()
    expect(await focusedTestId(page)).toBe('menu-fork')
    await page.keyboard.press('Escape')
    await page.getByTestId('row-menu').waitFor({ state: 'detached' })
    expect(await hasFocus(sessionRow)).toBe(true)
    await page.keyboard.press('Shift+F10')
    await page.keyboard.press('End')
    await page.keyboard.press('Enter')
    await page.getByTestId('delete-dialog').waitFor()
    await page.keyboard.press('Escape')
    await page.getByTestId('delete-dialog').waitFor({ state: 'detached' })
    expect(await hasFocus(sessionRow)).toBe(true)

    // Submitting the fork dialog opens the new branch, with focus in its message box.
    await forkButton.focus()
    await page.keyboard.press('Enter')
    await page.getByTestId('fork-dialog').waitFor()
    await page.getByTestId('fork-confirm').focus()
    await page.keyboard.press('Enter')
    await eventually(() => openSessionId(page)).not.toBe(id)
    await eventually(() => focusedTestId(page)).toBe('composer-input')
  })

  it('announces a finished reply and an error in a polite live region', async () => {
    const { page } = app
    const region = page.getByTestId('live-region')
    expect(await region.getAttribute('role')).toBe('status')
    expect(await region.getAttribute('aria-live')).toBe('polite')
    await newSession(page)
    await chat(page, 'tell the screen reader')
    await eventually(() => region.textContent()).toContain(
      'Reply finished: Turn 1: you said "tell the screen reader".',
    )
    // A second reply replaces the first.
    await chat(page, 'and again')
    await eventually(() => region.textContent()).toContain('you said "and again"')
    // An error from the Host.
    await page.getByTestId('workspace-path').fill('/definitely/not/a/folder')
    await page.getByTestId('workspace-open').click()
    await page.getByTestId('error-banner').waitFor()
    await eventually(() => region.textContent()).toMatch(/^Error: /)
  })

  it('shows full titles on hover and resizes the sidebar by keyboard, remembering the width', async () => {
    const { page, host } = app
    const id = await newSession(page)
    const long = 'a very long session title that the sidebar cannot show in full at any usual width'
    // F2 renames from the row.
    await row(page, id).focus()
    await page.keyboard.press('F2')
    await page.getByTestId('rename-input').fill(long)
    await page.keyboard.press('Enter')
    const title = row(page, id).getByTestId('row-title')
    await eventually(() => title.getAttribute('title')).toBe(long)
    // Cut on screen (the title attribute shows it whole on hover).
    expect(
      await title.locator('.title-text').evaluate((element) => element.scrollWidth > element.clientWidth),
    ).toBe(true)

    const separator = page.getByRole('separator', { name: 'Sidebar width' })
    expect(await separator.getAttribute('aria-valuenow')).toBe('300')
    expect(await sidebarWidth(page)).toBe(300)
    await separator.focus()
    await page.keyboard.press('ArrowRight')
    await page.keyboard.press('Shift+ArrowRight')
    expect(await separator.getAttribute('aria-valuenow')).toBe('380')
    expect(await sidebarWidth(page)).toBe(380)
    // The wider sidebar cuts less of the title.
    await page.keyboard.press('End')
    const widest = Number(await separator.getAttribute('aria-valuenow'))
    expect(widest).toBe(Number(await separator.getAttribute('aria-valuemax')))
    expect(await sidebarWidth(page)).toBe(widest)
    await page.keyboard.press('Home')
    expect(await separator.getAttribute('aria-valuenow')).toBe(await separator.getAttribute('aria-valuemin'))
    // Dragged with the mouse, 60 px to the right.
    const grip = (await separator.boundingBox())!
    const from = { x: grip.x + grip.width / 2, y: grip.y + 200 }
    await page.mouse.move(from.x, from.y)
    await page.mouse.down()
    await page.mouse.move(from.x + 30, from.y)
    await page.mouse.move(from.x + 60, from.y)
    await page.mouse.up()
    expect(await separator.getAttribute('aria-valuenow')).toBe(String(220 + 60))
    expect(await sidebarWidth(page)).toBe(280)
    await separator.focus()
    await page.keyboard.press('ArrowRight')
    const kept = await separator.getAttribute('aria-valuenow')
    expect(kept).toBe('296')
    expect(await axeViolations(page)).toEqual([])

    // A reload keeps the width.
    await openApp(page, host.url)
    await eventually(() => page.getByRole('separator').getAttribute('aria-valuenow')).toBe(kept)
    expect(await sidebarWidth(page)).toBe(Number(kept))
  })
})

describe.skipIf(!chromiumPath)('web UI: the session tree as a WAI-ARIA tree', () => {
  // A Host of its own: the rows are exactly the ones this test makes.
  const app = useAppPage()

  it('is a WAI-ARIA tree: one Tab stop, levels and sets, arrows, Home/End, type-ahead, Enter', async () => {
    const { page } = app
    const beta = await newSession(page)
    await chat(page, 'beta work')
    const alpha = await newSession(page)
    await chat(page, 'alpha work')
    await page.getByTestId('turn').last().getByTestId('branch-from-here').click()
    await page.getByTestId('fork-confirm').click()
    await eventually(() => openSessionId(page)).not.toBe(alpha)
    const fork = (await openSessionId(page))!
    await row(page, fork).waitFor()

    const tree = page.getByRole('tree', { name: 'Sessions by workspace' })
    expect(await tree.count()).toBe(1)
    // The workspace is level 1, its sessions level 2, the fork level 3 under alpha.
    const workspace = page.getByTestId('workspace-row').first()
    expect(await workspace.getAttribute('aria-level')).toBe('1')
    expect(await workspace.getAttribute('aria-expanded')).toBe('true')
    expect(await row(page, alpha).getAttribute('aria-level')).toBe('2')
    expect(await row(page, alpha).getAttribute('aria-expanded')).toBe('true')
    expect(await row(page, fork).getAttribute('aria-level')).toBe('3')
    expect(await row(page, fork).getAttribute('aria-setsize')).toBe('1')
    expect(await row(page, beta).getAttribute('aria-setsize')).toBe('2')
    expect(await row(page, beta).getAttribute('aria-posinset')).toBe('2')
    expect(await row(page, alpha).getAttribute('aria-posinset')).toBe('1')
    expect(await row(page, beta).getAttribute('aria-expanded')).toBe(null)
    // The open session is selected and current, and its status is in words.
    expect(await row(page, fork).getAttribute('aria-selected')).toBe('true')
    expect(await row(page, fork).getAttribute('aria-current')).toBe('true')
    expect(await row(page, alpha).getAttribute('aria-selected')).toBe('false')
    // (Playwright computes accessible names as the ARIA spec says.)
    const named = page.getByRole('treeitem', { name: /^alpha work.*, fork of alpha work/ })
    expect(await named.getAttribute('data-session-id')).toBe(fork)
    const running = page.getByRole('treeitem', { name: /, running/ })
    expect(await running.count()).toBe(0)

    // One Tab stop: from the filter box, Tab lands on the open session; its buttons are no stops.
    expect(await tree.locator('[tabindex="0"]').count()).toBe(1)
    expect(await tree.locator('button:not([tabindex="-1"])').count()).toBe(0)
    await page.getByTestId('session-filter').focus()
    await page.keyboard.press('Tab')
    expect(await hasFocus(row(page, fork))).toBe(true)
    await page.keyboard.press('Tab')
    expect(await page.evaluate(() => document.activeElement?.closest('[role="tree"]') === null)).toBe(true)
    await page.keyboard.press('Shift+Tab')
    expect(await hasFocus(row(page, fork))).toBe(true)

    // Up, Down, Home, End.
    await page.keyboard.press('ArrowUp')
    expect(await hasFocus(row(page, alpha))).toBe(true)
    expect(await tree.locator('[tabindex="0"]').getAttribute('data-session-id')).toBe(alpha)
    await page.keyboard.press('Home')
    expect(await hasFocus(workspace)).toBe(true)
    await page.keyboard.press('End')
    expect(await hasFocus(row(page, beta))).toBe(true)
    await page.keyboard.press('ArrowDown')
    expect(await hasFocus(row(page, beta))).toBe(true)

    // Left goes to the parent, closes an open row; Right opens it, then enters it.
    await page.keyboard.press('ArrowLeft')
    expect(await hasFocus(workspace)).toBe(true)
    await page.keyboard.press('ArrowDown')
    expect(await hasFocus(row(page, alpha))).toBe(true)
    await page.keyboard.press('ArrowLeft')
    await eventually(() => row(page, alpha).getAttribute('aria-expanded')).toBe('false')
    expect(await row(page, fork).count()).toBe(0)
    expect(await hasFocus(row(page, alpha))).toBe(true)
    await page.keyboard.press('ArrowRight')
    await eventually(() => row(page, alpha).getAttribute('aria-expanded')).toBe('true')
    await page.keyboard.press('ArrowRight')
    expect(await hasFocus(row(page, fork))).toBe(true)
    await page.keyboard.press('ArrowLeft')
    expect(await hasFocus(row(page, alpha))).toBe(true)

    // Type-ahead: "b" finds beta; Enter opens it (selected and current now), and focus goes
    // on to its message box, as with a click; the tree's Tab stop is now beta.
    await page.keyboard.press('b')
    expect(await hasFocus(row(page, beta))).toBe(true)
    await page.keyboard.press('Enter')
    await eventually(() => openSessionId(page)).toBe(beta)
    expect(await row(page, beta).getAttribute('aria-selected')).toBe('true')
    expect(await row(page, fork).getAttribute('aria-selected')).toBe('false')
    await eventually(() => focusedTestId(page)).toBe('composer-input')
    expect(await tree.locator('[tabindex="0"]').getAttribute('data-session-id')).toBe(beta)

    // A workspace row folds and unfolds with Enter and Right.
    await row(page, beta).focus()
    await page.keyboard.press('Home')
    await page.keyboard.press('Enter')
    await eventually(() => workspace.getAttribute('aria-expanded')).toBe('false')
    expect(await page.getByTestId('session-row').count()).toBe(0)
    await page.keyboard.press('ArrowRight')
    await eventually(() => workspace.getAttribute('aria-expanded')).toBe('true')
    expect(await axeViolations(page)).toEqual([])

    // Filtered, the matches are one flat level; Down from the filter box enters them.
    const filter = page.getByTestId('session-filter')
    await filter.fill('alpha')
    await eventually(() => page.getByTestId('session-row').count()).toBe(2)
    const matches = page.getByRole('tree', { name: 'Matching sessions' })
    expect(await matches.locator('[aria-level="1"]').count()).toBe(2)
    expect(await matches.locator('[aria-setsize="2"]').count()).toBe(2)
    await filter.press('ArrowDown')
    expect(await page.evaluate(() => document.activeElement?.getAttribute('role'))).toBe('treeitem')
    await page.keyboard.press('End')
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-posinset'))).toBe('2')
  })
})

describe.skipIf(!chromiumPath)('web UI: the tree keyboard with hundreds of rows', () => {
  const app = useAppPage()

  it('End and Home reach rows outside the window; only the rows in view are in the DOM', async () => {
    const { page, host } = app
    const count = 300
    const workspaceId = await page.getByTestId('workspace-row').first().getAttribute('data-workspace-id')
    const created: string[] = []
    for (let start = 0; start < count; start += 100) {
      const calls = Array.from({ length: 100 }, (_, i) => ({
        method: 'session.create',
        params: { workspaceId, title: `Row ${String(start + i).padStart(3, '0')}` },
      }))
      created.push(...((await rpcBatch(host, calls)) as { id: string }[]).map((session) => session.id))
    }
    // One fork too: the workspace row counts it (every session, not only the tree's roots).
    const newest = created.at(-1)!
    await rpcBatch(host, [{ method: 'session.prompt', params: { sessionId: newest, text: 'one' } }])
    await rpcBatch(host, [{ method: 'session.fork', params: { sessionId: newest } }])
    const oldest = created[0]!
    const workspaceCount = page.getByTestId('workspace-row').first().locator('.count')
    await eventually(() => workspaceCount.textContent()).toBe(`${count + 1} sessions`)
    expect(await row(page, oldest).count()).toBe(0)
    const first = page.getByTestId('session-row').first()
    expect(await first.getAttribute('aria-setsize')).toBe(String(count))

    await page.getByTestId('workspace-row').first().focus()
    await page.keyboard.press('End')
    // The last row (the oldest session) is rendered, focused and told its place.
    await eventually(() => hasFocus(row(page, oldest))).toBe(true)
    expect(await row(page, oldest).getAttribute('aria-posinset')).toBe(String(count))
    expect(await page.locator('[role="treeitem"]').count()).toBeLessThan(80)
    // Scrolled far away by the wheel, the Tab stop stays in the DOM.
    await page.getByTestId('session-tree').evaluate((element) => {
      element.scrollTop = 0
    })
    await eventually(() => page.getByTestId('workspace-row').count()).toBe(1)
    expect(await row(page, oldest).getAttribute('tabindex')).toBe('0')
    await page.keyboard.press('ArrowUp')
    await eventually(() => hasFocus(row(page, created[1]!))).toBe(true)
    await page.keyboard.press('Home')
    await eventually(() => hasFocus(page.getByTestId('workspace-row').first())).toBe(true)
    expect(await page.locator('[role="treeitem"]').count()).toBeLessThan(80)
  })
})

async function hasFocus(locator: Locator): Promise<boolean> {
  return locator.evaluate((element) => element === document.activeElement)
}

async function sidebarWidth(page: Page): Promise<number> {
  return page.getByTestId('sidebar').evaluate((element) => Math.round(element.getBoundingClientRect().width))
}

/** JSON-RPC over HTTP (docs/protocol.md), one batch of at most 100 calls. */
async function rpcBatch(host: TestHost, calls: { method: string; params: unknown }[]): Promise<unknown[]> {
  const url = new URL(host.url)
  const response = await fetch(`${url.origin}/rpc`, {
    method: 'POST',
    headers: { authorization: `Bearer ${url.searchParams.get('token')}`, 'content-type': 'application/json' },
    body: JSON.stringify(calls.map((call, id) => ({ jsonrpc: '2.0', id, ...call }))),
  })
  const answers = (await response.json()) as { id: number; result?: unknown; error?: { message: string } }[]
  return answers
    .sort((a, b) => a.id - b.id)
    .map((answer) => {
      if (answer.error) throw new Error(answer.error.message)
      return answer.result
    })
}
