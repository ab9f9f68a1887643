// The web UI in real Chromium against a real Host: the open session's context meter (live as
// steps end), each completed turn's tokens and cost, and tokens and cost per side of the
// compare view. The demo model reports usage (about 4 characters a token) and costs nothing.
import { describe, expect, it } from 'vitest'
import {
  axeViolations,
  chat,
  chromiumPath,
  eventually,
  failWithoutChromiumInCi,
  newSession,
  openSessionId,
  screenshot,
  useAppPage,
} from './web-harness.js'

failWithoutChromiumInCi()

const meterLabel = /^Context \d+ of 4.1k tokens \((under 1|\d+)%\)$/
const usageText = /^in \d+ · out \d+ · \$0$/

describe.skipIf(!chromiumPath)('web UI: usage, cost and the context meter', () => {
  const app = useAppPage()

  it('shows the context meter live, each turn’s usage, and tokens and cost per side when comparing', async () => {
    const { page } = app
    const parent = await newSession(page)
    await chat(page, 'hello there')

    const meter = page.getByRole('meter')
    await eventually(() => meter.getAttribute('aria-label')).toMatch(meterLabel)
    expect(await meter.evaluate((element: HTMLMeterElement) => [element.min, element.max])).toEqual([0, 4096])
    const firstValue = await meter.evaluate((element: HTMLMeterElement) => element.value)
    expect(firstValue).toBeGreaterThan(0)
    expect(await page.getByTestId('context-text').textContent()).toBe(await meter.getAttribute('aria-label'))
    expect(await page.getByTestId('session-cost').textContent()).toBe('cost $0')
    await eventually(() => page.getByTestId('turn-usage').allTextContents()).toEqual([
      expect.stringMatching(usageText),
    ])

    // A second turn sends the first again: the meter grows as its step ends, without a reload.
    await chat(page, 'and a much longer second message, to fill the context a little more')
    await eventually(() => meter.evaluate((element: HTMLMeterElement) => element.value)).toBeGreaterThan(
      firstValue,
    )
    await eventually(() => page.getByTestId('turn-usage').count()).toBe(2)
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, 'usage-meter')

    // Branch from the first turn, run a turn there, and compare with the parent.
    await page.getByTestId('turn').first().getByTestId('branch-from-here').click()
    await page.getByTestId('fork-confirm').click()
    await eventually(() => openSessionId(page)).not.toBe(parent)
    await page.locator('[data-testid="transcript"][data-loading="false"]').waitFor()
    await chat(page, 'on the branch')
    await page.getByTestId('header-compare').click()
    const sides = page.getByTestId('compare-usage')
    await eventually(() => sides.count()).toBe(2)
    // The parent (a) ran one turn after the fork point, the branch (b) one: both free, both counted.
    for (const testId of ['compare-a', 'compare-b']) {
      const side = page.getByTestId(testId)
      expect(await side.getByTestId('compare-usage-own').textContent()).toMatch(usageText)
      expect(await side.getByTestId('compare-usage-total').textContent()).toMatch(usageText)
    }
    const ownTokens = async (testId: string) =>
      Number(
        (await page.getByTestId(testId).getByTestId('compare-usage-own').textContent())!.match(
          /^in (\d+)/,
        )![1],
      )
    expect(await ownTokens('compare-a')).toBeGreaterThan(0)
    expect(await ownTokens('compare-b')).toBeGreaterThan(0)
    expect(await axeViolations(page)).toEqual([])
    await screenshot(page, 'usage-compare')
    // The page logged no errors of its own (useAppPage's page collects them).
    expect((app as typeof app & { errors: string[] }).errors).toEqual([])
  })
})
