// Resuming in the web UI (docs/architecture.md §12.6): the page remembers the session open
// last in each workspace — a reload shows it again, and so does a new tab of the same browser
// and coming back to the workspace after working in another.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  axeViolations,
  chat,
  chromiumPath,
  eventually,
  failWithoutChromiumInCi,
  newSession,
  openApp,
  openSessionId,
  openWorkspace,
  useAppPage,
} from './web-harness.js'

failWithoutChromiumInCi()

describe.skipIf(!chromiumPath)('web UI: resuming', () => {
  const app = useAppPage()

  it('reopens the session of each workspace after a reload, in a new tab and on switching back', async () => {
    const { page, context, host } = app
    const first = await newSession(page)
    await chat(page, 'remember me')

    const other = path.join(path.dirname(host.workspace), 'second-folder')
    fs.mkdirSync(other, { recursive: true })
    await openWorkspace(page, other)
    // Nothing remembered there yet: the open session stays.
    expect(await openSessionId(page)).toBe(first)
    const second = await newSession(page)
    expect(second).not.toBe(first)

    await openWorkspace(page, host.workspace)
    await eventually(() => openSessionId(page)).toBe(first)
    await openWorkspace(page, other)
    await eventually(() => openSessionId(page)).toBe(second)

    await page.reload()
    await eventually(() => page.getByTestId('connection').textContent()).toBe('connected')
    await eventually(() => openSessionId(page)).toBe(second)

    // A new tab has no address to go by: the start folder's workspace and its last session.
    const tab = await context.newPage()
    await openApp(tab, host.url)
    await eventually(() => openSessionId(tab)).toBe(first)
    await tab.locator('[data-testid="transcript"][data-loading="false"]').waitFor()
    expect(await tab.getByTestId('transcript').textContent()).toContain('remember me')
    expect(await axeViolations(tab)).toEqual([])
    await tab.close()
  })
})
