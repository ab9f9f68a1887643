import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { previewDiff } from './acp-preview.js'

let root: string
let cwd: string
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-preview-')))
  cwd = path.join(root, 'project')
  fs.mkdirSync(cwd)
})
afterEach(() => fs.rmSync(root, { recursive: true, force: true }))

describe('previewDiff: the change a write or edit asks to make, for the permission prompt', () => {
  it('a new file, a replaced one, an append and an edit: whole file before and after', async () => {
    const file = path.join(cwd, 'a.txt')
    expect(await previewDiff('write', { path: 'a.txt', content: 'one\n' }, cwd)).toEqual([
      { type: 'diff', path: file, oldText: null, newText: 'one\n' },
    ])
    fs.writeFileSync(file, 'one\ntwo\n')
    expect(await previewDiff('write', { path: 'a.txt', content: 'x' }, cwd)).toEqual([
      { type: 'diff', path: file, oldText: 'one\ntwo\n', newText: 'x' },
    ])
    expect(await previewDiff('write', { path: 'a.txt', content: 'x', append: true }, cwd)).toEqual([
      { type: 'diff', path: file, oldText: 'one\ntwo\n', newText: 'one\ntwo\nx' },
    ])
    // `$&` in the replacement stays literal, as the tool writes it.
    expect(await previewDiff('edit', { path: 'a.txt', oldText: 'two', newText: '$&2' }, cwd)).toEqual([
      { type: 'diff', path: file, oldText: 'one\ntwo\n', newText: 'one\n$&2\n' },
    ])
    // Text not in the file: the edit's own pieces (the tool will say it did not match).
    expect(await previewDiff('edit', { path: 'a.txt', oldText: 'zzz', newText: 'y' }, cwd)).toEqual([
      { type: 'diff', path: file, oldText: 'zzz', newText: 'y' },
    ])
    expect(await previewDiff('bash', { command: 'ls' }, cwd)).toEqual([])
  })

  it('never reads outside the folder: .., an absolute path, a link out', async () => {
    fs.writeFileSync(path.join(root, 'secret.txt'), 'SECRET')
    fs.symlinkSync(path.join(root, 'secret.txt'), path.join(cwd, 'link.txt'))
    for (const name of ['../secret.txt', path.join(root, 'secret.txt'), 'link.txt']) {
      const shown = JSON.stringify(await previewDiff('write', { path: name, content: 'x' }, cwd))
      expect(shown).not.toContain('SECRET')
    }
  })

  it('shows nothing for what it must not read: a FIFO (which would block), a big or binary file', async () => {
    execFileSync('mkfifo', [path.join(cwd, 'pipe')])
    expect(await previewDiff('write', { path: 'pipe', content: 'x' }, cwd)).toEqual([])
    fs.writeFileSync(path.join(cwd, 'big.txt'), 'x'.repeat(300 * 1024))
    expect(await previewDiff('write', { path: 'big.txt', content: 'x' }, cwd)).toEqual([])
    fs.writeFileSync(path.join(cwd, 'bin'), Buffer.from([0, 1]))
    expect(await previewDiff('edit', { path: 'bin', oldText: 'a', newText: 'b' }, cwd)).toEqual([])
    expect(await previewDiff('write', { path: 42, content: 'x' }, cwd)).toEqual([])
  })
})
