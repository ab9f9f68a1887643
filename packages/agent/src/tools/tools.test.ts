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
    })
    expect((await run(writeTool, { path: 'dir/f.txt', content: 'three\n', append: true })).output).toBe(
      'Appended 6 bytes to dir/f.txt (now 14 bytes).',
    )
    expect((await run(readTool, { path: 'dir/f.txt' })).output).toBe('one\ntwo\nthree\n')
    expect((await run(readTool, { path: 'dir/f.txt', offset: 2, limit: 1 })).output).toBe('two')
  })

  it('refuses to read a directory and reports binary files without dumping them', async () => {
    fs.mkdirSync(path.join(cwd, 'd'))
    await expect(run(readTool, { path: 'd' })).rejects.toThrow(/is a directory: use the list tool/)
    fs.writeFileSync(path.join(cwd, 'bin'), Buffer.from([1, 0, 2]))
    expect((await run(readTool, { path: 'bin' })).output).toBe('bin is a binary file (3 bytes); not shown.')
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
