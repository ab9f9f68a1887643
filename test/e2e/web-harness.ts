// Shared setup of the web UI's Chromium tests: a real Host (in-process, 127.0.0.1, port 0,
// temp home, demo model) serving packages/web/dist, and Debian's chromium driven by
// playwright-core. Never downloads a browser: no chromium means a loud skip, or a failure
// when CI=true.
import fs from 'node:fs'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { startHost } from '@tangent/host'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest'
import { chromiumPath, connectOrLaunch, findChromium } from './chromium.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
export const webRoot = path.join(root, 'packages/web/dist')
/**
 * Where screenshots go: docs/screenshots with TANGENT_SCREENSHOTS=1 (to refresh the README's
 * pictures), else a temp dir, so an ordinary test run leaves the checkout unchanged.
 */
export const screenshotDir =
  process.env.TANGENT_SCREENSHOTS === '1'
    ? path.join(root, 'docs/screenshots')
    : path.join(os.tmpdir(), 'tangent-web-screenshots')

export { chromiumPath, findChromium }
export const mustRunBrowser = process.env.CI === 'true'

if (!chromiumPath) {
  const line = '!'.repeat(78)
  console.warn(
    `\n${line}\n!! Chromium not found (/usr/bin/chromium): the web UI's browser tests are SKIPPED.\n` +
      `!! Install it with: sudo apt-get install chromium   (with CI=true this is a failure)\n${line}\n`,
  )
}

/** Call at a test file's top level: with CI=true a missing Chromium fails the run instead of skipping. */
export function failWithoutChromiumInCi(): void {
  if (!chromiumPath && mustRunBrowser) {
    it('needs chromium (CI=true)', () => {
      throw new Error('Chromium is missing and CI=true: install it (apt-get install chromium).')
    })
  }
}

/**
 * Call inside a describe: one Host and one browser for the file, and before each test a fresh
 * page with the app open on the Host's workspace. Read the fields inside tests only.
 */
export function useAppPage(): { host: TestHost; browser: Browser; context: BrowserContext; page: Page } {
  const fixture = {} as { host: TestHost; browser: Browser; context: BrowserContext; page: Page }
  beforeAll(async () => {
    fixture.host = await startTestHost()
    fixture.browser = await launchBrowser()
  })
  afterAll(async () => {
    await fixture.browser?.close()
    await fixture.host?.close()
  })
  beforeEach(async () => {
    await fixture.context?.close()
    Object.assign(fixture, await newPage(fixture.browser))
    await openApp(fixture.page, fixture.host.url)
    await openWorkspace(fixture.page, fixture.host.workspace)
  })
  return fixture
}

/** `extraArgs`: more Chromium flags (e.g. `--host-resolver-rules` to point a name at loopback). */
export async function launchBrowser(extraArgs: readonly string[] = []): Promise<Browser> {
  if (!chromiumPath)
    throw new Error('Chromium is not installed: apt-get install chromium (CI=true needs it).')
  if (!fs.existsSync(path.join(webRoot, 'index.html'))) {
    throw new Error(`The web UI is not built (${webRoot}): run "npm run build -w @tangent/web".`)
  }
  return connectOrLaunch(chromiumPath, extraArgs)
}

export interface TestHost {
  /** The page URL with its token, as `tangent serve` prints it. */
  readonly url: string
  readonly home: string
  readonly workspace: string
  /**
   * Stops this Host, runs `whileDown` (and waits for the promise it returns), and starts a new
   * one on the same home (the URL changes).
   */
  restart(whileDown?: () => void | Promise<void>): Promise<TestHost>
  close(): Promise<void>
}

/** A Host on a fresh temp home, with a workspace folder ready to open. */
export async function startTestHost(
  env: Record<string, string | undefined> = {},
  listen: { port?: number; token?: string } = {},
): Promise<TestHost> {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-web-'))
  fs.mkdirSync(path.join(base, 'home'), { mode: 0o700 })
  fs.mkdirSync(path.join(base, 'project'))
  fs.writeFileSync(path.join(base, 'project', 'README.md'), '# demo project\n')
  return startOn(base, env, listen)
}

async function startOn(
  base: string,
  env: Record<string, string | undefined>,
  listen: { port?: number; token?: string },
): Promise<TestHost> {
  const home = path.join(base, 'home')
  const workspace = path.join(base, 'project')
  const host = await startHost({
    home,
    port: listen.port ?? 0,
    host: '127.0.0.1',
    ...(listen.token !== undefined ? { token: listen.token } : {}),
    webRoot,
    defaultModel: 'demo:scripted',
    env: { ...process.env, OPENAI_API_KEY: undefined, ANTHROPIC_API_KEY: undefined, ...env },
    defaultCwd: workspace,
    handleSignals: false,
  })
  return {
    url: `${host.url}/?token=${host.token}`,
    home,
    workspace,
    async restart(whileDown) {
      await host.close()
      await whileDown?.()
      return startOn(base, env, listen)
    },
    async close() {
      await host.close()
      fs.rmSync(base, { recursive: true, force: true })
    },
  }
}

// ---- page helpers (all waits are on the DOM, never on time) ----

// axe-core (a devDependency) checks WCAG 2.0/2.1/2.2 A and AA rules in the page.
const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js')

export interface AxeViolation {
  id: string
  impact: string | null
  help: string
  /** The colour scheme the page was shown in: the UI follows prefers-color-scheme. */
  scheme: 'light' | 'dark'
  nodes: string[]
}

/**
 * axe-core's WCAG 2.0/2.1/2.2 A and AA rules on the page as it is now, in the light and the
 * dark colour scheme; [] when both pass. Waits for running CSS transitions first, so a
 * half-faded element never counts (keyframe animations, like the running-turn pulse, change
 * no text colour and are left to run).
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: axePath })
  const wasDark = await page.evaluate(() => window.matchMedia('(prefers-color-scheme: dark)').matches)
  const violations: AxeViolation[] = []
  try {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme })
      violations.push(...(await runAxe(page)).map((violation) => ({ ...violation, scheme })))
    }
  } finally {
    await page.emulateMedia({ colorScheme: wasDark ? 'dark' : 'light' })
  }
  return violations
}

function runAxe(page: Page): Promise<Omit<AxeViolation, 'scheme'>[]> {
  return page.evaluate(async () => {
    await Promise.all(
      document
        .getAnimations()
        .filter((animation) => animation instanceof CSSTransition)
        .map((animation) => animation.finished.catch(() => undefined)),
    )
    type Result = {
      violations: {
        id: string
        impact: string | null
        help: string
        nodes: { target: unknown[]; failureSummary?: string }[]
      }[]
    }
    const axe = (window as unknown as { axe: { run(context: unknown, options: unknown): Promise<Result> } })
      .axe
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] },
    })
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      nodes: violation.nodes
        .slice(0, 10)
        .map((node) => `${node.target.join(' ')}: ${node.failureSummary ?? ''}`),
    }))
  })
}

/** `expect.poll` with a patience that suits a browser on a busy 2-core machine. */
export function eventually<T>(read: () => T | Promise<T>) {
  return expect.poll(read, { timeout: 15_000, interval: 50 })
}

/**
 * A page whose actions fail after 15 s with Playwright's own message, before the test times
 * out. `errors` collects the page's console errors and uncaught exceptions.
 */
export async function newPage(browser: Browser, viewport = { width: 1280, height: 800 }) {
  const context = await browser.newContext({ viewport })
  const page = await context.newPage()
  page.setDefaultTimeout(15_000)
  const errors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text())
  })
  page.on('pageerror', (error) => errors.push(error.message))
  return { context, page, errors }
}

export async function openApp(page: Page, url: string): Promise<void> {
  await page.goto(url)
  await eventually(() => page.getByTestId('connection').textContent()).toBe('connected')
}

export async function openWorkspace(page: Page, folder: string): Promise<void> {
  await page.getByTestId('workspace-path').fill(folder)
  await page.getByTestId('workspace-open').click()
  // The row can already be there (the Host remembers folders opened before): the open is done
  // when the path box is cleared and the row is the active one.
  await eventually(() => page.getByTestId('workspace-path').inputValue()).toBe('')
  await page
    .locator(`[data-testid="workspace-row"][data-active="true"]`)
    .filter({ hasText: path.basename(folder) })
    .waitFor()
}

export async function newSession(page: Page): Promise<string> {
  const before = await openSessionId(page)
  await page.getByTestId('new-session').first().click()
  await eventually(() => openSessionId(page)).not.toBe(before)
  await page.locator('[data-testid="transcript"][data-loading="false"]').waitFor()
  return (await openSessionId(page))!
}

/** Sends a message with Enter and waits for its turn to end. */
export async function chat(page: Page, text: string): Promise<void> {
  const turns = await page.getByTestId('turn').count()
  const input = page.getByTestId('composer-input')
  await input.fill(text)
  await input.press('Enter')
  await eventually(() => endedTurns(page)).toBe(turns + 1)
}

export async function endedTurns(page: Page): Promise<number> {
  return page.locator('[data-testid="turn"][data-running="false"]').count()
}

export function row(page: Page, sessionId: string) {
  return page.locator(`[data-testid="session-row"][data-session-id="${sessionId}"]`)
}

/** The id of the session the transcript shows, or null when none is open (never waits). */
export async function openSessionId(page: Page): Promise<string | null> {
  const transcript = page.getByTestId('transcript')
  if ((await transcript.count()) === 0) return null
  return transcript.getAttribute('data-session-id')
}

/** The test id of the element that has focus, or null (none, or it has no test id). */
export function focusedTestId(page: Page): Promise<string | null> {
  return page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? null)
}

export async function rowMenu(page: Page, sessionId: string, item: string): Promise<void> {
  await row(page, sessionId).getByTestId('row-menu-button').click()
  await page.getByTestId(item).click()
}

export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(screenshotDir, { recursive: true })
  await page.screenshot({ path: path.join(screenshotDir, `${name}.png`) })
}
