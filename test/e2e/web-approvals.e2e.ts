// Approvals in real Chromium (docs/architecture.md §8, docs/protocol.md
// `session.answerPermission`): with `{"permission": {"bash": "ask"}}` every `run:` of the demo
// model waits on an approval card. Answered with the keyboard only: once, deny (with a reason),
// always; then forks taken through the UI before and after the "always" turn keep exactly the
// rules given before their fork point.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  axeViolations,
  chat,
  chromiumPath,
  endedTurns,
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
  screenshot,
  startTestHost,
  type TestHost,
} from './web-harness.js'

failWithoutChromiumInCi()

interface LoggedEvent {
  type: string
  data: Record<string, unknown>
}

describe.skipIf(!chromiumPath)('web UI: approvals', () => {
  let host: TestHost
  let browser: Browser
  let page: Page
  let configDir: string

  beforeAll(async () => {
    configDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-web-config-'))
    const configFile = path.join(configDir, 'config.json')
    fs.writeFileSync(configFile, JSON.stringify({ permission: { bash: 'ask' } }))
    host = await startTestHost({ TANGENT_CONFIG: configFile })
    browser = await launchBrowser()
    ;({ page } = await newPage(browser, { width: 1200, height: 820 }))
  })
  afterAll(async () => {
    await browser?.close()
    await host?.close()
    if (configDir) fs.rmSync(configDir, { recursive: true, force: true })
  })

  it('answers once, deny and always with the keyboard; forks keep the rules given before their point', async () => {
    const file = (name: string) => path.join(host.workspace, name)
    fs.writeFileSync(file('keep.txt'), 'keep me\n')
    await openApp(page, host.url)
    await openWorkspace(page, host.workspace)
    const parent = await newSession(page)

    // 1. Allow once: the card takes focus from the composer, Enter on "Allow once" runs the call.
    await send(page, 'run: echo one > one.txt')
    await waitForCard(page, 'echo one > one.txt')
    expect(await focusedTestId(page)).toBe('approval-once')
    expect(await page.getByRole('group', { name: 'Approval needed: bash echo one > one.txt' }).count()).toBe(
      1,
    )
    expect(await page.getByTestId('approval-announcer').textContent()).toBe(
      'Approval needed: bash echo one > one.txt',
    )
    // Nothing ran while the card waits, and the open session's tree row says so in words.
    expect(fs.existsSync(file('one.txt'))).toBe(false)
    expect(await row(page, parent).getByTestId('row-needs-approval').textContent()).toBe('needs approval')
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, 'approval-card')
    await page.keyboard.press('Enter')
    await turnEnded(page, 1)
    expect(fs.readFileSync(file('one.txt'), 'utf8')).toBe('one\n')
    expect(await lastToolApproval(page)).toBe('Allowed once')
    expect(await focusedTestId(page)).toBe('composer-input')
    expect(await row(page, parent).getByTestId('row-needs-approval').count()).toBe(0)

    // 2. Deny with a reason: Tab to the reason field, type it, Enter denies; nothing is removed.
    await send(page, 'run: rm keep.txt')
    await waitForCard(page, 'rm keep.txt')
    expect(await focusedTestId(page)).toBe('approval-once')
    await page.keyboard.press('Tab')
    expect(await focusedTestId(page)).toBe('approval-always')
    await page.keyboard.press('Tab')
    expect(await focusedTestId(page)).toBe('approval-deny')
    await page.keyboard.press('Tab')
    expect(await focusedTestId(page)).toBe('approval-reason')
    // Typing in the reason never fires the y / a / n shortcuts.
    await page.keyboard.type('keep that file')
    expect(await page.getByTestId('approval-card').count()).toBe(1)
    await page.keyboard.press('Enter')
    await turnEnded(page, 2)
    expect(fs.existsSync(file('keep.txt'))).toBe(true)
    expect(await lastToolApproval(page)).toBe('Denied: keep that file')
    const denied = page.getByTestId('tool-call').last()
    await denied.locator('summary').click()
    expect(await denied.getByTestId('tool-result').textContent()).toMatch(
      /Permission denied by the user: the tool did not run\..*keep that file/,
    )

    // 3. Always allow `bash touch`: this call runs, and the next touch runs without a card.
    await page.getByTestId('composer-input').focus()
    await send(page, 'run: touch three.txt')
    await waitForCard(page, 'touch three.txt')
    expect(await page.getByTestId('approval-always').textContent()).toBe('Always allow touch')
    await page.keyboard.press('Tab')
    await page.keyboard.press('Enter')
    await turnEnded(page, 3)
    expect(fs.existsSync(file('three.txt'))).toBe(true)
    expect(await lastToolApproval(page)).toBe('Allowed always: bash touch')
    await chat(page, 'run: touch four.txt')
    expect(fs.existsSync(file('four.txt'))).toBe(true)
    expect(await page.getByTestId('tool-approval').count()).toBe(3)
    expect(await page.getByTestId('approval-card').count()).toBe(0)

    const parentLog = await log(host, parent)
    expect(answers(parentLog)).toEqual([
      { callId: expect.any(String), decision: 'once', by: 'user' },
      { callId: expect.any(String), decision: 'deny', reason: 'keep that file', by: 'user' },
      {
        callId: expect.any(String),
        decision: 'always',
        rule: { tool: 'bash', pattern: 'touch' },
        by: 'user',
      },
    ])
    expect(parentLog.filter((event) => event.type === 'permission/requested')).toHaveLength(3)

    // 4. A branch after the "always" turn keeps the rule: touch runs without a card.
    const after = await branchFromTurn(page, 3)
    await chat(page, 'run: touch five.txt')
    expect(fs.existsSync(file('five.txt'))).toBe(true)
    expect(await page.getByTestId('approval-card').count()).toBe(0)
    const afterLog = await log(host, after)
    expect(rules(afterLog)).toEqual([{ tool: 'bash', pattern: 'touch' }])
    expect(afterLog.filter((event) => event.type === 'permission/requested')).toHaveLength(3)

    // 5. A branch before it has no rule: touch asks again; `n` on the card denies.
    await row(page, parent).getByTestId('row-title').click()
    await eventually(() => openSessionId(page)).toBe(parent)
    const before = await branchFromTurn(page, 2)
    await page.getByTestId('composer-input').focus()
    await send(page, 'run: touch six.txt')
    await waitForCard(page, 'touch six.txt')
    expect(await focusedTestId(page)).toBe('approval-once')
    await page.keyboard.press('n')
    await eventually(() => endedTurns(page)).toBe(3)
    expect(fs.existsSync(file('six.txt'))).toBe(false)
    expect(await lastToolApproval(page)).toBe('Denied')
    const beforeLog = await log(host, before)
    expect(rules(beforeLog)).toEqual([])
    expect(answers(beforeLog).map((answer) => answer.decision)).toEqual(['once', 'deny', 'deny'])
  }, 120_000)

  it('shows a long command whole, scrollable by keyboard, and the exact scope of "Always allow"', async () => {
    await openApp(page, host.url)
    await openWorkspace(page, host.workspace)
    await newSession(page)
    // The end of the line is what a cut would hide.
    const command = `echo ${'x'.repeat(3000)} ${'y'.repeat(40)}; touch hidden.txt`
    await page.getByTestId('composer-input').focus()
    await send(page, `run: ${command}`)
    const card = await waitForCard(page, command)
    const always = card.getByTestId('approval-always')
    // Two different commands in one line: "always" keeps that exact line, and the button says so.
    expect(await always.textContent()).toBe('Always allow this exact command')
    // The button's description says the scope in words, with the whole line.
    const description = await always.evaluate(
      (button) => document.getElementById(button.getAttribute('aria-describedby') ?? '')?.textContent,
    )
    expect(description).toContain(`only this bash command, character for character: “${command}”`)
    // The box scrolls (long input) and is reached with the keyboard: Shift+Tab from "Allow once".
    const subject = card.getByTestId('approval-subject')
    expect(await subject.evaluate((box) => box.scrollHeight > box.clientHeight)).toBe(true)
    expect(await focusedTestId(page)).toBe('approval-once')
    await page.keyboard.press('Shift+Tab')
    expect(await focusedTestId(page)).toBe('approval-subject')
    await page.keyboard.press('End')
    await eventually(() => subject.evaluate((box) => box.scrollTop > 0)).toBe(true)
    expect(await axeViolations(page)).toEqual([])
    await page.keyboard.press('n')
    await turnEnded(page, 1)
    expect(fs.existsSync(path.join(host.workspace, 'hidden.txt'))).toBe(false)
  })

  it('typing on after sending never answers the card: the text stays the person’s (in the composer, then queued), the call waits', async () => {
    await openApp(page, host.url)
    await openWorkspace(page, host.workspace)
    const session = await newSession(page)
    const input = page.getByTestId('composer-input')
    // 1. The person keeps writing while the card appears: it does not take focus from them.
    await input.fill('run: echo typed > typed.txt')
    await input.press('Enter')
    await input.pressSequentially('and also check the README', { delay: 40 })
    const card = page.getByTestId('approval-card')
    await card.waitFor()
    await input.pressSequentially(' please', { delay: 40 })
    expect(await input.inputValue()).toBe('and also check the README please')
    expect(await focusedTestId(page)).toBe('composer-input')
    expect(fs.existsSync(path.join(host.workspace, 'typed.txt'))).toBe(false)
    expect(await card.count()).toBe(1)
    await card.getByTestId('approval-deny').click()
    await turnEnded(page, 1)
    // 2. The card took focus from an empty composer, and the next keys come at once (y, n, a,
    // space, Enter): none answers; the characters go back to the composer.
    await input.fill('')
    await send(page, 'run: echo fast > fast.txt')
    await card.waitFor()
    expect(await focusedTestId(page)).toBe('approval-once')
    expect(await card.getAttribute('data-armed')).toBe('false')
    await page.keyboard.type('yna ok')
    await page.keyboard.press('Enter')
    // The keys went to the composer, and Enter there queues the text as the next message
    // (issue 28): it answers nothing.
    await eventually(() => page.getByTestId('queued-text').textContent()).toBe('yna ok')
    expect(await input.inputValue()).toBe('')
    await page.getByTestId('queued-cancel').click()
    await eventually(() => page.getByTestId('queued-message').count()).toBe(0)
    await page.locator('[data-testid="approval-card"][data-armed="true"]').waitFor()
    expect(fs.existsSync(path.join(host.workspace, 'fast.txt'))).toBe(false)
    const events = await log(host, session)
    expect(answers(events)).toEqual([{ callId: expect.any(String), decision: 'deny', by: 'user' }])
    await card.getByTestId('approval-once').click()
    await turnEnded(page, 2)
    expect(fs.readFileSync(path.join(host.workspace, 'fast.txt'), 'utf8')).toBe('fast\n')
  })
})

/** Types a message and sends it with Enter, without waiting for its turn to end. */
async function send(page: Page, text: string): Promise<void> {
  const input = page.getByTestId('composer-input')
  await input.fill(text)
  await input.press('Enter')
}

/** The card, once it answers keys (a new card ignores them for a moment: armDelayMs). */
async function waitForCard(page: Page, subject: string) {
  const card = page.getByTestId('approval-card')
  await card.waitFor()
  expect(await card.getByTestId('approval-subject').textContent()).toBe(subject)
  await page.locator('[data-testid="approval-card"][data-armed="true"]').waitFor()
  return card
}

async function turnEnded(page: Page, count: number): Promise<void> {
  await eventually(() => endedTurns(page)).toBe(count)
  await eventually(() => page.getByTestId('approval-card').count()).toBe(0)
}

async function lastToolApproval(page: Page): Promise<string | null> {
  return page.getByTestId('tool-call').last().getByTestId('tool-approval').textContent()
}

/** "Branch from here" on the open session's `n`th turn (1-based); resolves to the new branch's id. */
async function branchFromTurn(page: Page, n: number): Promise<string> {
  const from = await openSessionId(page)
  await page
    .getByTestId('turn')
    .nth(n - 1)
    .getByTestId('branch-from-here')
    .click()
  // In the parent's folder, where the test looks for the files its commands make.
  await page.getByTestId('fork-files-shared').check()
  await page.getByTestId('fork-confirm').click()
  await eventually(() => openSessionId(page)).not.toBe(from)
  await page.locator('[data-testid="transcript"][data-loading="false"]').waitFor()
  return (await openSessionId(page))!
}

/** A session's whole log (a fork's includes its parent's prefix), over HTTP RPC. */
async function log(host: TestHost, sessionId: string): Promise<LoggedEvent[]> {
  const url = new URL(host.url)
  const response = await fetch(new URL('/rpc', url.origin), {
    method: 'POST',
    headers: { authorization: `Bearer ${url.searchParams.get('token')}`, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session.get', params: { sessionId } }),
  })
  const body = (await response.json()) as { result: { events: LoggedEvent[] } }
  return body.result.events
}

function answers(events: LoggedEvent[]): Record<string, unknown>[] {
  return events.filter((event) => event.type === 'permission/answered').map((event) => event.data)
}

/** The `always` rules a log holds: what a session (or a fork of it) allows without asking. */
function rules(events: LoggedEvent[]): unknown[] {
  return answers(events)
    .filter((answer) => answer.decision === 'always')
    .map((answer) => answer.rule)
}
