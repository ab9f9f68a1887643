// A page whose token the Host does not take (the Host restarted with a new one, or the address
// had none) in real Chromium: it says so and what to do, instead of "Retrying…" for ever; the
// same page with the right token connects (docs/architecture.md §8).
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  chromiumPath,
  eventually,
  failWithoutChromiumInCi,
  launchBrowser,
  newPage,
  openApp,
  startTestHost,
  type TestHost,
} from './web-harness.js'

failWithoutChromiumInCi()

describe.skipIf(!chromiumPath)('web UI: a token the Host refuses', () => {
  let host: TestHost
  let browser: Browser

  beforeAll(async () => {
    host = await startTestHost()
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
    await host?.close()
  })

  it('says the token is not accepted and where the right address is; the right token connects', async () => {
    for (const address of [
      host.url.replace(/token=[^&#]+/, 'token=not-the-token'),
      host.url.split('?')[0]!,
    ]) {
      const { context, page } = await newPage(browser)
      await page.goto(address)
      const banner = page.getByTestId('connection-lost')
      await eventually(() => banner.textContent()).toContain('does not accept this page’s token')
      expect(await banner.textContent()).toContain('tangent serve')
      await context.close()
    }
    const { context, page, errors } = await newPage(browser)
    await openApp(page, host.url)
    expect(await page.getByTestId('connection-lost').count()).toBe(0)
    expect(errors).toEqual([])
    await context.close()
  })
})
