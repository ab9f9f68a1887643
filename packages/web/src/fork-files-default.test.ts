import { describe, expect, it } from 'vitest'
import { forkFilesDefault, sessionChangedFiles } from './fork-files-default.js'
import type { SessionEvent } from './wire.js'

function log(...entries: [type: string, data?: unknown][]): SessionEvent[] {
  return entries.map(([type, data], seq) => ({ seq, time: seq, type, data: data ?? {} }))
}

describe('forkFilesDefault', () => {
  it('offers a worktree first once a turn changed files', () => {
    const events = log(
      ['snapshot/taken', { tree: 'a', changed: ['README.md'] }],
      ['turn/start'],
      ['snapshot/taken', { tree: 'b', changed: ['notes.txt'] }],
      ['turn/end'],
    )
    expect(sessionChangedFiles(events)).toBe(true)
    expect(forkFilesDefault(events)).toBe('worktree')
  })

  it('offers the shared folder when only the baseline snapshot lists files, or nothing is known', () => {
    const baselineOnly = log(
      ['snapshot/taken', { tree: 'a', changed: ['README.md'] }],
      ['turn/start'],
      ['snapshot/taken', { tree: 'a', changed: [] }],
      ['turn/end'],
    )
    expect(forkFilesDefault(baselineOnly)).toBe('shared')
    expect(forkFilesDefault(undefined)).toBe('shared')
  })

  it('counts a restore that changed files', () => {
    const events = log(['turn/start'], ['turn/end'], ['files/restored', { tree: 'a', changed: ['x.txt'] }])
    expect(forkFilesDefault(events)).toBe('worktree')
  })
})
