import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { sessionLogFile, storePaths } from './store-paths.js'

describe('storePaths', () => {
  it('resolves the data directory exactly as path.resolve does, whether or not it takes the shortcut', () => {
    const dirs = [
      '/home/u/.tangent',
      '/a',
      '/',
      '//a',
      '/a/',
      '/a//b',
      '/a/./b',
      '/a/../b',
      '/a/.',
      '/a/..',
      '/a/.b/..c/b.',
      'relative/dir',
      './x',
      '../x',
      '',
    ]
    for (const dir of dirs) {
      const paths = storePaths(dir)
      expect(paths.dir, dir).toBe(path.resolve(dir))
      expect(sessionLogFile(paths, 'x'), dir).toBe(path.join(path.resolve(dir), 'sessions', 'x.jsonl'))
    }
  })
})
