import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { isWorkspacesFile, WorkspaceRegistry, WorkspacesFile } from './workspaces.js'

const good = { id: 'w1', path: '/tmp/a', name: 'a', openedAt: 5 }
const cases: unknown[] = [
  { version: 1, workspaces: [] },
  { version: 1, workspaces: [good, { id: 'w2', path: '/b', name: 'b' }] },
  { version: 1, workspaces: [{ ...good, extra: true }] },
  { version: 1, workspaces: [good], extra: 1 },
  { version: 2, workspaces: [good] },
  { version: 1, workspaces: [{ ...good, openedAt: '5' }] },
  { version: 1, workspaces: [{ ...good, openedAt: null }] },
  { version: 1, workspaces: [{ id: 'w1', path: '/a' }] },
  { version: 1, workspaces: [{ ...good, id: 3 }] },
  { version: 1, workspaces: [null] },
  { version: 1, workspaces: {} },
  { version: 1 },
  [],
  null,
  'x',
  JSON.parse('{"version":1,"workspaces":[{"id":"w","path":"/p","name":"n","__proto__":{}}]}'),
]

describe('isWorkspacesFile', () => {
  it('accepts only what WorkspacesFile accepts, as it is', () => {
    let accepted = 0
    for (const value of cases) {
      const parsed = WorkspacesFile.safeParse(value)
      if (!isWorkspacesFile(value)) continue
      accepted++
      expect(parsed.success, JSON.stringify(value)).toBe(true)
      expect(parsed.data).toStrictEqual(value)
    }
    expect(accepted).toBe(2)
  })
})

describe('WorkspaceRegistry.open', () => {
  let home: string | undefined
  afterEach(async () => {
    if (home) await rm(home, { recursive: true, force: true })
  })

  it('reads a valid file, and refuses a damaged one with zod saying why', async () => {
    home = await mkdtemp(path.join(os.tmpdir(), 'tangent-ws-'))
    const file = path.join(home, 'workspaces.json')
    await writeFile(file, JSON.stringify({ version: 1, workspaces: [good] }))
    expect((await WorkspaceRegistry.open(home)).list()).toEqual([good])
    await writeFile(file, JSON.stringify({ version: 1, workspaces: [{ ...good, extra: 1 }] }))
    expect((await WorkspaceRegistry.open(home)).list()).toEqual([good])
    await writeFile(file, JSON.stringify({ version: 1, workspaces: [{ ...good, name: 7 }] }))
    await expect(WorkspaceRegistry.open(home)).rejects.toMatchObject({
      code: 'corrupt-workspaces',
      message: expect.stringMatching(/expected string, received number/),
    })
  })

  it('opened read-only over a damaged file: no workspaces, the problem kept, every change refused, the file untouched', async () => {
    home = await mkdtemp(path.join(os.tmpdir(), 'tangent-ws-'))
    const file = path.join(home, 'workspaces.json')
    await writeFile(file, 'x')
    await expect(WorkspaceRegistry.open(home)).rejects.toMatchObject({ code: 'corrupt-workspaces' })
    const registry = await WorkspaceRegistry.open(home, { readOnly: true })
    expect(registry.list()).toEqual([])
    expect(registry.problem).toMatchObject({ code: 'corrupt-workspaces', data: { file } })
    await expect(registry.open(home)).rejects.toMatchObject({ code: 'corrupt-workspaces' })
    expect(await readFile(file, 'utf8')).toBe('x')
    // A good file read-only has no problem.
    await writeFile(file, JSON.stringify({ version: 1, workspaces: [good] }))
    expect((await WorkspaceRegistry.open(home, { readOnly: true })).problem).toBeNull()
  })
})
