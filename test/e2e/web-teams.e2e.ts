// Teams across machines in the web UI (issue 29), real Chromium against two real Hosts on one real
// PostgreSQL database, each with its own data directory and TANGENT_MACHINE: machine B lists A's
// session with A's name, says where its files are, and "Continue on this machine" forks it into a
// worktree on B holding the fork point's files (from the database), which then runs on B.
import fs from 'node:fs'
import path from 'node:path'
import { connectHostApi } from '@tangent/host'
import type { SessionApi } from '@tangent/runtime'
import { postgresAvailable, startTestPostgres, type TestPostgres } from '@tangent/store-postgres/test-support'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  axeViolations,
  chat,
  chromiumPath,
  eventually,
  failWithoutChromiumInCi,
  launchBrowser,
  newPage,
  openApp,
  openSessionId,
  openWorkspace,
  row,
  screenshot,
  startTestHost,
  type TestHost,
} from './web-harness.js'

failWithoutChromiumInCi()
const pgMissing = !postgresAvailable()
if (pgMissing && process.env.CI) throw new Error('CI is set but the PostgreSQL server binaries are missing')

describe.skipIf(!chromiumPath || pgMissing)('web UI: a teammate’s session from another machine', () => {
  let server: TestPostgres
  let a: TestHost
  let b: TestHost
  let apiA: SessionApi
  let browser: Browser
  let page: Page

  beforeAll(async () => {
    server = await startTestPostgres()
    const store = await server.createDatabase('web_teams', { migrated: true })
    a = await startTestHost({ TANGENT_STORE: store, TANGENT_MACHINE: 'laptop-a' })
    b = await startTestHost({ TANGENT_STORE: store, TANGENT_MACHINE: 'laptop-b' })
    const url = new URL(a.url)
    apiA = await connectHostApi({ url: url.origin, token: url.searchParams.get('token')! })
    browser = await launchBrowser()
    ;({ page } = await newPage(browser))
  }, 120_000)
  afterAll(async () => {
    await apiA?.close()
    await browser?.close()
    await b?.close()
    await a?.close()
    await server?.stop()
  })

  it('lists it as laptop-a’s, and "Continue on this machine" forks it into a worktree on B that runs there', async () => {
    // On A: a session that writes a file, then changes it after the turn B will fork at.
    const session = await apiA.call('session.create', { cwd: a.workspace, title: 'Parser fix' })
    const first = await apiA.call('session.prompt', { sessionId: session.id, text: 'write notes.txt: one' })
    await apiA.call('session.prompt', { sessionId: session.id, text: 'write notes.txt: two' })

    await openApp(page, b.url)
    await openWorkspace(page, b.workspace)
    const source = row(page, session.id)
    await source.waitFor()
    expect(await source.getByTestId('row-machine').textContent()).toBe('laptop-a')
    await source.getByTestId('row-title').click()
    await eventually(() => openSessionId(page)).toBe(session.id)
    const badge = page.getByTestId('file-badge')
    expect(await badge.getAttribute('data-machine')).toBe('laptop-a')
    expect(await badge.textContent()).toContain('files on laptop-a')
    expect(await axeViolations(page)).toEqual([])

    // Fork at the first turn: the dialog offers to continue here, with B's folder of the project.
    await page
      .locator(`[data-testid="turn"][data-end-seq="${first.turnEndSeq}"]`)
      .getByTestId('branch-from-here')
      .click()
    const dialog = page.getByTestId('fork-dialog')
    await dialog.waitFor()
    expect(await dialog.getByTestId('fork-elsewhere').textContent()).toContain('laptop-a')
    expect(await dialog.getByTestId('fork-files-worktree').isChecked()).toBe(true)
    await dialog.getByTestId('fork-folder').fill(b.workspace)
    expect(await dialog.getByTestId('fork-confirm').textContent()).toBe('Continue on this machine')
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, 'teams-fork-dialog')
    await dialog.getByTestId('fork-confirm').click()
    await eventually(() => openSessionId(page)).not.toBe(session.id)
    const childId = (await openSessionId(page))!
    await page.locator('[data-testid="transcript"][data-loading="false"]').waitFor()

    // The child is B's: its own worktree holding notes.txt as it was at the fork point.
    const child = (await apiA.call('session.get', { sessionId: childId })).session
    expect(child.files).toMatchObject({ mode: 'worktree', machine: 'laptop-b', elsewhere: true })
    expect(child.cwd.startsWith(b.home)).toBe(true)
    expect(fs.readFileSync(path.join(child.cwd, 'notes.txt'), 'utf8')).toBe('one\n')
    expect(await page.getByTestId('file-badge').getAttribute('data-mode')).toBe('worktree')
    expect(await row(page, childId).getByTestId('row-machine').count()).toBe(0)

    // It runs on B; A's folder keeps A's file.
    await chat(page, 'write notes.txt: three')
    expect(fs.readFileSync(path.join(child.cwd, 'notes.txt'), 'utf8')).toBe('three\n')
    expect(fs.readFileSync(path.join(a.workspace, 'notes.txt'), 'utf8')).toBe('two\n')
    await screenshot(page, 'teams-continued')
  }, 120_000)
})
