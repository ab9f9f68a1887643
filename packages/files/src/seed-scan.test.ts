import { describe, expect, it } from 'vitest'
import { git, makeRepository, TempDirectories } from './fixture.test-helper.js'
import { runGit } from './git.js'
import { scanIndexListing } from './seed.js'

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
