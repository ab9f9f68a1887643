// The agent composed as the Host composes it: a JsonlStore for durability, FileState for
// snapshots, the demo model and the real tools. Logs must read back identical after a
// reopen, forks included.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Agent, ModelRegistry } from '@tangent/agent'
import { grammarStateOf } from '@tangent/core'
import { FileState } from '@tangent/files'
import { JsonlStore } from '@tangent/store-jsonl'
import { afterEach, describe, expect, it } from 'vitest'

const roots: string[] = []
afterEach(() => {
  for (const root of roots.splice(0)) fs.rmSync(root, { recursive: true, force: true })
})

describe('agent with JsonlStore and FileState', () => {
  it('persists turns, snapshots and a fork, and reads them back after a reopen', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-agent-e2e-'))
    roots.push(root)
    const home = path.join(root, 'home')
    const cwd = path.join(root, 'work')
    fs.mkdirSync(cwd)
    const models = new ModelRegistry({ env: {} })
    const files = new FileState({ home })

    const jsonl = await JsonlStore.open({ dir: home })
    const session = jsonl.store.create(undefined, { meta: { cwd } })
    const makeAgent = (live: typeof session) =>
      new Agent({
        session: live,
        models,
        flush: () => jsonl.flush(live.id),
        snapshot: (s) => files.snapshot(s.header.cwd),
      })
    const agent = makeAgent(session)
    expect((await agent.prompt('write notes.txt: hello')).reason).toBe('completed')
    const firstEnd = session.lastSeq
    expect((await agent.prompt('append notes.txt: world')).reason).toBe('completed')
    expect(fs.readFileSync(path.join(cwd, 'notes.txt'), 'utf8')).toBe('hello\nworld\n')
    const snapshots = session.events.filter((event) => event.type === 'snapshot/taken')
    // A baseline right after the first user message (nothing changed yet), then one per tool step.
    expect(snapshots.map((event) => (event.data as { changed: string[] }).changed)).toEqual([
      [],
      ['notes.txt'],
      ['notes.txt'],
    ])
    expect(session.events[snapshots[0]!.seq - 1]?.type).toBe('user/message')

    const child = jsonl.store.fork(session, firstEnd)
    const childAgent = makeAgent(child)
    expect((await childAgent.prompt('which turn is this?')).reason).toBe('completed')
    // The fork inherits the parent's snapshots, so its first turn takes no baseline of its own.
    expect(child.events.filter((event) => event.type === 'snapshot/taken')).toHaveLength(2)
    const childAnswer = child.events.findLast((event) => event.type === 'assistant/message')!.data
    expect(childAnswer).toEqual({
      content: [{ type: 'text', text: 'Turn 2: you said "which turn is this?".' }],
    })
    const parentEvents = JSON.stringify(session.events)
    const childEvents = JSON.stringify(child.events)
    await jsonl.close()

    const reopened = await JsonlStore.open({ dir: home })
    try {
      const parentBack = await reopened.load(session.id)
      const childBack = await reopened.load(child.id)
      expect(JSON.stringify(parentBack.events)).toBe(parentEvents)
      expect(JSON.stringify(childBack.events)).toBe(childEvents)
      expect(grammarStateOf(childBack.events).phase).toBe('idle')
      expect(childBack.header.parentSession).toBe(session.id)
    } finally {
      await reopened.close()
    }
  })
})
