import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { WorktreeOrigins } from './worktree-origins.js'

const temps: string[] = []
afterEach(() => {
  for (const dir of temps.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

function home(records: Record<string, object>): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-origins-')))
  temps.push(dir)
  fs.mkdirSync(path.join(dir, 'worktrees'))
  for (const [id, record] of Object.entries(records))
    fs.writeFileSync(path.join(dir, 'worktrees', `${id}.json`), JSON.stringify(record))
  return dir
}

describe('WorktreeOrigins', () => {
  it('finds the project folder of an older worktree fork from its record, through forks of forks', () => {
    const data = home({})
    const worktrees = path.join(data, 'worktrees')
    fs.writeFileSync(
      path.join(worktrees, 'copy.json'),
      JSON.stringify({ kind: 'copy', root: path.join(worktrees, 'copy'), sourceCwd: '/projects/app' }),
    )
    fs.writeFileSync(
      path.join(worktrees, 'again.json'),
      JSON.stringify({
        kind: 'copy',
        root: path.join(worktrees, 'again'),
        sourceCwd: path.join(worktrees, 'copy'),
      }),
    )
    fs.writeFileSync(
      path.join(worktrees, 'git.json'),
      JSON.stringify({
        kind: 'git-worktree',
        root: path.join(worktrees, 'git'),
        sourceCwd: '/projects/repo/sub',
        repository: '/projects/repo',
      }),
    )
    const origins = new WorktreeOrigins(data)
    expect(origins.folderOf(path.join(worktrees, 'copy'))).toBe('/projects/app')
    expect(origins.folderOf(path.join(worktrees, 'again'))).toBe('/projects/app')
    expect(origins.folderOf(path.join(worktrees, 'git', 'sub'))).toBe('/projects/repo/sub')
    // No record (removed), or not a worktree at all: nothing known.
    expect(origins.folderOf(path.join(worktrees, 'gone'))).toBeUndefined()
    expect(origins.folderOf('/projects/app')).toBeUndefined()
  })
})
