import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { AgentTool, ToolContext } from './agent-tool.js'
import { createBashTool } from './bash.js'
import { editTool } from './edit.js'
import { grepTool } from './grep.js'
import { listTool } from './list.js'
import { readTool } from './read.js'
import { writeTool } from './write.js'

let cwd: string
let context: ToolContext
beforeEach(() => {
  cwd = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-')))
  context = { cwd, signal: new AbortController().signal }
})
afterEach(() => fs.rmSync(cwd, { recursive: true, force: true }))

function run(tool: AgentTool, input: unknown) {
  return tool.run(tool.inputSchema.parse(input), context)
}

describe('write and read', () => {
  it('writes (creating directories), appends and reads back, with line ranges', async () => {
    expect(await run(writeTool, { path: 'dir/f.txt', content: 'one\ntwo\n' })).toEqual({
      output: 'Wrote dir/f.txt (8 bytes).',
      diff: { path: 'dir/f.txt', oldText: null, newText: 'one\ntwo\n' },
      wrote: ['dir/f.txt'],
    })
    expect((await run(writeTool, { path: 'dir/f.txt', content: 'three\n', append: true })).output).toBe(
      'Appended 6 bytes to dir/f.txt (now 14 bytes).',
    )
    expect((await run(readTool, { path: 'dir/f.txt' })).output).toBe('one\ntwo\nthree\n')
    expect((await run(readTool, { path: 'dir/f.txt', offset: 2, limit: 1 })).output).toBe('two')
  })

  it("refuses to write or edit inside Tangent's data directory when the folder holds it; reads it", async () => {
    const data = path.join(cwd, 'data')
    fs.mkdirSync(path.join(data, 'sessions'), { recursive: true })
    fs.writeFileSync(path.join(data, 'sessions', 's.jsonl'), 'log\n')
    context = { ...context, protectedPaths: [data] }
    await expect(run(writeTool, { path: 'data/x.txt', content: 'x' })).rejects.toMatchObject({
      code: 'invalid-path',
      message: expect.stringContaining("inside Tangent's data directory"),
    })
    await expect(
      run(writeTool, { path: 'data/sessions/../sessions/s.jsonl', content: 'x', append: true }),
    ).rejects.toMatchObject({
      code: 'invalid-path',
    })
    await expect(
      run(editTool, { path: 'data/sessions/s.jsonl', oldText: 'log', newText: 'bad' }),
    ).rejects.toMatchObject({
      code: 'invalid-path',
    })
    expect(fs.readFileSync(path.join(data, 'sessions', 's.jsonl'), 'utf8')).toBe('log\n')
    expect(fs.existsSync(path.join(data, 'x.txt'))).toBe(false)
    expect((await run(readTool, { path: 'data/sessions/s.jsonl' })).output).toBe('log\n')
    expect((await run(writeTool, { path: 'database.txt', content: 'y' })).output).toBe(
      'Wrote database.txt (1 bytes).',
    )
  })

  it('refuses to read a directory and reports binary files without dumping them', async () => {
    fs.mkdirSync(path.join(cwd, 'd'))
    await expect(run(readTool, { path: 'd' })).rejects.toThrow(/is a directory: use the list tool/)
    fs.writeFileSync(path.join(cwd, 'bin'), Buffer.from([1, 0, 2]))
    expect((await run(readTool, { path: 'bin' })).output).toBe('bin is a binary file (3 bytes); not shown.')
  })

  it('reads a file source’s text in place of the disk’s, with line ranges; a note when it has none', async () => {
    fs.mkdirSync(path.join(cwd, 'd'))
    fs.writeFileSync(path.join(cwd, 'd', 'f.txt'), 'disk\n')
    fs.writeFileSync(path.join(cwd, 'g.txt'), 'g on disk\n')
    const asked: string[] = []
    context = {
      ...context,
      fileSource: async (absolutePath) => {
        asked.push(absolutePath)
        if (absolutePath.endsWith('f.txt')) return { text: 'one\ntwo\nthree\n' }
        return { text: null, note: 'the editor did not answer' }
      },
    }
    expect((await run(readTool, { path: 'd/f.txt' })).output).toBe('one\ntwo\nthree\n')
    expect((await run(readTool, { path: './d/../d/f.txt', offset: 2, limit: 1 })).output).toBe('two')
    expect((await run(readTool, { path: 'g.txt' })).output).toBe('g on disk\n\n[the editor did not answer]')
    await expect(run(readTool, { path: 'd' })).rejects.toThrow(/is a directory/)
    await expect(run(readTool, { path: 'missing.txt' })).rejects.toThrow()
    // Named as the file inside the folder, whatever path the model wrote.
    expect(asked).toEqual([path.join(cwd, 'd/f.txt'), path.join(cwd, 'd/f.txt'), path.join(cwd, 'g.txt')])
  })
})

describe('the diff a write or edit reports (tool/result.diff)', () => {
  it('holds the whole file before and after: created, replaced, appended, edited, emptied', async () => {
    expect((await run(writeTool, { path: 'a.txt', content: 'one\n' })).diff).toEqual({
      path: 'a.txt',
      oldText: null,
      newText: 'one\n',
    })
    expect((await run(writeTool, { path: 'a.txt', content: 'two\n' })).diff).toEqual({
      path: 'a.txt',
      oldText: 'one\n',
      newText: 'two\n',
    })
    expect((await run(writeTool, { path: 'a.txt', content: 'three\n', append: true })).diff).toEqual({
      path: 'a.txt',
      oldText: 'two\n',
      newText: 'two\nthree\n',
    })
    expect((await run(editTool, { path: 'a.txt', oldText: 'three', newText: '3' })).diff).toEqual({
      path: 'a.txt',
      oldText: 'two\nthree\n',
      newText: 'two\n3\n',
    })
    // An existing empty file is not a new one.
    fs.writeFileSync(path.join(cwd, 'empty.txt'), '')
    expect((await run(writeTool, { path: 'empty.txt', content: 'x' })).diff?.oldText).toBe('')
  })

  it('leaves out a diff too large to log, or of a file that is not text; the write still happens', async () => {
    const big = 'x'.repeat(200 * 1024)
    fs.writeFileSync(path.join(cwd, 'big.txt'), big)
    const result = await run(writeTool, { path: 'big.txt', content: big })
    expect(result.output).toBe(`Wrote big.txt (${big.length} bytes).`)
    expect(result.diff).toBeUndefined()
    fs.writeFileSync(path.join(cwd, 'bin.dat'), Buffer.from([0, 1, 2]))
    expect((await run(writeTool, { path: 'bin.dat', content: 'text' })).diff).toBeUndefined()
    expect(fs.readFileSync(path.join(cwd, 'bin.dat'), 'utf8')).toBe('text')
  })
})

describe('edit', () => {
  beforeEach(() => fs.writeFileSync(path.join(cwd, 'code.ts'), 'let a = 1\nlet b = 1\nlet c = 2\n'))

  it('replaces exactly one occurrence, keeping $ literal', async () => {
    expect(
      (await run(editTool, { path: 'code.ts', oldText: 'let c = 2', newText: 'let c = $1' })).output,
    ).toBe('Edited code.ts: replaced 1 occurrence.')
    expect(fs.readFileSync(path.join(cwd, 'code.ts'), 'utf8')).toBe('let a = 1\nlet b = 1\nlet c = $1\n')
  })

  it('fails clearly when the text is not found', async () => {
    await expect(run(editTool, { path: 'code.ts', oldText: 'let d', newText: 'x' })).rejects.toThrow(
      'oldText was not found in code.ts',
    )
  })

  it('fails when the text is not unique, saying how many matches, unless replaceAll', async () => {
    await expect(run(editTool, { path: 'code.ts', oldText: '= 1', newText: '= 9' })).rejects.toThrow(
      'oldText matches 2 times in code.ts',
    )
    expect(fs.readFileSync(path.join(cwd, 'code.ts'), 'utf8')).toContain('let a = 1')
    expect(
      (await run(editTool, { path: 'code.ts', oldText: '= 1', newText: '= 9', replaceAll: true })).output,
    ).toBe('Edited code.ts: replaced 2 occurrences.')
  })

  it('refuses paths outside the cwd', async () => {
    await expect(run(editTool, { path: '../x', oldText: 'a', newText: 'b' })).rejects.toThrow(/outside/)
  })
})

describe('list and grep', () => {
  beforeEach(() => {
    fs.mkdirSync(path.join(cwd, 'src/deep'), { recursive: true })
    fs.mkdirSync(path.join(cwd, 'node_modules/pkg'), { recursive: true })
    fs.writeFileSync(path.join(cwd, 'src/a.ts'), 'export const needle = 1\n')
    fs.writeFileSync(path.join(cwd, 'src/deep/b.md'), 'no match\nNeedle here\n')
    fs.writeFileSync(path.join(cwd, 'node_modules/pkg/c.ts'), 'needle\n')
  })

  it('lists a directory, and recursively without descending into node_modules', async () => {
    expect((await run(listTool, {})).output).toBe('node_modules/\nsrc/')
    expect((await run(listTool, { path: '.', recursive: true })).output).toBe(
      'node_modules/ (not descended)\nsrc/\nsrc/a.ts\nsrc/deep/\nsrc/deep/b.md',
    )
  })

  it('greps with path:line output, case folding and an include glob', async () => {
    expect((await run(grepTool, { pattern: 'needle' })).output).toBe('src/a.ts:1: export const needle = 1')
    expect((await run(grepTool, { pattern: 'needle', ignoreCase: true })).output).toBe(
      'src/a.ts:1: export const needle = 1\nsrc/deep/b.md:2: Needle here',
    )
    expect((await run(grepTool, { pattern: 'needle', ignoreCase: true, include: '*.md' })).output).toBe(
      'src/deep/b.md:2: Needle here',
    )
    expect((await run(grepTool, { pattern: 'zzz', path: 'src' })).output).toBe('No matches for /zzz/ in src.')
    await expect(run(grepTool, { pattern: '(' })).rejects.toThrow(/Invalid regular expression/)
    await expect(run(grepTool, { pattern: 'x', path: '..' })).rejects.toThrow(/outside/)
  })
})

describe('bash', () => {
  it('runs in the cwd and reports the exit code', async () => {
    const bash = createBashTool()
    expect(await run(bash, { command: 'pwd' })).toEqual({ output: `${cwd}\n[exit code 0]`, isError: false })
    expect(await run(bash, { command: 'echo oops >&2; exit 4' })).toEqual({
      output: 'oops\n[exit code 4]',
      isError: true,
    })
  })

  it('kills a command at its timeout', async () => {
    const result = await run(createBashTool({ timeoutMs: 200 }), { command: 'echo started; sleep 20' })
    expect(result).toEqual({ output: 'started\n[killed: timed out after 200 ms]', isError: true })
  })

  it('caps the output, keeping its beginning and end and saying what was cut', async () => {
    const result = await run(createBashTool({ maxOutputBytes: 1000 }), {
      command: 'echo FIRST; head -c 50000 /dev/zero | tr "\\0" x; echo; echo LAST',
    })
    expect(result.output.startsWith('FIRST\n')).toBe(true)
    expect(result.output).toMatch(/\[… output truncated: \d+ of 50012 bytes omitted …\]/)
    expect(result.output.endsWith('LAST\n[exit code 0]')).toBe(true)
    expect(result.output.length).toBeLessThan(1200)
  })
})

describe('hard links', () => {
  let outside: string
  let secret: string
  beforeEach(() => {
    outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-outside-')))
    secret = path.join(outside, 'secret.txt')
    fs.writeFileSync(secret, 'original\n', { mode: 0o640 })
    fs.linkSync(secret, path.join(cwd, 'link.txt'))
  })
  afterEach(() => fs.rmSync(outside, { recursive: true, force: true }))

  const inside = () => fs.readFileSync(path.join(cwd, 'link.txt'), 'utf8')

  it('write replaces a file with other links instead of writing through to the one outside the cwd', async () => {
    const result = await run(writeTool, { path: 'link.txt', content: 'new\n' })
    expect(result.output).toBe(
      'Wrote link.txt (4 bytes). link.txt had other hard links: it is now a file of its own, and the other links keep the previous content.',
    )
    expect(fs.readFileSync(secret, 'utf8')).toBe('original\n')
    expect(inside()).toBe('new\n')
    const stat = fs.statSync(path.join(cwd, 'link.txt'))
    expect(stat.nlink).toBe(1)
    expect(stat.mode & 0o777).toBe(0o640)
    expect(fs.readdirSync(cwd)).toEqual(['link.txt']) // no temp file left
  })

  it('append and edit do the same', async () => {
    expect((await run(writeTool, { path: 'link.txt', content: 'more\n', append: true })).output).toMatch(
      /^Appended 5 bytes to link\.txt \(now 14 bytes\)\. link\.txt had other hard links/,
    )
    expect(fs.readFileSync(secret, 'utf8')).toBe('original\n')
    expect(inside()).toBe('original\nmore\n')
    fs.rmSync(path.join(cwd, 'link.txt'))
    fs.linkSync(secret, path.join(cwd, 'link.txt'))
    expect(
      (await run(editTool, { path: 'link.txt', oldText: 'original', newText: 'edited' })).output,
    ).toMatch(/^Edited link\.txt: replaced 1 occurrence\. link\.txt had other hard links/)
    expect(fs.readFileSync(secret, 'utf8')).toBe('original\n')
    expect(inside()).toBe('edited\n')
  })

  it('a file with one link is still written in place (same inode, mode kept)', async () => {
    const file = path.join(cwd, 'plain.txt')
    fs.writeFileSync(file, 'one\n', { mode: 0o600 })
    const before = fs.statSync(file)
    await run(writeTool, { path: 'plain.txt', content: 'two\n' })
    await run(writeTool, { path: 'plain.txt', content: 'three\n', append: true })
    await run(editTool, { path: 'plain.txt', oldText: 'two', newText: 'TWO' })
    const after = fs.statSync(file)
    expect(fs.readFileSync(file, 'utf8')).toBe('TWO\nthree\n')
    expect(after.ino).toBe(before.ino)
    expect(after.mode & 0o777).toBe(0o600)
  })

  it('refuses what is not a regular file (a FIFO) instead of blocking on it', async () => {
    execFileSync('mkfifo', [path.join(cwd, 'pipe')])
    await expect(run(writeTool, { path: 'pipe', content: 'x' })).rejects.toThrow('pipe is not a regular file')
  })
})
