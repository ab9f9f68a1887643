import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { TangentError } from '@tangent/core'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { confinePath, resolveWorkingDirectory } from './confine-path.js'

let root: string
let cwd: string
beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-')))
  cwd = path.join(root, 'project')
  fs.mkdirSync(path.join(cwd, 'src'), { recursive: true })
  fs.writeFileSync(path.join(cwd, 'src', 'a.txt'), 'a')
  fs.writeFileSync(path.join(root, 'secret.txt'), 'secret')
})
afterEach(() => fs.rmSync(root, { recursive: true, force: true }))

async function refusal(requested: string): Promise<TangentError> {
  const error = await confinePath(cwd, requested).catch((caught: unknown) => caught)
  expect(TangentError.hasCode(error, 'path-outside-cwd')).toBe(true)
  return error as TangentError
}

describe('confinePath', () => {
  it('resolves paths inside the cwd, existing or not', async () => {
    expect(await confinePath(cwd, 'src/a.txt')).toEqual({
      absolute: path.join(cwd, 'src/a.txt'),
      relative: 'src/a.txt',
    })
    expect(await confinePath(cwd, './new/dir/file.txt')).toEqual({
      absolute: path.join(cwd, 'new/dir/file.txt'),
      relative: 'new/dir/file.txt',
    })
    expect((await confinePath(cwd, 'src/../src/a.txt')).relative).toBe('src/a.txt')
    expect((await confinePath(cwd, '.')).relative).toBe('.')
    expect((await confinePath(cwd, path.join(cwd, 'src'))).relative).toBe('src')
  })

  it('refuses .. that leaves the cwd', async () => {
    expect((await refusal('../secret.txt')).message).toContain('outside the working directory')
    await refusal('src/../../secret.txt')
    await refusal('..')
  })

  it('refuses absolute paths outside the cwd', async () => {
    await refusal(path.join(root, 'secret.txt'))
    await refusal('/etc/passwd')
  })

  it('refuses symlinks that lead outside, also through a symlinked directory', async () => {
    fs.symlinkSync(path.join(root, 'secret.txt'), path.join(cwd, 'link.txt'))
    fs.symlinkSync(root, path.join(cwd, 'up'))
    await refusal('link.txt')
    await refusal('up/secret.txt')
    await refusal('up/new-file.txt')
  })

  it('refuses a dangling symlink, which a write would follow anywhere', async () => {
    fs.symlinkSync(path.join(root, 'not-yet.txt'), path.join(cwd, 'dangling.txt'))
    await refusal('dangling.txt')
  })

  it('gives where a dangling link inside points when asked to, for the policy; a link out is still refused', async () => {
    fs.symlinkSync('../.tangent', path.join(cwd, 'src', 'rules'))
    fs.symlinkSync(path.join(root, 'nothing'), path.join(cwd, 'out'))
    const through = { throughDanglingLinks: true }
    expect((await confinePath(cwd, 'src/rules/config.json', through)).relative).toBe('.tangent/config.json')
    await refusal('src/rules/config.json')
    await expect(confinePath(cwd, 'out/x', through)).rejects.toThrow(/outside the working directory/)
  })

  it('allows a symlink that stays inside', async () => {
    fs.symlinkSync(path.join(cwd, 'src', 'a.txt'), path.join(cwd, 'inner.txt'))
    expect((await confinePath(cwd, 'inner.txt')).relative).toBe('src/a.txt')
  })

  it('refuses an empty path with a clear message', async () => {
    await expect(confinePath(cwd, '  ')).rejects.toThrow(/empty/)
  })
})

describe('resolveWorkingDirectory', () => {
  it('refuses a missing or empty cwd with cwd-missing instead of falling back to the process cwd', async () => {
    await expect(confinePath('', 'a.txt')).rejects.toSatisfy((error) =>
      TangentError.hasCode(error, 'cwd-missing'),
    )
    await expect(resolveWorkingDirectory(path.join(root, 'gone'))).rejects.toThrow(/does not exist/)
    expect(await resolveWorkingDirectory(cwd)).toBe(cwd)
  })
})
