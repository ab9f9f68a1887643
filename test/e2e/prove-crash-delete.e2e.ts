// Crash during delete (issue 6, docs/architecture.md §4): deleting a parent first rewrites each fork that
// reads its prefix by reference with the prefix inline, then removes the parent. SIGKILL the
// built `tangent serve` at seeded moments inside that; after a restart every fork still loads
// with exactly the parent's prefix, and the parent is either whole or gone.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { connectRpc, proveSeed, proveSize, seededRandom, sleep, spawnServe, tempDir } from '../soak/lib.mjs'

describe('prove: crash during delete', () => {
  it('a parent deleted while the Host is SIGKILLed: its 20 forks keep their history', async () => {
    const seed = proveSeed('crash-delete', 99)
    const random = seededRandom(seed)
    const root = tempDir('tangent-crash-delete-')
    const home = path.join(root, 'home')
    const work = path.join(root, 'work')
    fs.mkdirSync(work)
    const outcomes: string[] = []
    try {
      // 3 rounds in `npm test`, 5 in `npm run soak -- --only prove`.
      for (let round = 0; round < proveSize(3, 5); round++) {
        let host = await spawnServe({ home, cwd: work })
        let client = await connectRpc(host.info)
        const parent = await client.call('session.create', { cwd: work })
        await client.call('session.prompt', { sessionId: parent.id, text: 'run: echo parent' })
        await client.call('session.prompt', { sessionId: parent.id, text: 'second turn' })
        const { events } = await client.call('session.get', { sessionId: parent.id })
        const forks = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            client.call('session.fork', { sessionId: parent.id, atSeq: i % 2 === 0 ? 0 : events.length - 1 }),
          ),
        )
        const killAfter = random.int(0, 400)
        const deleting = client.call('session.delete', { sessionId: parent.id }).then(
          () => 'deleted',
          () => 'cut',
        )
        await sleep(killAfter)
        await host.kill('SIGKILL')
        const answered = await deleting
        client.close()

        host = await spawnServe({ home, cwd: work })
        client = await connectRpc(host.info)
        try {
          const listed = new Set(
            (await client.call('session.list', { includeArchived: true })).map((s) => s.id),
          )
          for (const fork of forks) {
            expect(listed.has(fork.session.id), `fork ${fork.session.id} listed`).toBe(true)
            const child = await client.call('session.get', { sessionId: fork.session.id })
            expect(JSON.stringify(child.events.slice(0, fork.boundary + 1))).toBe(
              JSON.stringify(events.slice(0, fork.boundary + 1)),
            )
            expect(child.events.slice(fork.boundary + 1).map((event) => event.type)).toEqual([
              'session/title',
            ])
          }
          // The parent is whole (the kill came first) or gone; never half there.
          const parentAfter = await client
            .call('session.get', { sessionId: parent.id })
            .then((got) => JSON.stringify(got.events) === JSON.stringify(events))
            .catch((error: { data?: { code?: string } }) => error.data?.code ?? 'error')
          expect([true, 'session-not-found']).toContain(parentAfter)
          expect(listed.has(parent.id)).toBe(parentAfter === true)
          const inline = forks.filter((fork) =>
            fs
              .readFileSync(path.join(home, 'sessions', `${fork.session.id}.jsonl`), 'utf8')
              .includes('"seed":"inline"'),
          ).length
          outcomes.push(
            `kill at ${killAfter} ms: delete ${answered}, parent ${parentAfter === true ? 'whole' : 'gone'}, ${inline}/20 forks inline`,
          )
          // The forks work: one of them takes a new turn.
          const result = await client.call('session.prompt', {
            sessionId: forks[0]!.session.id,
            text: 'still here',
          })
          expect(result.reason).toBe('completed')
        } finally {
          client.close()
          await host.kill('SIGTERM')
        }
      }
      console.log(`[prove] crash-delete: ${outcomes.join(', ')}`)
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  }, 300_000)
})
