// The file tools and links (docs/architecture.md §6): nothing is opened or created outside the
// session's folder, even while another process swaps a folder for a symlink as fast as it can.
import { type ChildProcess, spawn } from 'node:child_process'
import fs, { constants } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { TangentError } from '@tangent/core'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openConfined } from '../confine-path.js'
import type { AgentTool, ToolContext } from './agent-tool.js'
import { editTool } from './edit.js'
import { grepTool } from './grep.js'
import { listTool } from './list.js'
import { readTool } from './read.js'
import { writeTool } from './write.js'

let cwd: string
let outside: string
let context: ToolContext
beforeEach(() => {
  cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-links-')))
  outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-outside-')))
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'TOPSECRET\n')
  fs.mkdirSync(path.join(cwd, 'sub'))
  fs.writeFileSync(path.join(cwd, 'sub', 'a.txt'), 'inside\n')
  context = { cwd, signal: new AbortController().signal }
})
afterEach(() => {
  fs.rmSync(cwd, { recursive: true, force: true })
  fs.rmSync(outside, { recursive: true, force: true })
})

function run(tool: AgentTool, input: unknown) {
  return tool.run(tool.inputSchema.parse(input), context)
}

async function refusedOutside(promise: Promise<unknown>): Promise<void> {
  const error = await promise.catch((caught: unknown) => caught)
  expect(TangentError.hasCode(error, 'path-outside-cwd'), String(error)).toBe(true)
}

describe('a folder swapped for a symlink while the tools run', () => {
  let swapper: ChildProcess | undefined
  afterEach(() => {
    swapper?.kill('SIGKILL')
    swapper = undefined
  })

  /** Another process (a subagent's bash) swaps `t` between a folder and a link out, nonstop. */
  async function startSwapping(): Promise<ChildProcess> {
    const script = `
      const fs = require('node:fs')
      process.chdir(${JSON.stringify(cwd)})
      fs.mkdirSync('t')
      fs.writeFileSync('t/secret.txt', 'inside\\n')
      fs.symlinkSync(${JSON.stringify(outside)}, 'lnk')
      process.stdout.write('ready\\n')
      let n = 0
      for (;;) {
        try {
          fs.renameSync('t', 'stash'); fs.renameSync('lnk', 't')
          fs.renameSync('t', 'lnk'); fs.renameSync('stash', 't')
        } catch {
          // A write created t while it was away: move that aside, put things back and go on.
          try {
            if (fs.lstatSync('t', { throwIfNoEntry: false })?.isDirectory()) fs.renameSync('t', 'aside-' + ++n)
            if (fs.existsSync('stash')) fs.renameSync('stash', 't')
            if (!fs.lstatSync('lnk', { throwIfNoEntry: false })) fs.symlinkSync(${JSON.stringify(outside)}, 'lnk')
          } catch {}
        }
      }`
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
    swapper = child
    await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()))
    return child
  }

  it('never lets a write land outside, and writes between swaps still succeed', async () => {
    const child = await startSwapping()
    let written = 0
    const writer = async (name: string) => {
      for (let i = 0; i < 250; i++) {
        const result = await run(writeTool, { path: `t/${name}-${i}.txt`, content: 'x' }).catch(() => null)
        if (result) written++
      }
    }
    await Promise.all([writer('one'), writer('two')])
    expect(child.exitCode, 'the swapper ran throughout').toBe(null)
    child.kill('SIGKILL')
    expect(fs.readdirSync(outside)).toEqual(['secret.txt'])
    expect(written).toBeGreaterThan(0)
  }, 60_000)

  it('never reads, lists or searches what is outside, and reads between swaps still succeed', async () => {
    fs.writeFileSync(path.join(outside, 'outside-only.txt'), 'x\n')
    const child = await startSwapping()
    const outputs: string[] = []
    const keep = (result: { output: string } | null) => {
      if (result) outputs.push(result.output)
    }
    for (let i = 0; i < 150; i++) {
      await Promise.all([
        run(readTool, { path: 't/secret.txt' }).then(keep, () => null),
        run(grepTool, { pattern: 'TOPSECRET' }).then(keep, () => null),
        run(listTool, { path: '.', recursive: true }).then(keep, () => null),
      ])
    }
    expect(child.exitCode, 'the swapper ran throughout').toBe(null)
    child.kill('SIGKILL')
    const leaked = (output: string) =>
      output === 'TOPSECRET\n' || output.includes(': TOPSECRET') || output.includes('outside-only')
    expect(outputs.filter(leaked)).toEqual([])
    expect(outputs).toContain('inside\n')
  }, 60_000)
})

describe('links inside the folder', () => {
  it('are followed by read, write, edit, list and grep, which name the real path', async () => {
    fs.symlinkSync('sub', path.join(cwd, 'alias'))
    fs.symlinkSync(path.join(cwd, 'sub', 'a.txt'), path.join(cwd, 'absolute-link.txt'))
    fs.symlinkSync('alias/../sub/a.txt', path.join(cwd, 'chain.txt'))
    expect((await run(readTool, { path: 'alias/a.txt' })).output).toBe('inside\n')
    expect((await run(readTool, { path: 'absolute-link.txt' })).output).toBe('inside\n')
    expect((await run(readTool, { path: 'chain.txt' })).output).toBe('inside\n')
    expect((await run(writeTool, { path: 'alias/new/b.txt', content: 'b' })).output).toBe(
      'Wrote sub/new/b.txt (1 bytes).',
    )
    expect(fs.readFileSync(path.join(cwd, 'sub', 'new', 'b.txt'), 'utf8')).toBe('b')
    expect((await run(editTool, { path: 'chain.txt', oldText: 'inside', newText: 'edited' })).output).toBe(
      'Edited sub/a.txt: replaced 1 occurrence.',
    )
    expect(fs.lstatSync(path.join(cwd, 'chain.txt')).isSymbolicLink()).toBe(true)
    expect((await run(listTool, { path: 'alias' })).output).toBe('a.txt\nnew/')
    expect((await run(grepTool, { pattern: 'edited', path: 'alias' })).output).toBe('sub/a.txt:1: edited')
  })

  it('walks by absolute paths where /proc/self/fd is missing, with the same refusals', async () => {
    fs.symlinkSync('sub', path.join(cwd, 'alias'))
    fs.symlinkSync(outside, path.join(cwd, 'up'))
    const opened = await openConfined(cwd, 'alias/new/c.txt', {
      access: 'write',
      flags: constants.O_WRONLY,
      create: true,
      procFd: false,
    })
    await opened.close()
    expect(opened.path.relative).toBe('sub/new/c.txt')
    expect(fs.existsSync(path.join(cwd, 'sub', 'new', 'c.txt'))).toBe(true)
    await refusedOutside(
      openConfined(cwd, 'up/x.txt', {
        access: 'write',
        flags: constants.O_WRONLY,
        create: true,
        procFd: false,
      }),
    )
    expect(fs.readdirSync(outside)).toEqual(['secret.txt'])
  })
})

describe('links that lead out, dangle or loop', () => {
  beforeEach(() => {
    fs.symlinkSync(outside, path.join(cwd, 'up'))
    fs.symlinkSync('../../', path.join(cwd, 'sub', 'parent'))
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(cwd, 'secret-link.txt'))
    fs.symlinkSync(path.join(cwd, 'missing.txt'), path.join(cwd, 'dangling.txt'))
    fs.symlinkSync('nowhere', path.join(cwd, 'dangling-dir'))
    fs.symlinkSync('loop-b', path.join(cwd, 'loop-a'))
    fs.symlinkSync('loop-a', path.join(cwd, 'loop-b'))
  })

  it('are refused by every tool, and nothing is created outside or through them', async () => {
    await refusedOutside(run(readTool, { path: 'up/secret.txt' }))
    await refusedOutside(run(readTool, { path: 'secret-link.txt' }))
    await refusedOutside(run(readTool, { path: 'sub/parent/x' }))
    await refusedOutside(run(writeTool, { path: 'up/new.txt', content: 'x' }))
    await refusedOutside(run(writeTool, { path: 'up/deep/new.txt', content: 'x' }))
    await refusedOutside(run(writeTool, { path: 'secret-link.txt', content: 'x' }))
    await refusedOutside(run(editTool, { path: 'secret-link.txt', oldText: 'TOP', newText: 'x' }))
    await refusedOutside(run(writeTool, { path: 'dangling.txt', content: 'x' }))
    await refusedOutside(run(writeTool, { path: 'dangling-dir/x.txt', content: 'x' }))
    await refusedOutside(run(writeTool, { path: 'loop-a', content: 'x' }))
    await refusedOutside(run(listTool, { path: 'up' }))
    await refusedOutside(run(grepTool, { pattern: 'TOP', path: 'up' }))
    await refusedOutside(run(writeTool, { path: '../escape.txt', content: 'x' }))
    await refusedOutside(run(writeTool, { path: path.join(outside, 'escape.txt'), content: 'x' }))
    expect(fs.readdirSync(outside)).toEqual(['secret.txt'])
    expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('TOPSECRET\n')
    expect(fs.existsSync(path.join(cwd, 'missing.txt'))).toBe(false)
    expect(fs.existsSync(path.join(cwd, 'nowhere'))).toBe(false)
  })

  it('are listed but never descended or searched by list and grep', async () => {
    const listed = (await run(listTool, { recursive: true })).output
    expect(listed).toContain('up -> (symlink)')
    expect(listed).not.toContain('secret.txt\n')
    expect((await run(grepTool, { pattern: 'TOPSECRET' })).output).toBe('No matches for /TOPSECRET/ in ..')
  })
})

describe('the real-path check and protected folders', () => {
  it('gets the real path before anything is created, and its refusal creates nothing', async () => {
    fs.symlinkSync('sub', path.join(cwd, 'alias'))
    const seen: string[] = []
    context = {
      ...context,
      checkRealPath: async (relative, access) => {
        seen.push(`${access} ${relative}`)
        throw new TangentError('tool-failed', 'no')
      },
    }
    await expect(run(writeTool, { path: 'alias/new/deep.txt', content: 'x' })).rejects.toThrow('no')
    await expect(run(readTool, { path: 'alias/a.txt' })).rejects.toThrow('no')
    expect(seen).toEqual(['write sub/new/deep.txt', 'read sub/a.txt'])
    expect(fs.existsSync(path.join(cwd, 'sub', 'new'))).toBe(false)
  })

  it('leaves what it refuses out of what list and grep walk, and says so', async () => {
    fs.mkdirSync(path.join(cwd, 'secrets', 'deep'), { recursive: true })
    fs.writeFileSync(path.join(cwd, 'secrets', 'deep', 'key.txt'), 'needle\n')
    fs.writeFileSync(path.join(cwd, 'secret-note.txt'), 'needle\n')
    fs.writeFileSync(path.join(cwd, 'sub', 'b.txt'), 'needle\n')
    const seen: string[] = []
    context = {
      ...context,
      checkRealPath: async (relative, _access, walked) => {
        seen.push(`${relative}${walked ? ' (walked)' : ''}`)
        if (relative.startsWith('secret')) throw new TangentError('tool-failed', 'denied')
      },
    }
    expect((await run(grepTool, { pattern: 'needle' })).output).toBe(
      'sub/b.txt:1: needle\n[2 files or folders not searched: the permission rules refuse them]',
    )
    expect(seen[0]).toBe('.')
    expect(seen).toContain('secrets (walked)')
    expect(seen).not.toContain('secrets/deep (walked)')
    expect((await run(listTool, { recursive: true })).output).toBe(
      'secret-note.txt\nsecrets/ (not descended)\nsub/\nsub/a.txt\nsub/b.txt',
    )
  })

  it("never writes Tangent's data directory, reached through a link or created fresh", async () => {
    const data = path.join(cwd, 'data')
    fs.mkdirSync(data)
    fs.symlinkSync('data', path.join(cwd, 'd'))
    context = { ...context, protectedPaths: [data] }
    for (const target of ['d/sessions/new.jsonl', 'data/fresh/dir/file.txt', 'd/new.txt']) {
      await expect(run(writeTool, { path: target, content: 'x' })).rejects.toMatchObject({
        code: 'invalid-path',
      })
    }
    expect(fs.readdirSync(data)).toEqual([])
  })
})
