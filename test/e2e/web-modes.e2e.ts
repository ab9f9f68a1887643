// The web UI in real Chromium against a real Host: the session's mode (docs/architecture.md
// §12.1) from the picker beside the model's — a new session starts in the mode picked before it,
// ask makes the demo model's write wait for an answer, plan refuses it, the header and the
// transcript say the mode, a reload keeps it, and the picker works from the keyboard.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  axeViolations,
  chat,
  chromiumPath,
  endedTurns,
  eventually,
  failWithoutChromiumInCi,
  newSession,
  openSessionId,
  screenshot,
  useAppPage,
} from './web-harness.js'

failWithoutChromiumInCi()

describe.skipIf(!chromiumPath)('web UI: session modes', () => {
  const app = useAppPage()

  it('ask then plan: the write waits, then is refused; the header says the mode, a reload keeps it; keyboard switches back', async () => {
    const { page, host } = app
    const picker = page.getByRole('combobox', { name: 'Mode', exact: true })
    // No session open: the mode picked is the next new session's.
    expect(await openSessionId(page)).toBeNull()
    expect(await picker.inputValue()).toBe('edit')
    expect(await picker.locator('option').allTextContents()).toEqual([
      'Ask before edits',
      'Accept edits',
      'Plan, read-only',
    ])
    await picker.selectOption('ask')
    const sessionId = await newSession(page)
    await eventually(() => page.getByTestId('session-mode').textContent()).toBe('Ask before edits')
    expect(await picker.inputValue()).toBe('ask')

    // Ask: even the demo model's write waits for an answer.
    const input = page.getByTestId('composer-input')
    await input.fill('write asked.txt: a')
    await input.press('Enter')
    await page.getByTestId('approval-card').waitFor()
    expect(fs.existsSync(path.join(host.workspace, 'asked.txt'))).toBe(false)
    await page.getByTestId('approval-once').click()
    await eventually(() => endedTurns(page)).toBe(1)
    expect(fs.readFileSync(path.join(host.workspace, 'asked.txt'), 'utf8')).toBe('a\n')

    await picker.selectOption('plan')
    await eventually(() => page.getByTestId('session-mode').textContent()).toBe('Plan, read-only')
    expect(await picker.getAttribute('title')).toContain('Only read, list and grep run')

    await chat(page, 'write planned.txt: x')
    expect(fs.existsSync(path.join(host.workspace, 'planned.txt'))).toBe(false)
    await eventually(() => page.getByTestId('transcript').textContent()).toContain('plan mode')
    expect(await page.getByTestId('mode-divider').allTextContents()).toEqual([
      'mode Ask before edits',
      'mode Plan, read-only',
    ])
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, 'mode-plan')

    await page.reload()
    await eventually(() => page.getByTestId('connection').textContent()).toBe('connected')
    await eventually(() => openSessionId(page)).toBe(sessionId)
    await eventually(() => page.getByRole('combobox', { name: 'Mode', exact: true }).inputValue()).toBe(
      'plan',
    )
    await eventually(() => page.getByTestId('session-mode').textContent()).toBe('Plan, read-only')

    // From the keyboard: focus the picker, one up is "Accept edits"; the next write runs.
    const again = page.getByRole('combobox', { name: 'Mode', exact: true })
    await again.focus()
    await page.keyboard.press('ArrowUp')
    await eventually(() => again.inputValue()).toBe('edit')
    await eventually(() => page.getByTestId('session-mode').count()).toBe(0)
    await chat(page, 'write edited.txt: y')
    await eventually(() => fs.existsSync(path.join(host.workspace, 'edited.txt'))).toBe(true)
    expect((app as typeof app & { errors: string[] }).errors).toEqual([])
  })
})
