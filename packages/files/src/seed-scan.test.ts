import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { git, makeRepository, TempDirectories } from './fixture.test-helper.js'
import { runGit } from './git.js'
import { scanIndexFile, scanIndexListing } from './seed.js'

const sha1 = 'a'.repeat(40)
const sha256 = 'b'.repeat(64)

/** One `ls-files -s -v -z` entry. */
const entry = (tag: string, mode: string, oid: string, stage: number, file: string) =>
  `${tag} ${mode} ${oid} ${stage}\t${file}\0`

describe('scanIndexListing', () => {
  it('keeps only the entries a seed cannot take, and the tracked .gitattributes files', async () => {
    const listing = Buffer.from(
      [
        entry('H', '100644', sha1, 0, 'a.txt'),
        entry('S', '100644', sha1, 0, 'sparse.txt'),
        entry('h', '100644', sha1, 0, 'assumed.txt'),
        entry('H', '160000', sha1, 0, 'vendor/sub'),
        entry('M', '100644', sha1, 1, 'conflict.txt'),
        entry('M', '100644', sha1, 2, 'conflict.txt'),
        entry('M', '100644', sha1, 3, 'conflict.txt'),
        entry('H', '100644', sha1, 0, '.tangent/sessions/x.jsonl'),
        entry('H', '100644', sha1, 0, '.tangentish'),
        entry('H', '100644', sha1, 0, 'dir/.gitattributes'),
        entry('H', '100644', sha1, 0, '.gitattributes'),
        entry('H', '100644', sha1, 0, 'not.gitattributes'),
        entry('H', '120000', sha1, 0, 'link'),
        entry('H', '100755', sha256, 0, 'sha256/run.sh'),
        entry('S', '100644', sha256, 0, 'sha256/sparse.txt'),
        entry('H', '100644', sha1, 0, 'a\ttab, a ü and\nnewline'),
        entry('h', '100644', sha1, 0, 'é\t1 2\t.txt'),
        // Not git's layout (a short oid): found by searching, as any entry.
        entry('S', '100644', 'abc', 0, 'short.txt'),
      ].join(''),
    )
    const scan = await scanIndexListing(listing, '.tangent')
    expect(scan).toEqual({
      remove: [
        'sparse.txt',
        'assumed.txt',
        'vendor/sub',
        'conflict.txt',
        '.tangent/sessions/x.jsonl',
        'sha256/sparse.txt',
        'é\t1 2\t.txt',
        'short.txt',
      ],
      attributeFiles: ['dir/.gitattributes', '.gitattributes'],
      entries: 18,
      malformed: false,
    })
    expect((await scanIndexListing(listing, null)).remove).not.toContain('.tangent/sessions/x.jsonl')
  })

  it('says an index with a mode git never writes is malformed, and skips text that is no entry', async () => {
    const odd = Buffer.from(
      `${entry('H', '100644', sha1, 0, 'a.txt')}${entry('H', '100664', sha1, 0, 'b.txt')}`,
    )
    expect((await scanIndexListing(odd, null)).malformed).toBe(true)
    const noEntry = Buffer.from(`no tab here\0${entry('H', '100644', sha1, 0, 'a.txt')}`)
    expect(await scanIndexListing(noEntry, null)).toEqual({
      remove: [],
      attributeFiles: [],
      entries: 1,
      malformed: false,
    })
  })

  it('scans a listing longer than one slice to its end', async () => {
    const files = Array.from({ length: 5000 }, (_, i) => `src/file${i}.ts`)
    const listing = Buffer.from(
      files.map((file, i) => entry(i % 1000 === 999 ? 'S' : 'H', '100644', sha1, 0, file)).join(''),
    )
    const scan = await scanIndexListing(listing, null)
    expect(scan.entries).toBe(5000)
    expect(scan.remove).toEqual([
      'src/file999.ts',
      'src/file1999.ts',
      'src/file2999.ts',
      'src/file3999.ts',
      'src/file4999.ts',
    ])
  })

  it("reads git's own listing of an index with skip-worktree, assume-unchanged and gitlink entries", async () => {
    const temps = new TempDirectories()
    try {
      const cwd = makeRepository(temps.make(), {
        'kept.txt': 'k\n',
        'sparse.txt': 's\n',
        'assumed.txt': 'a\n',
        'sub dir/.gitattributes': '*.bin -text\n',
      })
      git(cwd, 'update-index', '--skip-worktree', 'sparse.txt')
      git(cwd, 'update-index', '--assume-unchanged', 'assumed.txt')
      git(cwd, 'update-index', '--add', '--cacheinfo', `160000,${'c'.repeat(40)},module`)
      const listing = await runGit(['ls-files', '-s', '-v', '-z'], { cwd })
      const scan = await scanIndexListing(listing.stdout, null)
      expect(scan.remove.sort()).toEqual(['assumed.txt', 'module', 'sparse.txt'])
      expect(scan.attributeFiles).toEqual(['sub dir/.gitattributes'])
      expect(scan.malformed).toBe(false)
      expect(scan.entries).toBe(git(cwd, 'ls-files').trim().split('\n').length)
    } finally {
      temps.removeAll()
    }
  })
})

describe('scanIndexFile', () => {
  it("finds what git's listing of the same index finds, in index versions 2, 3 and 4", async () => {
    const temps = new TempDirectories()
    try {
      for (const version of ['2', '3', '4']) {
        const cwd = makeRepository(temps.make(), {
          'kept.txt': 'k\n',
          'sparse.txt': 's\n',
          'assumed.txt': 'a\n',
          'run.sh': '#!/bin/sh\n',
          'sub dir/.gitattributes': '*.bin -text\n',
          '.gitattributes': '',
          'not.gitattributes': 'n\n',
          'é ü/名前.txt': 'unicode\n',
          '.tangent/sessions/x.jsonl': '{}\n',
          '.tangentish': 'not home\n',
          'conflict.txt': 'c\n',
        })
        git(cwd, 'update-index', '--skip-worktree', 'sparse.txt')
        git(cwd, 'update-index', '--assume-unchanged', 'assumed.txt')
        git(cwd, 'update-index', '--chmod=+x', 'run.sh')
        git(cwd, 'update-index', '--add', '--cacheinfo', `160000,${'c'.repeat(40)},module`)
        const blob = git(cwd, 'rev-parse', 'HEAD:kept.txt').trim()
        git(cwd, 'update-index', '--add', '--cacheinfo', `120000,${blob},a-link`)
        // Paths longer than the 12 bits of an entry's length field (git then reads to the NUL).
        git(
          cwd,
          'update-index',
          '--add',
          '--cacheinfo',
          `100644,${blob},${'long-folder/'.repeat(400)}end.txt`,
        )
        git(
          cwd,
          'update-index',
          '--add',
          '--cacheinfo',
          `100644,${blob},${'long-folder/'.repeat(400)}sparse.txt`,
        )
        git(cwd, 'update-index', '--skip-worktree', `${'long-folder/'.repeat(400)}sparse.txt`)
        // An unmerged path (stages 1–3; in version 4 the names after the first add nothing).
        const conflict = [1, 2, 3].map((stage) => `100644 ${blob} ${stage}\tconflict.txt`).join('\n')
        git(cwd, 'update-index', '--force-remove', 'conflict.txt')
        runIndexInfo(cwd, `${conflict}\n`)
        // Intent to add: an entry with extended flags.
        writeFileSync(path.join(cwd, 'later.txt'), 'later\n')
        git(cwd, 'add', '-N', 'later.txt')
        git(cwd, 'update-index', '--index-version', version)
        const bytes = readFileSync(path.join(cwd, '.git', 'index'))
        const listing = await runGit(['ls-files', '-s', '-v', '-z'], { cwd })
        for (const excluded of [null, '.tangent']) {
          const fromGit = await scanIndexListing(listing.stdout, excluded)
          const fromFile = await scanIndexFile(bytes, excluded)
          expect(fromFile).toEqual(fromGit)
        }
        const scan = await scanIndexFile(bytes, '.tangent')
        expect(scan?.remove.sort()).toEqual(
          [
            'assumed.txt',
            'conflict.txt',
            `${'long-folder/'.repeat(400)}sparse.txt`,
            'module',
            'sparse.txt',
            '.tangent/sessions/x.jsonl',
          ].sort(),
        )
        expect(scan?.attributeFiles.sort()).toEqual(['.gitattributes', 'sub dir/.gitattributes'])
      }
    } finally {
      temps.removeAll()
    }
  })

  it('leaves to git an index it does not read as git would: split, an unknown version, cut short', async () => {
    const temps = new TempDirectories()
    try {
      const cwd = makeRepository(temps.make(), { 'a.txt': 'a\n', 'b.txt': 'b\n' })
      const whole = readFileSync(path.join(cwd, '.git', 'index'))
      expect((await scanIndexFile(whole, null))?.entries).toBe(2)
      expect(await scanIndexFile(whole.subarray(0, whole.length - 40), null)).toBeUndefined()
      const version5 = Buffer.from(whole)
      version5.writeUInt32BE(5, 4)
      expect(await scanIndexFile(version5, null)).toBeUndefined()
      git(cwd, '-c', 'splitIndex.sharedIndexExpire=never', 'update-index', '--split-index')
      expect(await scanIndexFile(readFileSync(path.join(cwd, '.git', 'index')), null)).toBeUndefined()
    } finally {
      temps.removeAll()
    }
  })
})

function runIndexInfo(cwd: string, input: string): void {
  execFileSync('git', ['update-index', '--index-info'], { cwd, input })
}
