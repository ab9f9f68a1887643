// The web UI in real Chromium against a real Host: chat, branch from a turn, edit a message
// in a new branch.
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
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
  openSessionId,
  openWorkspace,
  row,
  screenshot,
  startTestHost,
  type TestHost,
} from './web-harness.js'

failWithoutChromiumInCi()

describe.skipIf(!chromiumPath)('web UI: chat and branches', () => {
  let host: TestHost
  let browser: Browser
  let context: BrowserContext
  let page: Page

  beforeAll(async () => {
    host = await startTestHost()
    browser = await launchBrowser()
  })
  afterEach(() => {
    // The page logs no errors of its own (RPC errors go to the banner, not the console).
    expect(errors).toEqual([])
  })
  afterAll(async () => {
    await browser?.close()
    await host?.close()
  })
  let errors: string[] = []

  beforeEach(async () => {
    await context?.close()
    ;({ context, page, errors } = await newPage(browser))
    await openApp(page, host.url)
  })

  it('chats two turns with Enter and shows both answers', async () => {
    await openWorkspace(page, host.workspace)
    const id = await newSession(page)
    await chat(page, 'hello there')
    await chat(page, 'and a second thing')

    const users = page.getByTestId('user-message')
    await eventually(() => users.allTextContents()).toEqual([
      expect.stringContaining('hello there'),
      expect.stringContaining('and a second thing'),
    ])
    const answers = await page.getByTestId('assistant-message').allTextContents()
    expect(answers).toEqual([expect.stringContaining('Turn 1'), expect.stringContaining('Turn 2')])
    expect(await row(page, id).getAttribute('data-status')).toBe('idle')
    // Shift+Enter adds a line instead of sending.
    const input = page.getByTestId('composer-input')
    await input.fill('line one')
    await input.press('Shift+Enter')
    await input.type('line two')
    expect(await input.inputValue()).toBe('line one\nline two')
    expect(await page.getByTestId('turn').count()).toBe(2)

    // The model picker lists host.info's models; ones without a key are disabled with the reason.
    const picker = page.getByTestId('model-picker')
    expect(await picker.inputValue()).toBe('demo:scripted')
    const disabled = picker.locator('option:disabled')
    expect(await disabled.count()).toBeGreaterThan(0)
    expect(await disabled.first().textContent()).toMatch(/ — \S/)
  })

  it('shows RPC errors in a banner with their code, and dismisses them', async () => {
    await page.getByTestId('workspace-path').fill('/definitely/not/a/folder')
    await page.getByTestId('workspace-open').click()
    const banner = page.getByTestId('error-banner')
    await banner.waitFor()
    expect(await banner.getAttribute('data-code')).toBeTruthy()
    expect(await banner.textContent()).toContain('/definitely/not/a/folder')
    await banner.getByTestId('dismiss-notice').click()
    await eventually(() => banner.count()).toBe(0)
  })

  it('branches from the first turn: the child holds that turn only and sits under its parent', async () => {
    await openWorkspace(page, host.workspace)
    const parent = await newSession(page)
    await chat(page, 'first question')
    await chat(page, 'second question')

    await page.getByTestId('turn').first().getByTestId('branch-from-here').click()
    await page.getByTestId('fork-confirm').click()
    await eventually(() => openSessionId(page)).not.toBe(parent)
    const child = (await openSessionId(page))!

    await eventually(() => page.getByTestId('user-message').allTextContents()).toEqual([
      expect.stringContaining('first question'),
    ])
    await page.getByTestId('fork-divider').waitFor()
    const childRow = row(page, child)
    await childRow.waitFor()
    expect(await childRow.getAttribute('data-parent-id')).toBe(parent)
    expect(await childRow.getAttribute('data-depth')).toBe('1')
    expect(await childRow.getByTestId('fork-point').textContent()).toMatch(/^from #\d+$/)
    expect(await row(page, parent).getByTestId('child-count').textContent()).toBe('1')
    expect(await row(page, parent).getAttribute('aria-expanded')).toBe('true')

    // The child continues on its own; the parent keeps both turns.
    await chat(page, 'child only')
    await row(page, parent).getByTestId('row-title').click()
    await eventually(() => openSessionId(page)).toBe(parent)
    await eventually(() => page.getByTestId('user-message').allTextContents()).toEqual([
      expect.stringContaining('first question'),
      expect.stringContaining('second question'),
    ])
    // The row menu shows the fork point ("from #N") in the parent's transcript.
    const forkedAt = Number((await childRow.getByTestId('fork-point').textContent())!.slice('from #'.length))
    await childRow.focus()
    await page.keyboard.press('Shift+F10')
    await page.getByTestId('menu-show-fork-point').click()
    await eventually(() => openSessionId(page)).toBe(parent)
    await eventually(() => page.locator(`[data-jump-target="${forkedAt}"]`).count()).toBe(1)
    await row(page, child).getByTestId('row-title').click()
    await eventually(() => openSessionId(page)).toBe(child)
    await eventually(() => page.getByTestId('user-message').allTextContents()).toEqual([
      expect.stringContaining('first question'),
      expect.stringContaining('child only'),
    ])
  })

  it('compacts on request: a quiet row with the summary, and the fork dialog says what history a fork gets', async () => {
    await openWorkspace(page, host.workspace)
    await newSession(page)
    await chat(page, 'remember the red door')
    await chat(page, 'and the blue window')
    await page.getByTestId('header-compact').click()
    const row = page.getByTestId('context-compaction')
    await row.waitFor()
    expect(await row.textContent()).toMatch(/Conversation compacted: \d+ events summarised \(manual/)
    await row.locator('summary').click()
    expect(await row.getByTestId('context-summary').textContent()).toContain('remember the red door')

    // Branch… on the first turn: before the compaction, so the full history.
    await page.getByTestId('turn').first().getByTestId('branch-from-here').click()
    const note = page.getByTestId('fork-history')
    await note.waitFor()
    expect(await note.getAttribute('data-kind')).toBe('full')
    expect(await note.textContent()).toContain('full history')
    expect(await axeViolations(page)).toEqual([])
    await page.getByRole('button', { name: 'Cancel' }).click()
    // Branch… on the last turn: the compaction that follows it comes along.
    await page.getByTestId('turn').last().getByTestId('branch-from-here').click()
    await eventually(() => note.getAttribute('data-kind')).toBe('summary')
    await page.getByRole('button', { name: 'Cancel' }).click()

    // The next turn is sent the summary plus the new message (the demo counts one user message).
    await chat(page, 'what do you remember?')
    await eventually(() => page.getByTestId('assistant-message').last().textContent()).toContain('Turn 1')
    expect(await axeViolations(page)).toEqual([])
  })

  it('edits a message in a new branch: the child stops before it and the composer holds its text', async () => {
    await openWorkspace(page, host.workspace)
    const parent = await newSession(page)
    await chat(page, 'keep this one')
    await chat(page, 'rewrite me please')

    await page.getByTestId('user-message').nth(1).getByTestId('edit-in-branch').click()
    // The choice of files comes first; nothing changed files, so the shared folder is offered.
    expect(await page.getByTestId('fork-files-shared').isChecked()).toBe(true)
    await page.getByTestId('fork-confirm').click()
    await eventually(() => openSessionId(page)).not.toBe(parent)
    const child = (await openSessionId(page))!
    await eventually(() => page.getByTestId('composer-input').inputValue()).toBe('rewrite me please')
    await eventually(() => page.getByTestId('user-message').allTextContents()).toEqual([
      expect.stringContaining('keep this one'),
    ])
    expect(await row(page, child).getAttribute('data-parent-id')).toBe(parent)

    // Sending the edited text continues the branch.
    await page.getByTestId('composer-input').fill('rewritten')
    await page.getByTestId('send').click()
    await eventually(() => page.getByTestId('assistant-message').last().textContent()).toContain('rewritten')
  })

  it('keeps what is typed with its session: another session opens with its own (empty) box, and coming back restores it', async () => {
    await openWorkspace(page, host.workspace)
    const first = await newSession(page)
    await chat(page, 'first session')
    const second = await newSession(page)
    await chat(page, 'second session')
    const input = page.getByTestId('composer-input')
    await input.fill('half a thought for the second')
    await row(page, first).getByTestId('row-title').click()
    await eventually(() => openSessionId(page)).toBe(first)
    await eventually(() => input.inputValue()).toBe('')
    await input.fill('a note for the first')
    await row(page, second).getByTestId('row-title').click()
    await eventually(() => openSessionId(page)).toBe(second)
    await eventually(() => input.inputValue()).toBe('half a thought for the second')
    await row(page, first).getByTestId('row-title').click()
    await eventually(() => input.inputValue()).toBe('a note for the first')
  })

  it('shows a branched piece of work: tool calls, changed files, the fork in tree and transcript', async () => {
    await openWorkspace(page, host.workspace)
    const parent = await newSession(page)
    await chat(page, 'write plan.md: 1. split the parser into a lexer and a parser')
    await chat(page, 'read plan.md')
    await page.getByTestId('turn').first().getByTestId('branch-from-here').click()
    await page.getByTestId('fork-confirm').click()
    await eventually(() => openSessionId(page)).not.toBe(parent)
    const child = (await openSessionId(page))!
    await chat(page, 'write plan.md: 1. keep one parser, add error recovery')
    await page.getByTestId('composer-input').fill('Compare both plans and pick the smaller change')

    expect(await row(page, child).getAttribute('data-parent-id')).toBe(parent)
    // The turn's snapshot can arrive just after its end.
    await eventually(() =>
      page.getByTestId('turn').last().getByTestId('changed-file').allTextContents(),
    ).toEqual(['plan.md'])
    expect(await page.getByTestId('fork-divider').count()).toBe(1)
    // The branch is named after its own first message, not its parent's.
    expect(await row(page, child).getByTestId('row-title').textContent()).toContain('keep one parser')
    expect(await row(page, parent).getByTestId('row-title').textContent()).toContain('split the parser')
    await screenshot(page, 'main-view')

    // The transcript with its tool calls opened, and the composer holding a draft.
    const tools = page.getByTestId('tool-call')
    expect(await tools.count()).toBeGreaterThan(1)
    for (const tool of await tools.all()) await tool.locator('summary').click()
    await eventually(() => page.locator('[data-testid="tool-call"][open]').count()).toBe(await tools.count())
    expect(await axeViolations(page)).toEqual([])
  })

  it('lets the keyboard reach and scroll a tool output too long for its box', async () => {
    await openWorkspace(page, host.workspace)
    await newSession(page)
    await chat(page, `write long.txt: ${'a long line of generated text '.repeat(200)}`)
    const tool = page.getByTestId('tool-call').last()
    const summary = tool.locator('summary')
    await summary.focus()
    await page.keyboard.press('Enter')
    const input = tool.getByTestId('tool-input')
    await input.waitFor()
    expect(await input.evaluate((element) => element.scrollHeight > element.clientHeight)).toBe(true)
    expect(await axeViolations(page)).toEqual([])
    // Tab goes from the summary into the scrolling box, named by its label; arrows scroll it.
    await page.keyboard.press('Tab')
    expect(await input.evaluate((element) => element === document.activeElement)).toBe(true)
    expect(await input.getAttribute('aria-label')).toBe('Input of write')
    await page.keyboard.press('PageDown')
    await eventually(() => input.evaluate((element) => element.scrollTop)).toBeGreaterThan(0)
    // A short output needs no scrolling and is no extra stop for Tab.
    expect(await tool.getByTestId('tool-result').getAttribute('tabindex')).toBe(null)
  })
})
