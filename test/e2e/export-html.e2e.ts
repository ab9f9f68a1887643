// `tangent export ID --format html --tree` with the built CLI, opened in Chromium with the
// network blocked (docs/architecture.md, "Moving in and out"): sessions made with the demo model
// (hostile text in a prompt, a tool output and a fork's title; a subagent; an exploration; a fork)
// export as one file that makes no request and runs no script, shows the texts, unfolds a tool
// call, moves between branches by keyboard alone, reads at 320 px, and passes axe (WCAG 2.2 AA)
// in light and dark.
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumPath, connectOrLaunch } from './chromium.js'
import { createSandbox, removeSandbox, type Sandbox, tangent, tangentJson } from './cli-harness.js'
import { axeViolations, failWithoutChromiumInCi } from './web-harness.js'

interface Explored {
  sessions: { id: string }[]
}

/** A 1×1 PNG the first prompt attaches: it must show, from the file itself. */
const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

failWithoutChromiumInCi()

describe.skipIf(!chromiumPath)('tangent export --format html --tree, in Chromium offline', () => {
  let sandbox: Sandbox
  let browser: Browser
  let parent: string
  let subagent: string
  let branchA: string
  let branchB: string
  let fork: string
  let file: string
  let fileUrl: string

  beforeAll(async () => {
    sandbox = createSandbox()
    fs.writeFileSync(path.join(sandbox.cwd, 'dot.png'), Buffer.from(png, 'base64'))
    parent = (
      await tangentJson<{ sessionId: string }>(sandbox, [
        'run',
        '--image',
        'dot.png',
        'hello <script>window.pwned=1</script> **bold** [x](javascript:window.pwned=3)',
      ])
    ).sessionId
    await tangentJson(sandbox, [
      'run',
      '--yes',
      '--session',
      parent,
      "run: echo '<script>window.pwned=2</script></details>tool output end'\ntask: sub words",
    ])
    const explored = await tangentJson<Explored>(sandbox, [
      'explore',
      parent,
      '-p',
      'write a.txt: from A',
      '-p',
      'branch words B',
    ])
    ;[branchA, branchB] = explored.sessions.map((session) => session.id) as [string, string]
    const events = (await tangentJson<{ events: { seq: number; type: string }[] }>(sandbox, ['show', parent]))
      .events
    const firstEnd = events.find((event) => event.type === 'turn/end')!.seq
    fork = (
      await tangentJson<{ session: { id: string } }>(sandbox, [
        'fork',
        parent,
        '--at',
        String(firstEnd),
        '--title',
        '<img src=x onerror=window.pwned=4> Fork',
      ])
    ).session.id
    await tangentJson(sandbox, ['run', '--session', fork, 'fork words'])
    const sessions = await tangentJson<{ id: string; parentSession: string | null; origin: string }[]>(
      sandbox,
      ['sessions', '--all'],
    )
    subagent = sessions.find((session) => session.origin === 'subagent')!.id
    file = path.join(sandbox.cwd, 'tree.html')
    const exported = await tangent(sandbox, [
      'export',
      branchA.slice(0, 10),
      '--format',
      'html',
      '--tree',
      '-o',
      'tree.html',
    ])
    expect(exported.stderr).toBe('')
    expect(exported.code).toBe(0)
    fileUrl = pathToFileURL(file).href
    browser = await connectOrLaunch(chromiumPath!, [])
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    removeSandbox(sandbox)
  })

  /** A page on the file with every request but the file's own aborted; the URLs it asked for. */
  async function openFile(viewport = { width: 1000, height: 800 }) {
    const context = await browser.newContext({ viewport })
    const page = await context.newPage()
    page.setDefaultTimeout(15_000)
    const requests: string[] = []
    const dialogs: string[] = []
    const errors: string[] = []
    page.on('request', (request) => requests.push(request.url()))
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message())
      void dialog.dismiss()
    })
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text())
    })
    await context.route('**', (route) =>
      route.request().url() === fileUrl ? route.continue() : route.abort('blockedbyclient'),
    )
    await page.goto(fileUrl)
    return { context, page, requests, dialogs, errors }
  }

  it('is one file that asks for nothing else, runs no script, and shows the texts escaped', async () => {
    const { context, page, requests, dialogs } = await openFile()
    try {
      await expect.poll(() => page.title()).toContain('(tree) · Tangent')
      const user = page.locator('.message.user').first()
      await expect
        .poll(() => user.textContent())
        .toContain('hello <script>window.pwned=1</script> **bold** [x](javascript:window.pwned=3)')
      // The demo model quoted it back: Markdown rendered (bold), the script and the link as text.
      const reply = page.locator('.message.assistant .markdown').first()
      expect(await reply.innerHTML()).toContain('<strong>bold</strong>')
      expect(await reply.textContent()).toContain('<script>window.pwned=1</script>')
      expect(await page.locator('a[href^="javascript:"]').count()).toBe(0)
      expect(await page.getByText('fork words').first().isVisible()).toBe(true)
      expect(await page.getByText('branch words B').first().isVisible()).toBe(true)
      // Nothing hostile ran, and the policy would stop a script even if one got in.
      expect(await page.locator('script, iframe, object, embed, link').count()).toBe(0)
      // The one image is the attached one, drawn from its data: URL (nothing fetched).
      const image = page.locator('img')
      expect(await image.count()).toBe(1)
      expect(await image.getAttribute('src')).toMatch(/^data:image\/png;base64,/)
      await expect.poll(() => image.evaluate((element) => (element as HTMLImageElement).naturalWidth)).toBe(1)
      expect(await page.evaluate(() => (window as { pwned?: number }).pwned)).toBeUndefined()
      expect(
        await page.evaluate(() => {
          const script = document.createElement('script')
          script.textContent = 'window.injected = 1'
          document.body.append(script)
          return (window as { injected?: number }).injected
        }),
      ).toBeUndefined()
      expect(dialogs).toEqual([])
      expect(requests).toEqual([fileUrl])
    } finally {
      await context.close()
    }
  })

  it('a tool call unfolds to its input and its output, the </details> in it staying text', async () => {
    const { context, page } = await openFile()
    try {
      const call = page.locator('details.tool').filter({ hasText: 'bash' }).first()
      const output = call.locator('pre').filter({ hasText: /^<script>window\.pwned=2/ })
      expect(await output.isVisible()).toBe(false)
      await call.locator('summary').focus()
      await page.keyboard.press('Enter')
      await expect.poll(() => output.isVisible()).toBe(true)
      expect(await output.textContent()).toContain('<script>window.pwned=2</script></details>tool output end')
      expect(await call.locator('pre').first().textContent()).toContain('"command"')
      // The task call links to the subagent's session in the file.
      const task = page.locator('details.tool').filter({ hasText: 'task' }).first()
      await task.locator('summary').click()
      expect(await task.locator(`a[href="#s-${subagent}"]`).isVisible()).toBe(true)
    } finally {
      await context.close()
    }
  })

  it('moves between branches by keyboard alone: the list, a fork, back to where it forked', async () => {
    const { context, page } = await openFile()
    try {
      const focusedText = () => page.evaluate(() => document.activeElement?.textContent ?? '')
      // Tab from the top of the page to the fork's entry in the list of branches.
      let found = false
      for (let press = 0; press < 20 && !found; press++) {
        await page.keyboard.press('Tab')
        found = (await focusedText()).includes('<img src=x onerror=window.pwned=4> Fork')
      }
      expect(found).toBe(true)
      await page.keyboard.press('Enter')
      await expect.poll(() => page.evaluate(() => location.hash)).toBe(`#s-${fork}`)
      const section = page.locator(`#s-${fork}`)
      // Scrolled to it (the last section cannot reach the top of the window: it is in view).
      expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(0)
      expect(await section.evaluate((element) => element.getBoundingClientRect().top)).toBeGreaterThanOrEqual(
        0,
      )
      expect(
        await section.evaluate((element) => element.getBoundingClientRect().top < window.innerHeight / 2),
      ).toBe(true)
      // The next Tab goes on inside that branch: its first link is the turn it forked after.
      await page.keyboard.press('Tab')
      expect(
        await page.evaluate((_id) => document.activeElement?.closest('section.session')?.id, `s-${fork}`),
      ).toBe(`s-${fork}`)
      expect(await focusedText()).toContain('hello <script>')
      await page.keyboard.press('Enter')
      await expect.poll(() => page.evaluate(() => location.hash)).toBe(`#s-${parent}-t1`)
      // The parent's turn 1 lists its branches: the fork and the subagent (it forked there too).
      const here = page.locator(`#s-${parent}-t1 ~ nav.branches-here`).first()
      expect(await here.textContent()).toContain('<img src=x onerror=window.pwned=4> Fork')
      // The exploration's branches are listed after turn 2.
      expect(await page.locator(`#s-${parent}-t2 ~ nav.branches-here`).first().textContent()).toMatch(
        /write a\.txt: from A[\s\S]*branch words B/,
      )
      expect(await page.locator(`#s-${branchB}`).count()).toBe(1)
    } finally {
      await context.close()
    }
  })

  it('passes axe (WCAG 2.2 AA) in light and dark with a tool call open, and reads at 320 px', async () => {
    const { context, page } = await openFile()
    try {
      await page.screenshot({ path: '/tmp/export-html.png', fullPage: false })
      await page.locator('details.tool summary').first().click()
      // The file's policy refuses an injected <script>: axe goes in through the debugger.
      await page.evaluate(axeSource)
      expect(await axeViolations(page)).toEqual([])
      await page.screenshot({ path: '/tmp/export-html-tool.png', fullPage: false })
    } finally {
      await context.close()
    }
    const narrow = await openFile({ width: 320, height: 640 })
    try {
      await narrow.page.locator('details.tool summary').first().click()
      expect(await narrow.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320)
      await narrow.page.screenshot({ path: '/tmp/export-html-320.png', fullPage: false })
    } finally {
      await narrow.context.close()
    }
  })
})
