// The data directory inside the project (TANGENT_HOME=./data): the agent's tools never write the
// logs they are recorded in, while a worktree fork's session — whose folder is in the data
// directory's worktrees/ — works as anywhere (docs/architecture.md §12.2).
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { Runtime } from './runtime.js'
import { tempDirs } from './temp-dirs.test-helper.js'

const temp = tempDirs('tangent-data-in-project-')

describe('a data directory inside the project', () => {
  it("refuses the agent's writes into it, and a worktree fork there still writes its own files", async () => {
    const project = temp()
    const home = path.join(project, 'data')
    const runtime = await Runtime.open({ home, startFolder: project, env: {} })
    try {
      const session = await runtime.createSession({})
      await runtime.prompt({ sessionId: session.id, text: 'write data/sessions/evil.txt: garbage' })
      await runtime.prompt({ sessionId: session.id, text: 'write notes.txt: mine' })
      const log = await runtime.getSession({ sessionId: session.id })
      const results = log.events.filter((event) => event.type === 'tool/result').map((event) => event.data)
      expect(results[0]).toMatchObject({
        isError: true,
        output: expect.stringContaining("inside Tangent's data directory"),
      })
      expect(fs.existsSync(path.join(home, 'sessions', 'evil.txt'))).toBe(false)
      expect(fs.readFileSync(path.join(project, 'notes.txt'), 'utf8')).toBe('mine\n')

      const fork = await runtime.fork({ sessionId: session.id, files: 'worktree' })
      const worktree = fork.session.files.path
      expect(worktree.startsWith(path.join(fs.realpathSync(home), 'worktrees'))).toBe(true)
      await runtime.prompt({ sessionId: fork.session.id, text: 'write branch.txt: in the worktree' })
      expect(fs.readFileSync(path.join(worktree, 'branch.txt'), 'utf8')).toBe('in the worktree\n')
    } finally {
      await runtime.close()
    }
  })

  it('refuses names the data directory does not hold yet, and links into it', async () => {
    const project = temp()
    const home = path.join(project, 'data')
    const runtime = await Runtime.open({ home, startFolder: project, env: {} })
    try {
      fs.symlinkSync('data', path.join(project, 'd'))
      const session = await runtime.createSession({})
      await runtime.prompt({ sessionId: session.id, text: 'write data/fresh-name.json: {}' })
      await runtime.prompt({ sessionId: session.id, text: 'write d/another/file.txt: x' })
      const log = await runtime.getSession({ sessionId: session.id })
      const results = log.events.filter((event) => event.type === 'tool/result').map((event) => event.data)
      expect(results).toHaveLength(2)
      for (const result of results) {
        expect(result).toMatchObject({
          isError: true,
          output: expect.stringContaining("inside Tangent's data directory"),
        })
      }
      expect(fs.existsSync(path.join(home, 'fresh-name.json'))).toBe(false)
      expect(fs.existsSync(path.join(home, 'another'))).toBe(false)
    } finally {
      await runtime.close()
    }
  })
})
