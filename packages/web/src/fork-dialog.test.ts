import { describe, expect, it } from 'vitest'
import { localFolderFor } from './fork-dialog.js'

const elsewhere = (cwd: string) => ({
  cwd,
  files: { mode: 'shared' as const, path: cwd, baseTree: null, machine: 'laptop-a', elsewhere: true },
})

describe('localFolderFor', () => {
  const workspaces = [
    { path: '/home/b/code/api', name: 'api' },
    { path: '/home/b/code/web', name: 'web' },
  ]

  it('takes the workspace at the same path, else the one of the same folder name', () => {
    expect(localFolderFor(elsewhere('/home/b/code/web'), workspaces)).toBe('/home/b/code/web')
    expect(localFolderFor(elsewhere('/Users/a/src/api'), workspaces)).toBe('/home/b/code/api')
  })

  it('asks (none) when no open workspace is the project, and for a session of this machine', () => {
    expect(localFolderFor(elsewhere('/Users/a/src/docs'), workspaces)).toBe('')
    const here = {
      cwd: '/home/b/code/api',
      files: { mode: 'shared' as const, path: '/home/b/code/api', baseTree: null },
    }
    expect(localFolderFor(here, workspaces)).toBe('')
  })
})
