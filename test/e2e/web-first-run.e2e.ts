// The first run in real Chromium, against a Host started the way a user starts it: the built
// CLI's `tangent serve`, run in a project folder (HOME and TANGENT_HOME are temp dirs). The
// start folder is already open and selected, so a session and a demo turn take two clicks and
// a prompt, with no path typed. Also: `~` and relative paths in the folder box, the Browse…
// dialog by keyboard, a restore as its own transcript row with Undo, and axe-core (WCAG 2.2 AA)
// on each screen.
import type { ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cliMain, startProcess, stopProcess } from './cli-harness.js'
import {
  axeViolations,
  chat,
  chromiumPath,
  endedTurns,
  eventually,
  failWithoutChromiumInCi,
  launchBrowser,
  newPage,
  openSessionId,
  screenshot,
} from './web-harness.js'

failWithoutChromiumInCi()

// ---- a Host as `tangent serve` starts it ----

interface Served {
  /** The page URL with its token, as `tangent serve` prints it. */
  readonly url: string
  /** HOME of the Host: what `~` means. */
  readonly home: string
  /** The folder `tangent serve` ran in: home/projects/demo-project. */
  readonly project: string
  close(): Promise<void>
}

/**
 * `tangent serve --port 0 --json` in home/projects/demo-project, with HOME=home and
 * TANGENT_HOME a temp data dir, no provider keys (the demo model). The project has src/,
 * docs/ and a hidden .cache/; its siblings are other-project/ (empty) and third/.
 */
async function serveInProject(): Promise<Served> {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-first-run-')))
  const home = path.join(base, 'home')
  const data = path.join(base, 'data')
  const project = path.join(home, 'projects', 'demo-project')
  for (const dir of ['src', 'docs', '.cache']) fs.mkdirSync(path.join(project, dir), { recursive: true })
  fs.mkdirSync(path.join(home, 'projects', 'other-project'))
  fs.mkdirSync(path.join(home, 'projects', 'third'))
  fs.mkdirSync(data)
  fs.writeFileSync(path.join(project, 'README.md'), '# demo project\n')
  const env: Record<string, string | undefined> = {
    ...process.env,
    HOME: home,
    TANGENT_HOME: data,
    NO_COLOR: '1',
  }
  for (const key of [
    'OPENAI_API_KEY',
    'ANTHROPIC_API_KEY',
    'DEEPSEEK_API_KEY',
    'TANGENT_MODEL',
    'TANGENT_TOKEN',
  ]) {
    delete env[key]
  }
  let child: ChildProcess | null = null
  try {
    const started = await startProcess(process.execPath, [cliMain, 'serve', '--port', '0', '--json'], {
      cwd: project,
      env,
      ready: /^\{.*"token"/,
    })
    child = started.child
    const { url, token } = JSON.parse(started.line) as { url: string; token: string }
    const page = new URL(url)
    page.pathname = '/'
    page.searchParams.set('token', token)
    const running = child
    return {
      url: page.toString(),
      home,
      project,
      async close() {
        await stopProcess(running)
        fs.rmSync(base, { recursive: true, force: true })
      },
    }
  } catch (error) {
    if (child) await stopProcess(child)
    fs.rmSync(base, { recursive: true, force: true })
    throw error
  }
}

// ---- page helpers ----

async function openPage(browser: Browser, url: string) {
  const opened = await newPage(browser)
  await opened.page.goto(url)
  await eventually(() => opened.page.getByTestId('connection').textContent()).toBe('connected')
  return opened
}

function workspaceRow(page: Page, name: string) {
  return page.locator('[data-testid="workspace-row"]').filter({ hasText: name })
}

/** data-testid (and data-path, for a folder) of the focused element. */
function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    const element = document.activeElement
    if (!element) return ''
    const id = element.getAttribute('data-testid') ?? element.tagName.toLowerCase()
    const folder = element.getAttribute('data-path')
    return folder ? `${id}:${folder}` : id
  })
}

/**
 * For the tests of other features: the start folder's workspace, opened by its path when the
 * Host did not open it (the first-run test checks that it does). After "connected" the list of
 * workspaces is already in the page, so counting rows does not race.
 */
async function useStartFolder(page: Page, host: Served): Promise<void> {
  const row = workspaceRow(page, 'demo-project')
  if ((await row.count()) === 0) {
    await page.getByTestId('workspace-path').fill(host.project)
    await page.getByTestId('workspace-open').click()
  }
  await eventually(() => row.getAttribute('data-active')).toBe('true')
}

async function folderNames(page: Page): Promise<string[]> {
  return page.locator('[data-testid="browse-folder"] .folder-name').allTextContents()
}

let browser: Browser

beforeAll(async () => {
  if (chromiumPath) browser = await launchBrowser()
})

afterAll(async () => {
  await browser?.close()
})

describe.skipIf(!chromiumPath)('web UI: first run', () => {
  let host: Served
  beforeAll(async () => {
    host = await serveInProject()
  })
  afterAll(async () => {
    await host?.close()
  })

  it('opens the start folder, selected, and runs a demo turn with two clicks and a prompt', async () => {
    const { page, context, errors } = await openPage(browser, host.url)
    try {
      const row = workspaceRow(page, 'demo-project')
      await row.waitFor()
      expect(await row.getAttribute('data-active')).toBe('true')
      expect(await page.getByTestId('start-workspace').textContent()).toBe('Start in demo-project')
      expect(await page.getByTestId('start-path').textContent()).toBe(host.project)
      // The folder box suggests the start folder first.
      const choices = await page
        .locator('#folder-choices option')
        .evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value))
      expect(choices[0]).toBe(host.project)
      await screenshot(page, 'first-run')

      // Click 1: New session. The composer has focus, so the prompt is typed straight away.
      await page.getByTestId('start-session').click()
      await page.locator('[data-testid="transcript"][data-loading="false"]').waitFor()
      await eventually(() => focused(page)).toBe('composer-input')
      await page.keyboard.type('write hello.txt: hi')
      // Click 2: Send.
      await page.getByTestId('send').click()
      await eventually(() => endedTurns(page)).toBe(1)
      expect(fs.readFileSync(path.join(host.project, 'hello.txt'), 'utf8')).toBe('hi\n')
      const sessionId = (await openSessionId(page))!
      const sessionRow = page.locator(`[data-testid="session-row"][data-session-id="${sessionId}"]`)
      expect(await sessionRow.getByTestId('row-title').textContent()).toContain('write hello.txt: hi')
      // No path was typed anywhere.
      expect(await page.getByTestId('workspace-path').inputValue()).toBe('')
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('takes the token out of the address bar once read, and still connects after a reload', async () => {
    const { page, context, errors } = await openPage(browser, host.url)
    try {
      expect(host.url).toContain('token=')
      expect(page.url()).not.toContain('token')
      await page.reload()
      await eventually(() => page.getByTestId('connection').textContent()).toBe('connected')
      expect(page.url()).not.toContain('token')
      await workspaceRow(page, 'demo-project').waitFor()
      expect(errors).toEqual([])
    } finally {
      await context.close()
    }
  })

  it('passes axe (WCAG 2.2 AA) on the first screen and with a session open', async () => {
    const { page, context } = await openPage(browser, host.url)
    try {
      await workspaceRow(page, 'demo-project').waitFor()
      await page.getByTestId('transcript-empty').waitFor()
      expect(await axeViolations(page)).toEqual([])
      await page.getByTestId('start-session').click()
      await page.locator('[data-testid="transcript"][data-loading="false"]').waitFor()
      await chat(page, 'write checked.txt: a\nread checked.txt')
      expect(await axeViolations(page)).toEqual([])
    } finally {
      await context.close()
    }
  })
})

describe.skipIf(!chromiumPath)('web UI: opening folders', () => {
  let host: Served
  beforeAll(async () => {
    host = await serveInProject()
  })
  afterAll(async () => {
    await host?.close()
  })

  it('Browse… by keyboard: subfolders, Enter opens one, Backspace goes up, Open chooses; focus returns', async () => {
    const { page, context } = await openPage(browser, host.url)
    try {
      await useStartFolder(page, host)
      const browse = page.getByTestId('workspace-browse')
      await browse.focus()
      await page.keyboard.press('Enter')
      const dialog = page.getByTestId('folder-browser')
      await dialog.waitFor()
      // Starts at the selected workspace (the start folder); dot-folders are hidden.
      await eventually(() => page.getByTestId('browse-path').textContent()).toBe(host.project)
      expect(await folderNames(page)).toEqual(['docs', 'src'])
      await eventually(() => focused(page)).toBe(`browse-folder:${path.join(host.project, 'docs')}`)
      expect(await axeViolations(page)).toEqual([])

      await page.keyboard.press('ArrowDown')
      expect(await focused(page)).toBe(`browse-folder:${path.join(host.project, 'src')}`)
      // Backspace: up to the parent, with focus on the folder we came from.
      const projects = path.dirname(host.project)
      await page.keyboard.press('Backspace')
      await eventually(() => page.getByTestId('browse-path').textContent()).toBe(projects)
      expect(await folderNames(page)).toEqual(['demo-project', 'other-project', 'third'])
      await eventually(() => focused(page)).toBe(`browse-folder:${host.project}`)

      // Show hidden folders, from the start folder.
      await page.getByTestId('browse-start').click()
      await eventually(() => page.getByTestId('browse-path').textContent()).toBe(host.project)
      await page.getByTestId('browse-hidden').check()
      await eventually(() => folderNames(page)).toEqual(['.cache', 'docs', 'src'])

      // Alt+↑ goes up too; ArrowDown, Enter opens other-project (empty): focus on "Open".
      await page.getByTestId('browse-folder').first().focus()
      await page.keyboard.press('Alt+ArrowUp')
      await eventually(() => page.getByTestId('browse-path').textContent()).toBe(projects)
      await eventually(() => focused(page)).toBe(`browse-folder:${host.project}`)
      await page.keyboard.press('ArrowDown')
      await page.keyboard.press('Enter')
      const other = path.join(projects, 'other-project')
      await eventually(() => page.getByTestId('browse-path').textContent()).toBe(other)
      await page.getByTestId('browse-empty').waitFor()
      await eventually(() => focused(page)).toBe('browse-open')
      expect(await page.getByTestId('browse-open').textContent()).toBe('Open other-project')
      await page.keyboard.press('Enter')

      await dialog.waitFor({ state: 'detached' })
      const row = workspaceRow(page, 'other-project')
      await row.waitFor()
      expect(await row.getAttribute('data-active')).toBe('true')
      expect(await page.getByTestId('start-workspace').textContent()).toBe('Start in other-project')
      await eventually(() => focused(page)).toBe('workspace-browse')

      // Esc closes without opening anything, focus back on Browse….
      await page.keyboard.press('Enter')
      await dialog.waitFor()
      await page.keyboard.press('Escape')
      await dialog.waitFor({ state: 'detached' })
      expect(await focused(page)).toBe('workspace-browse')
    } finally {
      await context.close()
    }
  })

  it('opens ~/… and paths relative to the start folder typed in the folder box', async () => {
    const { page, context } = await openPage(browser, host.url)
    try {
      await useStartFolder(page, host)
      await page.getByTestId('workspace-path').fill('~/projects/third')
      await page.getByTestId('workspace-open').click()
      const third = workspaceRow(page, 'third')
      await third.waitFor()
      await eventually(() => third.getAttribute('data-active')).toBe('true')
      expect(await third.locator('.workspace-name').getAttribute('title')).toContain(
        path.join(host.home, 'projects', 'third'),
      )
      expect(await page.getByTestId('workspace-path').inputValue()).toBe('')

      await page.getByTestId('workspace-path').fill('../other-project')
      await page.getByTestId('workspace-path').press('Enter')
      await eventually(() => workspaceRow(page, 'other-project').getAttribute('data-active')).toBe('true')
      // Most recently opened first.
      const names = await page.locator('[data-testid="workspace-row"] .workspace-name').allTextContents()
      expect(names[0]).toMatch(/^›?\s*other-project/)

      // A folder that is not there: the Host's error says what to do.
      await page.getByTestId('workspace-path').fill('~/no-such-folder')
      await page.getByTestId('workspace-open').click()
      const banner = page.locator('[data-testid="error-banner"][data-code="folder-not-found"]')
      await banner.waitFor()
      expect(await banner.textContent()).toContain(path.join(host.home, 'no-such-folder'))
      expect(await page.getByTestId('workspace-path').inputValue()).toBe('~/no-such-folder')
    } finally {
      await context.close()
    }
  })

  it('keeps what is typed while an open is on its way: only the opened path is cleared', async () => {
    const opened = await newPage(browser)
    const { page, context } = opened
    // The page's own socket, passed through; its workspace.open is held until the test lets it go.
    const held: (() => void)[] = []
    await page.routeWebSocket(/\/rpc/, (socket) => {
      const server = socket.connectToServer()
      socket.onMessage((message) => {
        if (String(message).includes('"workspace.open"')) held.push(() => server.send(message))
        else server.send(message)
      })
    })
    try {
      await page.goto(host.url)
      await eventually(() => page.getByTestId('connection').textContent()).toBe('connected')
      const box = page.getByTestId('workspace-path')
      await box.fill('~/projects/third')
      await page.getByTestId('workspace-open').click()
      await eventually(() => held.length).toBe(1)
      await box.fill('../other-project')
      for (const send of held.splice(0)) send()
      await eventually(() => workspaceRow(page, 'third').getAttribute('data-active')).toBe('true')
      expect(await box.inputValue()).toBe('../other-project')
      await page.getByTestId('workspace-open').click()
      await eventually(() => held.length).toBe(1)
      for (const send of held.splice(0)) send()
      await eventually(() => workspaceRow(page, 'other-project').getAttribute('data-active')).toBe('true')
      expect(await box.inputValue()).toBe('')
    } finally {
      await context.close()
    }
  })
})

describe.skipIf(!chromiumPath)('web UI: a restore is its own row', () => {
  let host: Served
  beforeAll(async () => {
    host = await serveInProject()
  })
  afterAll(async () => {
    await host?.close()
  })

  it('"Restored files to #N" with the paths and Undo; Undo puts them back and adds "Undid the restore at #M"', async () => {
    const { page, context } = await openPage(browser, host.url)
    const file = path.join(host.project, 'notes.txt')
    try {
      await useStartFolder(page, host)
      await page.getByTestId('start-session').click()
      await page.locator('[data-testid="transcript"][data-loading="false"]').waitFor()
      await chat(page, 'write notes.txt: one')
      await chat(page, 'write notes.txt: two')
      expect(fs.readFileSync(file, 'utf8')).toBe('two\n')
      const first = page.getByTestId('turn').first()
      const firstEnd = (await first.getAttribute('data-end-seq'))!

      await first.getByTestId('restore-files').click()
      const restore = page.locator(`[data-testid="restore-row"][data-to-seq="${firstEnd}"]`)
      await restore.waitFor()
      expect(await restore.getByTestId('restore-title').textContent()).toBe(`Restored files to #${firstEnd}`)
      expect(await restore.getByTestId('restored-file').allTextContents()).toEqual(['notes.txt'])
      expect(fs.readFileSync(file, 'utf8')).toBe('one\n')
      // Its own row after the second turn, not a change listed under that turn (the transcript is
      // windowed: each row sits in a positioned wrapper, in order).
      expect(
        await restore.evaluate(
          (row) =>
            row
              .closest('.transcript-row')
              ?.previousElementSibling?.firstElementChild?.getAttribute('data-testid') ?? null,
        ),
      ).toBe('turn')
      expect(await page.getByTestId('turn').nth(1).getByTestId('changed-file').allTextContents()).toEqual([
        'notes.txt',
      ])
      await screenshot(page, 'restore-row')
      expect(await axeViolations(page)).toEqual([])

      const restoreSeq = (await restore.getAttribute('data-seq'))!
      await restore.getByTestId('undo-restore').click()
      const undo = page.locator(`[data-testid="restore-row"][data-undo-of="${restoreSeq}"]`)
      await undo.waitFor()
      expect(await undo.getByTestId('restore-title').textContent()).toBe(
        `Undid the restore at #${restoreSeq}`,
      )
      expect(await undo.getByTestId('undo-restore').count()).toBe(0)
      expect(fs.readFileSync(file, 'utf8')).toBe('two\n')
      await eventually(() => restore.getAttribute('data-undone')).toBe('true')
      expect(await restore.getByTestId('undo-restore').count()).toBe(0)
      // Keyboard focus stays on the row whose button went away.
      await eventually(() => focused(page)).toBe('restore-row')
    } finally {
      await context.close()
    }
  })

  it('an Undo that would overwrite a later edit names the file and offers "Undo anyway"', async () => {
    const { page, context } = await openPage(browser, host.url)
    const file = path.join(host.project, 'notes.txt')
    try {
      await useStartFolder(page, host)
      await workspaceRow(page, 'demo-project').getByTestId('new-session').click()
      await page.locator('[data-testid="transcript"][data-loading="false"]').waitFor()
      await chat(page, 'write notes.txt: one')
      await chat(page, 'write notes.txt: two')
      const first = page.getByTestId('turn').first()
      const firstEnd = (await first.getAttribute('data-end-seq'))!
      await first.getByTestId('restore-files').click()
      const restore = page.locator(`[data-testid="restore-row"][data-to-seq="${firstEnd}"]`)
      await restore.waitFor()
      const restoreSeq = (await restore.getAttribute('data-seq'))!
      expect(fs.readFileSync(file, 'utf8')).toBe('one\n')

      fs.writeFileSync(file, 'edited by hand\n')
      await restore.getByTestId('undo-restore').click()
      const conflict = page.getByTestId('restore-conflict')
      await conflict.waitFor()
      expect(await conflict.getByRole('heading').textContent()).toBe('Undo would overwrite other changes')
      expect(await page.getByTestId('conflict-paths').textContent()).toContain('notes.txt')
      expect(fs.readFileSync(file, 'utf8')).toBe('edited by hand\n')
      expect(await axeViolations(page)).toEqual([])
      await page.getByTestId('undo-force').click()
      await conflict.waitFor({ state: 'detached' })
      await eventually(() => fs.readFileSync(file, 'utf8')).toBe('two\n')
      await page.locator(`[data-testid="restore-row"][data-undo-of="${restoreSeq}"]`).waitFor()
    } finally {
      await context.close()
    }
  })
})
