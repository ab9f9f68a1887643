import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { stdioCommandProblem } from './mcp-command-check.js'
import { tempDirs } from './temp-dirs.test-helper.js'

const tempDir = tempDirs('tangent-mcp-command-')

describe('stdioCommandProblem', () => {
  it('finds a command on PATH or by path from the server folder, and says what is wrong otherwise', () => {
    const dir = tempDir()
    const bin = path.join(dir, 'bin')
    fs.mkdirSync(bin)
    fs.writeFileSync(path.join(bin, 'server'), '#!/bin/sh\n', { mode: 0o755 })
    fs.writeFileSync(path.join(bin, 'notes'), 'not a program', { mode: 0o644 })
    const check = (command: string, searchPath?: string, cwd = dir) =>
      stdioCommandProblem({ command, cwd, searchPath })
    expect(check('server', `/nonexistent${path.delimiter}${bin}`)).toBeNull()
    expect(check('./bin/server')).toBeNull()
    expect(check(path.join(bin, 'server'))).toBeNull()
    expect(check('server', '/nonexistent')).toMatch(/command "server" is not found on PATH/)
    expect(check('server', undefined)).toMatch(/not found on PATH/)
    // There, but not something this user can run; a folder is not a program either.
    expect(check('notes', bin)).toMatch(/not found on PATH/)
    expect(check('./bin/notes')).toMatch(/bin\/notes is not an executable file/)
    expect(check('./bin')).toMatch(/is not an executable file/)
    expect(check('server', bin, path.join(dir, 'gone'))).toMatch(
      /its folder .*gone does not exist: fix "cwd"/,
    )
  })
})
