// Session files the real tools wrote (test/fixtures/imports/) read by their reader and imported end
// to end: a branch kept inside a file becomes a Tangent fork, compactions and summaries are kept,
// a second import makes nothing, and the imported session continues offline with the demo model.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { Runtime } from '../runtime.js'
import { tempDirs } from '../temp-dirs.test-helper.js'
import { readClaudeSession } from './claude.js'
import { readCodexRollout } from './codex.js'
import type { ImportedTree } from './imported-tree.js'
import { readPiSession } from './pi.js'

const tempDir = tempDirs('tangent-real-import-')
const fixtures = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../../test/fixtures/imports',
)

const cases: {
  name: string
  read: (text: string) => ImportedTree
  /** Imported together; the first is the one checked for forks and continued. */
  files: string[]
  forks: number
  /** Event types the imported sessions hold between them. */
  types: string[]
  model: RegExp
}[] = [
  {
    name: 'Claude Code: the rewind becomes a fork, /compact a compaction',
    read: readClaudeSession,
    files: ['claude/tools-branch-compact.jsonl'],
    forks: 1,
    types: ['context/compacted', 'tool/result'],
    model: /claude/,
  },
  {
    name: 'Codex: one linear session; its compaction, and its shell and patch calls with their results',
    read: readCodexRollout,
    files: ['codex/compacted.jsonl', 'codex/resumed.jsonl'],
    forks: 0,
    types: ['context/compacted', 'tool/result'],
    model: /gpt/,
  },
  {
    name: "pi: the branched file becomes a session and its forks, with pi's branch summary",
    read: readPiSession,
    files: ['pi/branched.jsonl'],
    forks: 2,
    types: ['import/branch-summary'],
    model: /claude/,
  },
]

describe('session files of other tools, imported', () => {
  it.each(cases)('$name; a second import makes nothing; it continues', async (c) => {
    const start = tempDir()
    const runtime = await Runtime.open({
      home: tempDir(),
      startFolder: start,
      homeDir: tempDir(),
      report: () => {},
    })
    try {
      const trees = c.files.map((file) => c.read(fs.readFileSync(path.join(fixtures, file), 'utf8')))
      const results = []
      for (const tree of trees) results.push(await runtime.importTree(tree, { cwd: start }))
      const [main, ...forks] = results[0]!.sessions
      expect(forks).toHaveLength(c.forks)
      for (const fork of forks) expect(fork.parentSession).toBe(main!.id)
      const types = new Set<string>()
      for (const { id } of results.flatMap((result) => result.sessions))
        for (const event of (await runtime.getSession({ sessionId: id })).events) types.add(event.type)
      for (const type of c.types) expect(types, type).toContain(type)
      const again = await runtime.importTree(trees[0]!, { cwd: start })
      expect(again.sessions.map((session) => [session.id, session.created])).toEqual(
        results[0]!.sessions.map((session) => [session.id, false]),
      )
      // Ordinary: recorded with the tool's model, it goes on with any model — here the offline demo.
      const before = await runtime.getSession({ sessionId: main!.id })
      expect(before.session.model?.model).toMatch(c.model)
      await runtime.setModel({ sessionId: main!.id, model: 'demo:scripted' })
      expect((await runtime.prompt({ sessionId: main!.id, text: 'and now?' })).reason).toBe('completed')
      expect((await runtime.getSession({ sessionId: main!.id })).events.length).toBeGreaterThan(
        before.events.length,
      )
    } finally {
      await runtime.close()
    }
  })
})

describe('a Codex fork (a rollout that names its parent and holds only what follows)', () => {
  const read = (file: string) => readCodexRollout(fs.readFileSync(path.join(fixtures, 'codex', file), 'utf8'))
  const userTexts = (events: { type: string; data: unknown }[]) =>
    events
      .filter((event) => event.type === 'user/message')
      .map((event) => (event.data as { content: { text?: string }[] }).content.map((p) => p.text).join(''))
  const open = async () =>
    Runtime.open({ home: tempDir(), startFolder: tempDir(), homeDir: tempDir(), report: () => {} })

  it('becomes a Tangent fork of the imported parent, after its last turn before the fork point', async () => {
    const runtime = await open()
    const cwd = tempDir()
    try {
      const parent = (await runtime.importTree(read('resumed.jsonl'), { cwd })).sessions[0]!
      const forked = await runtime.importTree(read('forked.jsonl'), { cwd })
      expect(forked.sessions).toHaveLength(1)
      expect(forked.sessions[0]!.parentSession).toBe(parent.id)
      const parentEvents = (await runtime.getSession({ sessionId: parent.id })).events
      const child = await runtime.getSession({ sessionId: forked.sessions[0]!.id })
      expect(child.session.parentSession).toBe(parent.id)
      // The whole parent (forked_from_ordinal_exclusive 51: every line of it), then the fork's turn
      expect(child.session.forkedAt).toBe(parentEvents.at(-1)!.seq)
      expect(userTexts(child.events)).toEqual([
        'Look around, then write notes.txt and fix its second line.',
        'Now delete hello.txt.',
        'Say what this fork keeps.',
      ])
      // Idempotent: a second import of either makes nothing
      expect((await runtime.importTree(read('forked.jsonl'), { cwd })).sessions[0]).toMatchObject({
        id: forked.sessions[0]!.id,
        created: false,
      })
    } finally {
      await runtime.close()
    }
  })

  it('forks at the turn boundary before the fork when the parent imported holds more', async () => {
    const runtime = await open()
    const cwd = tempDir()
    try {
      const parent = (await runtime.importTree(read('resumed.jsonl'), { cwd })).sessions[0]!
      // As if the fork had been made between the parent's two turns (the first ends on line 36)
      const tree = read('forked.jsonl')
      tree.forkedFrom = { sourceId: tree.forkedFrom!.sourceId, throughLine: 36 }
      const between = Date.parse('2026-12-04T02:54:13.000Z')
      for (const [index, entry] of tree.entries.entries()) entry.time = between + index
      const forked = (await runtime.importTree(tree, { cwd })).sessions[0]!
      expect(forked.parentSession).toBe(parent.id)
      const child = await runtime.getSession({ sessionId: forked.id })
      expect(userTexts(child.events)).toEqual([
        'Look around, then write notes.txt and fix its second line.',
        'Say what this fork keeps.',
      ])
      const parentEvents = (await runtime.getSession({ sessionId: parent.id })).events
      expect(parentEvents[child.session.forkedAt!]!.type).toBe('turn/end')
    } finally {
      await runtime.close()
    }
  })

  it('is a start of its own when its parent was not imported here', async () => {
    const runtime = await open()
    try {
      const forked = (await runtime.importTree(read('forked.jsonl'), { cwd: tempDir() })).sessions[0]!
      expect(forked.parentSession).toBeUndefined()
      const child = await runtime.getSession({ sessionId: forked.id })
      expect(child.session.parentSession ?? null).toBeNull()
      expect(userTexts(child.events)).toEqual(['Say what this fork keeps.'])
    } finally {
      await runtime.close()
    }
  })
})
