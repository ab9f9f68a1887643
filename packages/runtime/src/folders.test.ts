import fs from 'node:fs'
import fsp from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { TangentError } from '@tangent/core'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { browseFolders, realFolder, resolveFolderPath } from './folders.js'

let root: string
let home: string
let base: string

beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-folders-')))
  home = path.join(root, 'home')
  base = path.join(root, 'start')
  fs.mkdirSync(path.join(home, 'code', 'app'), { recursive: true })
  fs.mkdirSync(base)
  for (const name of ['v10', 'v2', 'beta', 'Alpha', '.git', 'node_modules'])
    fs.mkdirSync(path.join(base, name))
  fs.writeFileSync(path.join(base, 'README.md'), 'hi\n')
  fs.writeFileSync(path.join(base, 'zeta'), 'a file, not a folder\n')
  fs.symlinkSync(path.join(home, 'code'), path.join(base, 'linked'))
  fs.symlinkSync(path.join(base, 'README.md'), path.join(base, 'file-link'))
  fs.symlinkSync(path.join(root, 'missing'), path.join(base, 'broken-link'))
})

afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true })
})

afterEach(() => {
  vi.restoreAllMocks()
})

const options = () => ({ homeDir: home, base })

describe('resolveFolderPath', () => {
  const o = { homeDir: '/home/ann', base: '/work/start' }
  it('expands ~ and ~/x to the home directory', () => {
    expect(resolveFolderPath('~', o)).toBe('/home/ann')
    expect(resolveFolderPath('~/code/app', o)).toBe('/home/ann/code/app')
    expect(resolveFolderPath('  ~/code/  ', o)).toBe('/home/ann/code')
  })
  it('keeps absolute paths, resolves relative ones against base, and trims', () => {
    expect(resolveFolderPath('/srv/x/../y/', o)).toBe('/srv/y')
    expect(resolveFolderPath('sub/dir', o)).toBe('/work/start/sub/dir')
    expect(resolveFolderPath('..', o)).toBe('/work')
    expect(resolveFolderPath('  ', o)).toBe('/work/start')
    expect(resolveFolderPath('\tproj\n', o)).toBe('/work/start/proj')
  })
  it('does not expand ~user (a relative name like any other)', () => {
    expect(resolveFolderPath('~bob', o)).toBe('/work/start/~bob')
  })
  it('never touches the disk', () => {
    const spy = vi.spyOn(fsp, 'stat')
    resolveFolderPath('/definitely/not/here', o)
    expect(spy).not.toHaveBeenCalled()
  })
})

describe('realFolder', () => {
  it('returns the real path of ~, relative and symlinked folders', async () => {
    expect(await realFolder('~', options())).toBe(home)
    expect(await realFolder('v2', options())).toBe(path.join(base, 'v2'))
    expect(await realFolder('linked/app', options())).toBe(path.join(home, 'code', 'app'))
  })

  it('says what to do when the folder does not exist', async () => {
    const error = await realFolder('~/nope', options()).catch((e: unknown) => e)
    expect(TangentError.hasCode(error, 'folder-not-found')).toBe(true)
    const e = error as TangentError
    expect(e.message).toContain(path.join(home, 'nope'))
    expect(e.message).toMatch(/create it first/)
    expect(e.data).toMatchObject({ path: '~/nope', resolved: path.join(home, 'nope') })
  })

  it('refuses a file, naming the folder that contains it', async () => {
    const error = (await realFolder('README.md', options()).catch((e: unknown) => e)) as TangentError
    expect(error.code).toBe('folder-not-found')
    expect(error.message).toMatch(/is a file, not a folder/)
    expect(error.message).toContain(base)
    const link = (await realFolder('file-link', options()).catch((e: unknown) => e)) as TangentError
    expect(link.code).toBe('folder-not-found')
  })

  it('refuses a path through a file and a broken symlink', async () => {
    const through = (await realFolder('zeta/x', options()).catch((e: unknown) => e)) as TangentError
    expect(through.code).toBe('folder-not-found')
    const broken = (await realFolder('broken-link', options()).catch((e: unknown) => e)) as TangentError
    expect(broken.code).toBe('folder-not-found')
  })
})

describe('browseFolders', () => {
  it('lists subfolders and symlinks to folders, sorted numerically, without dot-folders', async () => {
    const result = await browseFolders(undefined, options())
    expect(result.path).toBe(base)
    expect(result.parent).toBe(root)
    expect(result.truncated).toBe(false)
    expect(result.folders.map((f) => f.name)).toEqual([
      'Alpha',
      'beta',
      'linked',
      'node_modules',
      'v2',
      'v10',
    ])
    expect(result.folders.find((f) => f.name === 'linked')?.path).toBe(path.join(base, 'linked'))
  })

  it('includes dot-folders with hidden', async () => {
    const result = await browseFolders(base, { ...options(), hidden: true })
    expect(result.folders.map((f) => f.name)).toContain('.git')
  })

  it('accepts ~ and relative paths, and lists the real folder of a symlink', async () => {
    expect((await browseFolders('~', options())).folders.map((f) => f.name)).toEqual(['code'])
    const linked = await browseFolders('linked', options())
    expect(linked.path).toBe(path.join(home, 'code'))
    expect(linked.parent).toBe(home)
    expect(linked.folders).toEqual([{ name: 'app', path: path.join(home, 'code', 'app') }])
  })

  it('has no parent at the root', async () => {
    const result = await browseFolders('/', options())
    expect(result.path).toBe('/')
    expect(result.parent).toBeNull()
    expect(result.folders.length).toBeGreaterThan(0)
  })

  it('throws folder-not-found for a missing folder and for a file', async () => {
    await expect(browseFolders('nope', options())).rejects.toMatchObject({ code: 'folder-not-found' })
    await expect(browseFolders('README.md', options())).rejects.toMatchObject({ code: 'folder-not-found' })
  })

  it('says clearly when the folder cannot be read (EACCES)', async () => {
    const denied = Object.assign(new Error('EACCES: permission denied, scandir'), { code: 'EACCES' })
    vi.spyOn(fsp, 'readdir').mockRejectedValueOnce(denied)
    const error = (await browseFolders('v2', options()).catch((e: unknown) => e)) as TangentError
    expect(TangentError.hasCode(error, 'folder-not-found')).toBe(true)
    expect(error.message).toBe(
      `Cannot list ${path.join(base, 'v2')}: permission denied. Choose another folder, or give your user read access to this one.`,
    )
    expect(error.data).toMatchObject({ path: 'v2', resolved: path.join(base, 'v2'), errno: 'EACCES' })
  })

  it.skipIf(process.getuid?.() === 0)(
    'really unreadable folder: folder-not-found (not as root)',
    async () => {
      const locked = path.join(root, 'locked')
      fs.mkdirSync(locked)
      fs.chmodSync(locked, 0o000)
      try {
        await expect(browseFolders(locked, options())).rejects.toMatchObject({ code: 'folder-not-found' })
      } finally {
        fs.chmodSync(locked, 0o755)
      }
    },
  )

  it('skips a symlink whose target cannot be inspected', async () => {
    const real = fsp.stat
    vi.spyOn(fsp, 'stat').mockImplementation(((target: fs.PathLike, ...rest: unknown[]) =>
      String(target).endsWith(`${path.sep}linked`)
        ? Promise.reject(Object.assign(new Error('EACCES'), { code: 'EACCES' }))
        : (real as (...args: unknown[]) => Promise<fs.Stats>)(target, ...rest)) as typeof fsp.stat)
    const result = await browseFolders(undefined, options())
    expect(result.folders.map((f) => f.name)).not.toContain('linked')
    expect(result.folders.map((f) => f.name)).toContain('v2')
  })

  it('stays fast on a folder of 10,000 entries, stats only symlinks, and truncates at the limit', async () => {
    const big = path.join(root, 'big')
    fs.mkdirSync(big)
    for (let i = 0; i < 6000; i++) fs.mkdirSync(path.join(big, `d${i}`))
    for (let i = 0; i < 3990; i++) fs.writeFileSync(path.join(big, `f${i}`), '')
    for (let i = 0; i < 10; i++) fs.symlinkSync(path.join(big, `d${i}`), path.join(big, `l${i}`))
    const stat = vi.spyOn(fsp, 'stat')
    const started = performance.now()
    const result = await browseFolders(big, options())
    const elapsed = performance.now() - started
    // realFolder's own stat, plus one per symlink: never one per entry.
    expect(stat.mock.calls.length).toBe(1 + 10)
    expect(result.truncated).toBe(true)
    expect(result.folders).toHaveLength(1000)
    expect(result.folders.slice(0, 3).map((f) => f.name)).toEqual(['d0', 'd1', 'd2'])
    expect(result.folders[999]?.name).toBe('d999')
    const all = await browseFolders(big, { ...options(), limit: 100_000 })
    expect(all.folders).toHaveLength(6010)
    expect(all.truncated).toBe(false)
    expect(all.folders.at(-1)?.name).toBe('l9')
    // Generous for a busy 2-core machine; it takes a few tens of ms.
    expect(elapsed).toBeLessThan(2000)
  })
})
