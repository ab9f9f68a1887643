// DNS rebinding in real Chromium (issue 25): a page on a name of its own that resolves to
// 127.0.0.1 (here by Chromium's host-resolver rules, as a rebinding DNS server would) reaches
// the Host's port, but the Host refuses every request naming another Host — the page itself,
// `POST /rpc` from it with the right token, and its WebSocket — so it creates nothing.
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  chromiumPath,
  failWithoutChromiumInCi,
  launchBrowser,
  newPage,
  openApp,
  startTestHost,
  type TestHost,
} from './web-harness.js'

failWithoutChromiumInCi()

describe.skipIf(!chromiumPath)('web UI: DNS rebinding', () => {
  let host: TestHost
  let browser: Browser

  beforeAll(async () => {
    host = await startTestHost()
    browser = await launchBrowser(['--host-resolver-rules=MAP evil.example 127.0.0.1'])
  })
  afterAll(async () => {
    await browser?.close()
    await host?.close()
  })

  it('a page on a rebound name gets 403 for the UI, /rpc with the token and the WebSocket; the real page works', async () => {
    const real = new URL(host.url)
    const token = real.searchParams.get('token')!
    const rebound = `http://evil.example:${real.port}`
    const { context, page } = await newPage(browser)
    try {
      const response = await page.goto(`${rebound}/`)
      expect(response?.status()).toBe(403)
      expect(await page.textContent('body')).toContain('DNS rebinding')
      // Same-origin for the page: what a rebinding attack sends once it has the token.
      const attempt = await page.evaluate(
        async ({ token }) => {
          const rpc = await fetch('/rpc', {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session.create', params: {} }),
          })
          const socket = await new Promise<string>((resolve) => {
            const ws = new WebSocket(`ws://${location.host}/rpc?token=${encodeURIComponent(token)}`)
            ws.onopen = () => resolve('open')
            ws.onerror = () => resolve('refused')
          })
          return { status: rpc.status, body: await rpc.json(), socket }
        },
        { token },
      )
      expect(attempt).toMatchObject({
        status: 403,
        body: { error: { data: { code: 'foreign-origin' } } },
        socket: 'refused',
      })
    } finally {
      await context.close()
    }

    // The Host's own page still connects, and no session was created by the attempt.
    const own = await newPage(browser)
    try {
      await openApp(own.page, host.url)
      const sessions = await own.page.evaluate(
        async ({ token }) => {
          const answer = await fetch('/rpc', {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session.list', params: {} }),
          })
          return ((await answer.json()) as { result: unknown[] }).result.length
        },
        { token },
      )
      expect(sessions).toBe(0)
    } finally {
      await own.context.close()
    }
  })
})
