// The `tangent` executable is a bundle (docs/architecture.md §9): our code runs from it alone, one
// copy of each @tangent package (the Host of `tangent serve` included), zod and the other external
// dependencies come from node_modules, and a command loads its own module and not the others'.
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  cliMain,
  createSandbox,
  removeSandbox,
  repoRoot,
  type Sandbox,
  startProcess,
  stopProcess,
  tangent,
} from './cli-harness.js'

const dist = path.dirname(cliMain)
const chunks = path.join(dist, 'chunks')

function bundleFiles(): string[] {
  return [cliMain, ...fs.readdirSync(chunks).map((name) => path.join(chunks, name))]
}

describe('the bundled tangent', () => {
  let sandbox: Sandbox
  let log: string
  /** The builtin modules the last command loaded (process.moduleLoadList, written at exit). */
  let builtinsLog: string
  let sessionId: string

  beforeAll(async () => {
    sandbox = createSandbox()
    const root = path.dirname(sandbox.home)
    log = path.join(root, 'loaded.txt')
    builtinsLog = path.join(root, 'builtins.txt')
    // Every file the process loads (import or require), through a load hook preloaded by NODE_OPTIONS.
    const hook = path.join(root, 'load-hook.mjs')
    fs.writeFileSync(
      hook,
      `import fs from 'node:fs'
import module from 'node:module'
process.on('exit', () => fs.writeFileSync(${JSON.stringify(builtinsLog)}, process.moduleLoadList.join('\\n')))
module.registerHooks({
  load(url, context, next) {
    if (url.startsWith('file:')) fs.appendFileSync(${JSON.stringify(log)}, url + '\\n')
    return next(url, context)
  },
})
`,
    )
    sandbox.env.NODE_OPTIONS = `--import=${pathToFileURL(hook).href}`
    const run = await tangent(sandbox, ['run', '--model', 'demo:scripted', 'hello', '--json'])
    expect(run.code, run.stderr).toBe(0)
    sessionId = (JSON.parse(run.stdout) as { sessionId: string }).sessionId
    fs.rmSync(log)
  })
  afterAll(() => removeSandbox(sandbox))

  /** The repository files (relative paths) the last command loaded. */
  function loadedFiles(): string[] {
    const urls = fs.readFileSync(log, 'utf8').trim().split('\n')
    fs.rmSync(log)
    return urls.map((url) => path.relative(repoRoot, new URL(url).pathname))
  }

  function expectOnlyBundledCode(files: readonly string[]): void {
    const ours = files.filter((file) => file.startsWith('packages/'))
    expect(ours.length).toBeGreaterThan(0)
    for (const file of ours) expect(file).toMatch(/^packages\/cli\/dist\/(main\.js|chunks\/[^/]+\.js)$/)
    expect(files.filter((file) => file.includes('node_modules/@tangent/'))).toEqual([])
  }

  it('holds every @tangent package, and imports zod from node_modules', () => {
    const sources = bundleFiles().map((file) => fs.readFileSync(file, 'utf8'))
    for (const source of sources) {
      expect(source).not.toMatch(/(from\s*|import\(\s*)["']@tangent\//)
      expect(source).not.toMatch(/^\/\/ (\.\.\/)*node_modules\/zod\//m)
    }
    expect(sources.some((source) => /from\s*"zod"/.test(source))).toBe(true)
  })

  it('`tangent show` runs from the bundle and loads show’s module, no other command’s', async () => {
    const shown = await tangent(sandbox, ['show', sessionId])
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.stdout).toContain(sessionId)
    const files = loadedFiles()
    expectOnlyBundledCode(files)
    const commands = files
      .map((file) => /^packages\/cli\/dist\/chunks\/([a-z-]+)-[\w-]{8}\.js$/.exec(file)?.[1])
      .filter((name) => name !== undefined)
    expect(commands).toContain('show')
    for (const other of [
      'run',
      'chat',
      'serve',
      'explore',
      'acp',
      'acp-agent',
      'demo',
      'migrate',
      'doctor',
    ]) {
      expect(commands).not.toContain(other)
    }
    // A read checks its params structurally and its log without zod (docs/architecture.md §9).
    expect(files.some((file) => file.startsWith('node_modules/zod/'))).toBe(false)
    // Nor node:child_process: commander's, for executable subcommands, loads on first use
    // (postbuild.mjs).
    const builtins = fs.readFileSync(builtinsLog, 'utf8').split('\n')
    expect(builtins).toContain('NativeModule fs')
    expect(builtins).not.toContain('NativeModule child_process')
    // `show ID` is a direct route: no commander program is built (program.ts); and a read calls
    // nothing of node:fs/promises, which loads on its first call (postbuild.mjs).
    expect(commands).not.toContain('commander')
    expect(builtins).not.toContain('NativeModule fs/promises')
    // The read path is one chunk (postbuild.mjs), not the ~20 files it was split into.
    expect(files.filter((file) => file.startsWith('packages/')).length).toBeLessThanOrEqual(8)
  })

  it('`tangent serve` starts the bundle’s Host and runtime: no second copy from packages/*/dist', async () => {
    const { child, line } = await startProcess(
      process.execPath,
      [cliMain, 'serve', '--port', '0', '--json'],
      {
        cwd: sandbox.cwd,
        env: sandbox.env,
        ready: /^\{/,
      },
    )
    try {
      const { url, token } = JSON.parse(line) as { url: string; token: string }
      const page = await fetch(`${url}/?token=${token}`)
      // The web UI is found through the package resolver, not a path next to the Host's code.
      expect(page.status).toBe(200)
      expect(await page.text()).toContain('<div id="root">')
    } finally {
      await stopProcess(child)
    }
    expectOnlyBundledCode(loadedFiles())
  })
  it('`npx tangent` (node_modules/.bin/tangent, linked by npm install before the build) runs the bundle', async () => {
    const linked = path.join(repoRoot, 'node_modules', '.bin', 'tangent')
    expect(fs.realpathSync(linked)).toBe(path.join(repoRoot, 'packages', 'cli', 'bin', 'tangent.js'))
    const result = await new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
      execFile(
        linked,
        ['sessions', '--json'],
        { env: sandbox.env as NodeJS.ProcessEnv, cwd: sandbox.cwd },
        (error, stdout) =>
          error && typeof error.code !== 'number'
            ? reject(error)
            : resolve({ code: error ? Number(error.code) : 0, stdout }),
      )
    })
    expect(result.code).toBe(0)
    const listed = JSON.parse(result.stdout) as { id: string }[]
    expect(listed.map((session) => session.id)).toContain(sessionId)
  })
})
