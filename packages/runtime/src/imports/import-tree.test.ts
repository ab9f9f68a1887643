import { describe, expect, it } from 'vitest'
import { Runtime } from '../runtime.js'
import { tempDirs } from '../temp-dirs.test-helper.js'
import type { ImportedEntry, ImportedTree } from './imported-tree.js'

const tempDir = tempDirs('tangent-import-')

describe('importTree', () => {
  it('leaves nothing of an import that fails part-way (an event the store refuses in the second session)', async () => {
    const start = tempDir()
    const runtime = await Runtime.open({
      home: tempDir(),
      startFolder: start,
      homeDir: tempDir(),
      maxEventBytes: 4096,
      report: () => {},
    })
    try {
      const entries: ImportedEntry[] = [
        { kind: 'user', id: 'u1', parentId: null, text: 'hi' },
        { kind: 'assistant', id: 'a1', parentId: 'u1', text: 'hello', toolCalls: [] },
        { kind: 'user', id: 'u2', parentId: 'a1', text: 'small' },
        { kind: 'user', id: 'u3', parentId: 'a1', text: 'x'.repeat(10_000) },
      ]
      const tree: ImportedTree = {
        source: 'codex',
        sourceId: 'big',
        cwd: null,
        entries,
        subtrees: [],
        problems: [],
      }
      await expect(runtime.importTree(tree)).rejects.toMatchObject({ code: 'invalid-event' })
      expect(await runtime.listSessions({ includeArchived: true })).toEqual([])
      // The same tree without the oversized branch imports, and the failed attempt left no record behind.
      const result = await runtime.importTree({ ...tree, entries: entries.slice(0, 3) })
      expect(result.sessions.map((session) => session.created)).toEqual([true])
    } finally {
      await runtime.close()
    }
  })
})
