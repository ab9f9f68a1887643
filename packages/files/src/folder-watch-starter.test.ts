// A folder watch's set-up lists its folders with a `find` that git-runner's starter process
// starts (spawnFromStarter), never one this process forks itself (docs/architecture.md §5): forking
// a big process costs its every thread, the Host's event loop among them, milliseconds.
// No module mocks (unit files share their modules: vitest.config.ts `isolate: false`): this
// process's child_process.spawn is wrapped in the builtin itself (syncBuiltinESMExports reaches
// every module's binding; the starter has builtins of its own), and a `find` first on PATH
// records that it ran and with which environment.
import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, readFileSync } from 'node:fs'
import { createRequire, syncBuiltinESMExports } from 'node:module'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { TempDirectories, write } from './fixture.test-helper.js'
import { FolderWatch, WatchBarrier } from './folder-watch.js'

const temps = new TempDirectories()
afterEach(() => temps.removeAll())

const childProcess = createRequire(import.meta.url)(
  'node:child_process',
) as typeof import('node:child_process')

describe('FolderWatch set-up', () => {
  it('has the starter run find, with only PATH and the C locale, and watches what it listed', async () => {
    const root = temps.make()
    write(root, 'a/b/c.txt', 'c\n')
    write(root, 'd/e.txt', 'e\n')
    const bin = temps.make()
    const log = path.join(bin, 'ran.log')
    const realFind = execFileSync('sh', ['-c', 'command -v find'], { encoding: 'utf8' }).trim()
    write(
      bin,
      'find',
      `#!/bin/sh\nprintf '%s|%s\\n' "\${LC_ALL-unset}" "\${TANGENT_FIND_MARKER-unset}" >> '${log}'\nexec '${realFind}' "$@"\n`,
    )
    chmodSync(path.join(bin, 'find'), 0o755)

    const spawnedHere: string[] = []
    const spawn = childProcess.spawn
    const saved = { PATH: process.env.PATH, marker: process.env.TANGENT_FIND_MARKER }
    childProcess.spawn = ((file: string, ...rest: unknown[]) => {
      spawnedHere.push(file)
      return (spawn as (...args: unknown[]) => ReturnType<typeof spawn>)(file, ...rest)
    }) as typeof spawn
    syncBuiltinESMExports()
    process.env.PATH = `${bin}:${saved.PATH ?? '/usr/bin:/bin'}`
    process.env.TANGENT_FIND_MARKER = 'inherited'
    let watch: FolderWatch | undefined
    try {
      watch = new FolderWatch(root, {
        skip: new Set(),
        barrier: new WatchBarrier(path.join(temps.make(), 'barrier')),
        rulesListedAt: Date.now() - 1000,
        ancestors: [],
      })
      expect(await watch.started).toBe(true)
      // The root, a, a/b and d: what find listed.
      expect(watch.folders).toBe(4)
    } finally {
      childProcess.spawn = spawn
      syncBuiltinESMExports()
      process.env.PATH = saved.PATH
      if (saved.marker === undefined) delete process.env.TANGENT_FIND_MARKER
      else process.env.TANGENT_FIND_MARKER = saved.marker
      watch?.close()
    }
    // find ran once, with the C locale and nothing else of this process's environment...
    expect(existsSync(log)).toBe(true)
    expect(readFileSync(log, 'utf8')).toBe('C|unset\n')
    // ...and not by this process (which may start the starter itself, once: git-runner's business).
    expect(spawnedHere.filter((file) => path.basename(file) === 'find')).toEqual([])
  })
})
