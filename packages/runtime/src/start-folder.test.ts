// A runtime's start folder that no longer exists (docs/architecture.md §9): a read-only runtime
// opens (its reads never use it), one that writes refuses with `not-a-directory` naming it.
import fs from 'node:fs'
import path from 'node:path'
import { TangentError } from '@tangent/core'
import { describe, expect, it } from 'vitest'
import { Runtime } from './runtime.js'
import { tempDirs } from './temp-dirs.test-helper.js'

const temp = tempDirs('tangent-start-folder-')

describe('a start folder that is gone', () => {
  it('opens a read-only runtime, which lists and reads the sessions', async () => {
    const home = temp()
    const writer = await Runtime.open({ home, startFolder: temp(), env: {} })
    const session = await writer.createSession({})
    await writer.close()
    const gone = path.join(temp(), 'removed')
    const reader = await Runtime.open({ home, startFolder: gone, env: {}, readOnly: true })
    try {
      expect(reader.startFolder).toBe(gone)
      expect((await reader.listSessions({})).map((summary) => summary.id)).toEqual([session.id])
      expect((await reader.getSession({ sessionId: session.id })).session.id).toBe(session.id)
    } finally {
      await reader.close()
    }
  })

  it('a runtime that writes opens there; a session started in the folder is refused, naming it; forks and renames work', async () => {
    const home = temp()
    const setup = await Runtime.open({ home, startFolder: temp(), env: {} })
    const existing = await setup.createSession({})
    await setup.prompt({ sessionId: existing.id, text: 'hello' })
    await setup.close()
    const gone = path.join(temp(), 'removed')
    const file = path.join(temp(), 'a-file')
    fs.writeFileSync(file, 'x')
    for (const startFolder of [gone, file]) {
      const writer = await Runtime.open({ home, startFolder, env: {} })
      try {
        const error = await writer.createSession({}).then(
          () => null,
          (failure: unknown) => failure,
        )
        expect(TangentError.hasCode(error, 'not-a-directory'), String(error)).toBe(true)
        expect((error as Error).message).toContain(startFolder)
        // Work that does not start in the folder goes on as from anywhere.
        const fork = await writer.fork({ sessionId: existing.id })
        expect((await writer.rename({ sessionId: fork.session.id, title: 'renamed' })).title).toBe('renamed')
        // A session given its own folder starts there.
        expect((await writer.createSession({ cwd: temp() })).id).toMatch(/^[0-9A-Z]{26}$/)
      } finally {
        await writer.close()
      }
    }
  })

  it('refuses to serve a start folder that is gone (openStartFolder), and takes no lock', async () => {
    const home = temp()
    const gone = path.join(temp(), 'removed')
    const error = await Runtime.open({ home, startFolder: gone, env: {}, openStartFolder: true }).then(
      () => null,
      (failure: unknown) => failure,
    )
    expect(TangentError.hasCode(error, 'not-a-directory'), String(error)).toBe(true)
    expect((error as Error).message).toContain(gone)
    // Nothing was left holding the data directory: a writer opens it now.
    const writer = await Runtime.open({ home, startFolder: temp(), env: {} })
    await writer.close()
  })
})
