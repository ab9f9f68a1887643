// The assistant's Markdown in the web transcript, in real Chromium against a real Host (the demo
// model answers `Turn N: you said "<the message>".`, so a message written in Markdown comes back
// as a reply in Markdown): GFM as elements, code highlighted with a copy button, no HTML from the
// model, no javascript: links, and axe-core clean in the light and the dark scheme.
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
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
  openWorkspace,
  screenshot,
  startTestHost,
  type TestHost,
  useAppPage,
} from './web-harness.js'

failWithoutChromiumInCi()

const reply = [
  'a plan',
  '## Plan',
  '- **bold** and ~~old~~',
  '- [x] done',
  '',
  '| a | b |',
  '|---|---|',
  '| 1 | 2 |',
  '',
  '```ts',
  'const a: number = 1',
  '```',
  '',
  '<b>raw</b> [bad](javascript:alert(1)) [ok](https://example.com)',
  '',
  'end',
].join('\n')

describe.skipIf(!chromiumPath)('web UI: Markdown in the transcript', () => {
  const app = useAppPage()

  it('renders the reply as Markdown elements, never its HTML or a javascript: link; axe passes in both schemes', async () => {
    const { page } = app
    await newSession(page)
    await chat(page, reply)
    const message = page.getByTestId('assistant-message').last()
    await expect.poll(() => message.locator('h2').textContent()).toBe('Plan')
    expect(await message.locator('strong').textContent()).toBe('bold')
    expect(await message.locator('del').textContent()).toBe('old')
    expect(await message.locator('input[type="checkbox"]').isChecked()).toBe(true)
    expect(await message.locator('table th').allTextContents()).toEqual(['a', 'b'])
    expect(await message.locator('table td').allTextContents()).toEqual(['1', '2'])
    // Raw HTML shows as text, not as an element; the javascript: link keeps only its text.
    expect(await message.locator('b').count()).toBe(0)
    expect(await message.textContent()).toContain('<b>raw</b>')
    expect(await message.locator('a[href^="javascript"]').count()).toBe(0)
    const ok = message.locator('a', { hasText: 'ok' })
    expect(await ok.getAttribute('href')).toBe('https://example.com')
    expect(await ok.getAttribute('rel')).toBe('noopener noreferrer')
    // The code block: highlighted (shiki, loaded on first use) with a copy button.
    await eventually(() => message.locator('.code-block .token').count()).toBeGreaterThan(1)
    expect(await message.locator('.code-block').textContent()).toBe('const a: number = 1')
    await expect.poll(() => message.getByTestId('copy-code').getAttribute('aria-label')).toBe('Copy ts code')
    // The windowed transcript measured the row with its final height: nothing overlaps the turn.
    const turn = page.getByTestId('turn').last()
    const box = (await turn.boundingBox())!
    const inner = (await message.boundingBox())!
    expect(inner.y + inner.height).toBeLessThanOrEqual(box.y + box.height + 1)
    expect(await axeViolations(page)).toEqual([])
    await page.emulateMedia({ colorScheme: 'light' })
    await screenshot(page, 'transcript-markdown-light')
    await page.emulateMedia({ colorScheme: 'dark' })
    await screenshot(page, 'transcript-markdown-dark')
  })
})

describe.skipIf(!chromiumPath)('web UI: Markdown while it streams', () => {
  let host: TestHost
  let browser: Browser
  beforeAll(async () => {
    // 4 characters every 25 ms: the reply below streams for about two seconds.
    host = await startTestHost({ TANGENT_DEMO_DELAY_MS: '25' })
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
    await host?.close()
  })

  it('never shows a raw ** or fence while streaming, and the reply keeps its height when it lands', async () => {
    const { page } = await newPage(browser)
    await openApp(page, host.url)
    await openWorkspace(page, host.workspace)
    await newSession(page)
    // Every text the streaming reply shows, and its last height, recorded as it changes.
    await page.evaluate(() => {
      const seen = { texts: [] as string[], height: 0 }
      ;(window as unknown as { seen: typeof seen }).seen = seen
      new MutationObserver(() => {
        const streaming = document.querySelector('[data-testid="streaming"] .markdown')
        if (!streaming) return
        seen.texts.push(streaming.textContent ?? '')
        seen.height = streaming.getBoundingClientRect().height
      }).observe(document.body, { subtree: true, childList: true, characterData: true })
    })
    const text =
      'x\n\nSome **bold words that stream in** and more.\n\n```ts\nconst streamed = true\n```\n\ndone'
    await chat(page, text)
    const seen = await page.evaluate(
      () => (window as unknown as { seen: { texts: string[]; height: number } }).seen,
    )
    expect(seen.texts.length).toBeGreaterThan(5)
    expect(seen.texts.filter((shown) => shown.includes('**') || shown.includes('```'))).toEqual([])
    const final = page.getByTestId('assistant-message').last().locator('.markdown')
    expect(await final.locator('strong').textContent()).toBe('bold words that stream in')
    // The finished reply is as tall as the streaming one was (its last text but the closing `".`).
    const height = (await final.boundingBox())!.height
    expect(Math.abs(height - seen.height)).toBeLessThanOrEqual(1)
  }, 60_000)
})
