import picocolors from 'picocolors'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type LocalBackend, openLocalBackend } from '../local-backend.test-helper.js'
import { userText } from '../render/event-text.js'
import { TuiStore } from './tui-store.js'

const plain = picocolors.createColors(false)

/** Waits until the store's state satisfies `check` (state changes arrive from the runtime's events). */
async function until(
  store: TuiStore,
  check: (state: ReturnType<TuiStore['getSnapshot']>) => boolean,
): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!check(store.getSnapshot())) {
    if (Date.now() > deadline)
      throw new Error(`state never matched: ${JSON.stringify(store.getSnapshot().notice)}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

const messages = (store: TuiStore) =>
  (store.getSnapshot().open?.events ?? [])
    .filter((event) => event.type === 'user/message')
    .map((event) => userText(event.data))

let local: LocalBackend
let sessionId: string
beforeAll(async () => {
  local = await openLocalBackend()
  sessionId = (await local.backend.createSession({ cwd: local.project, title: 'three turns' })).id
  for (const text of ['one', 'two', 'three']) await local.turn(sessionId, text)
})
afterAll(() => local.close())

describe('TuiStore over a real runtime', () => {
  it('opens a session with the tail of its log only, and lists it in the tree', async () => {
    const store = new TuiStore(local.backend, plain, local.project, { windowEvents: 6 })
    await store.start(sessionId)
    const { open, rows } = store.getSnapshot()
    expect(open!.events).toHaveLength(6)
    expect(open!.events[0]!.seq).toBe(open!.session.eventCount - 6)
    expect(rows.map((row) => row.sessionId)).toContain(sessionId)
    // Scrolled up past it: the page before, no gap, no duplicate.
    const first = open!.events[0]!.seq
    await store.loadEarlier()
    const seqs = store.getSnapshot().open!.events.map((event) => event.seq)
    expect(seqs[0]).toBe(Math.max(0, first - 6))
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => seqs[0]! + i))
    await store.close()
  })

  it('shows a turn another client runs in the open session, and a session another client makes in the tree', async () => {
    const store = new TuiStore(local.backend, plain, local.project)
    await store.start(sessionId)
    await local.turn(sessionId, 'from another client')
    await until(store, () => messages(store).includes('from another client'))
    const made = await local.backend.createSession({ cwd: local.project, title: 'made elsewhere' })
    await until(store, (state) => state.rows.some((row) => row.sessionId === made.id))
    await store.close()
  })

  it('sends the composer, forks with /fork, and /branch puts the message back to edit in a new branch', async () => {
    const store = new TuiStore(local.backend, plain, local.project)
    await store.start(null)
    store.setDraft('first words')
    await store.submit()
    expect(store.getSnapshot().draft).toBe('')
    await until(store, (state) => state.open?.events.at(-1)?.type === 'turn/end' && !state.sending)
    const first = store.getSnapshot().open!.session
    expect(first.title).toBe('first words')
    store.setDraft('second words')
    await store.submit()
    await until(
      store,
      (state) => messages(store).length === 2 && state.open?.events.at(-1)?.type === 'turn/end',
    )

    store.setDraft('/fork')
    await store.submit()
    const forked = store.getSnapshot().open!.session
    expect(forked.parentSession).toBe(first.id)
    expect(store.getSnapshot().notice?.text).toMatch(/^Forked through seq \d+/)

    store.setDraft('/branch')
    await store.submit()
    const branched = store.getSnapshot()
    expect(branched.open!.session.parentSession).toBe(forked.id)
    // Before the last turn: its message is back in the composer, the branch holds the first turn only.
    expect(branched.draft).toBe('second words')
    expect(messages(store)).toEqual(['first words'])
    await store.close()
  })

  it('says what is wrong with a bad slash command and changes nothing; /export writes the file', async () => {
    const written: [string, string][] = []
    const store = new TuiStore(local.backend, plain, local.project, {
      writeFile: (file, text) => written.push([file, text]),
    })
    await store.start(sessionId)
    store.setDraft('/nope')
    await store.submit()
    expect(store.getSnapshot().notice).toEqual({
      kind: 'error',
      text: 'Unknown command /nope. Type /help for the list.',
    })
    store.setDraft('/restore')
    await store.submit()
    expect(store.getSnapshot().notice).toEqual({ kind: 'error', text: 'usage: /restore SEQ' })
    store.setDraft('/export md')
    await store.submit()
    expect(written).toHaveLength(1)
    expect(written[0]![0]).toBe(`${local.project}/tangent-${sessionId}.md`)
    expect(written[0]![1]).toContain('three')
    await store.close()
  })
})
