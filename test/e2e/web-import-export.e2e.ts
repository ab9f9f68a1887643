// Import… and Export… in the web UI, in real Chromium against a real Host: a Claude Code session
// file chosen in the file field becomes a session and its rewind branch in the tree; "From Claude
// Code" imports the open folder's sessions from where Claude Code keeps them (CLAUDE_CONFIG_DIR); a
// file past one Host message is uploaded in pieces;
// Export downloads a bundle and Markdown; the dialogs work from the keyboard and pass axe-core.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Browser, Download, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  axeViolations,
  chromiumPath,
  eventually,
  failWithoutChromiumInCi,
  focusedTestId,
  launchBrowser,
  newPage,
  openApp,
  openSessionId,
  openWorkspace,
  row,
  startTestHost,
  type TestHost,
} from './web-harness.js'

failWithoutChromiumInCi()

const fixtures = path.resolve(import.meta.dirname, '../fixtures/imports/claude')
const recordedCwd = '/tmp/tangent-claude-fixtures-2.1.332/project'

describe.skipIf(!chromiumPath)('web UI: import and export', () => {
  let host: TestHost
  let browser: Browser
  let page: Page
  let errors: string[]
  let work: string
  let claudeConfig: string

  beforeAll(async () => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-web-import-'))
    claudeConfig = path.join(work, 'claude-config')
    host = await startTestHost({ CLAUDE_CONFIG_DIR: claudeConfig })
    browser = await launchBrowser()
    ;({ page, errors } = await newPage(browser))
  })
  afterAll(async () => {
    await browser?.close()
    await host?.close()
    fs.rmSync(work, { recursive: true, force: true })
  })

  /** A download's text (the browser may be remote: saved to a file here first). */
  const downloaded = async (download: Download) => {
    const file = path.join(work, `download-${Date.now()}-${download.suggestedFilename()}`)
    await download.saveAs(file)
    return fs.readFileSync(file, 'utf8')
  }

  /** A fixture of Claude Code's, recorded in the workspace folder of this Host. */
  const claudeFile = (name: string) =>
    fs
      .readFileSync(path.join(fixtures, name), 'utf8')
      .replaceAll(recordedCwd, fs.realpathSync(host.workspace))

  it('imports a Claude Code file chosen in the file field: the session and its branch appear in the tree', async () => {
    const file = path.join(work, '11111111-1111-4111-8111-111111111111.jsonl')
    fs.writeFileSync(file, claudeFile('tools-branch-compact.jsonl'))
    const junk = path.join(work, 'notes.jsonl')
    fs.writeFileSync(junk, '{"hello":"world"}\n')
    await openApp(page, host.url)
    await openWorkspace(page, host.workspace)

    // Keyboard: the sidebar's Import… opens the dialog with Enter; focus is inside it.
    await page.getByTestId('import-open').focus()
    await page.keyboard.press('Enter')
    const dialog = page.getByTestId('import-dialog')
    await dialog.waitFor()
    expect(await page.evaluate(() => document.activeElement?.closest('dialog') !== null)).toBe(true)
    expect(await axeViolations(page)).toEqual([])

    await page.getByTestId('import-file-input').setInputFiles([file, junk])
    await page.getByTestId('import-files').click()
    const summary = page.getByTestId('import-summary')
    await eventually(() => summary.textContent()).toBe('2 sessions imported, 1 file not imported.')
    // The results are inside the polite live region, and focus moved to them.
    expect(await page.getByTestId('import-results').getAttribute('aria-live')).toBe('polite')
    await eventually(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(
      'Import results',
    )
    expect(await page.getByTestId('import-error').textContent()).toMatch(
      /not a file Tangent knows how to import/,
    )
    expect(await page.getByTestId('imported-session').count()).toBe(2)
    expect(await axeViolations(page)).toEqual([])
    await page.screenshot({ path: '/tmp/web-import.png' })

    // Open the first: the dialog closes, the session opens, its branch is its child in the tree.
    await page.getByTestId('imported-session').first().getByRole('button').click()
    await dialog.waitFor({ state: 'detached' })
    await eventually(() => openSessionId(page)).not.toBeNull()
    const mainId = (await openSessionId(page))!
    await row(page, mainId).waitFor()
    // Its branch is its fork in the tree: shown when the row is expanded (the right arrow).
    expect(await row(page, mainId).getAttribute('aria-expanded')).toBe('false')
    await row(page, mainId).click({ position: { x: 14, y: 10 } })
    const branch = page.locator(`[data-testid="session-row"][data-parent-id="${mainId}"]`)
    await branch.waitFor()
    expect(await branch.count()).toBe(1)
    expect(Number(await branch.getAttribute('data-depth'))).toBe(
      Number(await row(page, mainId).getAttribute('data-depth')) + 1,
    )
    expect(await branch.getByTestId('row-title').textContent()).toMatch(/branch 1/)
    expect(await page.getByTestId('turn').count()).toBeGreaterThan(0)
  })

  it('"From Claude Code" imports the open folder\'s sessions from CLAUDE_CONFIG_DIR; a 1.5 MiB file goes up in pieces', async () => {
    const key = fs.realpathSync(host.workspace).replace(/[^a-zA-Z0-9]/g, '-')
    const folder = path.join(claudeConfig, 'projects', key)
    fs.mkdirSync(folder, { recursive: true })
    fs.writeFileSync(
      path.join(folder, 'f2ba3222-43be-4432-b497-c52eb2b577c0.jsonl'),
      claudeFile('fork-session.jsonl'),
    )
    await page.getByTestId('import-open').click()
    await page.getByTestId('import-from-claude').click()
    await eventually(() => page.getByTestId('import-summary').textContent()).toMatch(
      /^\d+ sessions? imported\.$/,
    )
    // Again: nothing new.
    await page.getByTestId('import-from-claude').click()
    await eventually(() => page.getByTestId('import-summary').textContent()).toMatch(
      /^No new sessions, \d+ already here\.$/,
    )
    // A file past one Host message (1.5 MiB, non-ASCII too) goes up in pieces from the page.
    const long = `${'forks and branches é “quoted” 🌳 '.repeat(50_000)}end`
    const lines = claudeFile('fork-session.jsonl')
      .replaceAll('f2ba3222-43be-4432-b497-c52eb2b577c0', '33333333-3333-4333-8333-333333333333')
      .split('\n')
    const first = lines.findIndex((line) => line.includes('"type":"user"'))
    const record = JSON.parse(lines[first]!) as { message: { content: unknown } }
    record.message.content = long
    lines[first] = JSON.stringify(record)
    const big = path.join(work, '33333333-3333-4333-8333-333333333333.jsonl')
    fs.writeFileSync(big, lines.join('\n'))
    expect(fs.statSync(big).size).toBeGreaterThan(1.4 * 1024 * 1024)
    await page.getByTestId('import-file-input').setInputFiles(big)
    await page.getByTestId('import-files').click()
    await eventually(() => page.getByTestId('import-summary').textContent()).toMatch(
      /^\d+ sessions? imported\.$/,
    )

    // Esc closes; focus goes back to the Import… button.
    await page.keyboard.press('Escape')
    await page.getByTestId('import-dialog').waitFor({ state: 'detached' })
    expect(await focusedTestId(page)).toBe('import-open')
  })

  it('Export… downloads the open session as a bundle, as Markdown and as a Claude Code session', async () => {
    const sessionId = (await openSessionId(page))!
    await row(page, sessionId).getByTestId('row-menu-button').click()
    await page.getByTestId('menu-export').click()
    await page.getByTestId('export-dialog').waitFor()
    expect(await axeViolations(page)).toEqual([])

    const [bundle] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('export-download').click(),
    ])
    expect(bundle.suggestedFilename()).toBe(`${sessionId}.tangent.jsonl`)
    const lines = (await downloaded(bundle)).trim().split('\n')
    expect(JSON.parse(lines[0]!)).toMatchObject({ format: 'tangent-bundle', sessionId })
    expect(lines.length).toBeGreaterThan(3)
    await eventually(() => page.getByTestId('export-status').textContent()).toMatch(/^Downloaded /)
    await page.screenshot({ path: '/tmp/web-export.png' })

    // Markdown, chosen with the keyboard (arrow keys move through the radio group).
    await page.getByTestId('export-format-jsonl').focus()
    await page.keyboard.press('ArrowDown')
    expect(await page.getByTestId('export-format-md').isChecked()).toBe(true)
    const [markdown] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('export-download').click(),
    ])
    expect(markdown.suggestedFilename()).toBe(`${sessionId}.md`)
    expect(await downloaded(markdown)).toContain('Make notes.txt')

    // A file Claude Code resumes: named as Claude Code names it, with where it looks and how to resume.
    await page.getByTestId('export-format-claude').check()
    const [claude] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('export-download').click(),
    ])
    expect(claude.suggestedFilename()).toMatch(/^[0-9a-f-]{36}\.jsonl$/)
    expect(JSON.parse((await downloaded(claude)).split('\n')[0]!)).toHaveProperty('sessionId')
    await eventually(() => page.getByTestId('export-status').textContent()).toMatch(
      /Claude Code looks for it at ~\/\.claude\/projects\/.*then run claude --resume [0-9a-f-]{36}/,
    )
    await page.screenshot({ path: '/tmp/web-export-claude.png' })
    expect(await axeViolations(page)).toEqual([])
    await page.keyboard.press('Escape')
    expect(errors).toEqual([])
  })
})
