// The file sources of the session contract (docs/architecture.md §6.1): a client (an editor)
// attaches a source to a session, and the `read` tool takes a file's text from it — only for
// paths the session may read, bounded by a timeout, falling back to the disk. Run by
// session-contract.ts against every front-end.
import fs from 'node:fs'
import path from 'node:path'
import type { SessionApi } from '@tangent/runtime'
import { describe, expect, it } from 'vitest'

export interface FileSourceFixture {
  api: SessionApi
  /** Where `~` points for this runtime (its user config lives under it). */
  homeDir: string
}

export function fileSourceContract(options: {
  fixture: () => FileSourceFixture
  tempDir: (prefix?: string) => string
  /** The runtime's `fileSourceTimeoutMs`. */
  timeoutMs: number
}): void {
  const api = () => options.fixture().api
  const turn = (sessionId: string, text: string) => api().call('session.prompt', { sessionId, text })
  const results = async (sessionId: string) =>
    (await api().call('session.get', { sessionId })).events
      .filter((event) => event.type === 'tool/result')
      .map((event) => event.data as { toolName: string; output: string; isError: boolean })
  /** A session in a new folder holding open.txt and other.txt. */
  const project = async () => {
    const work = options.tempDir('tangent-buffers-')
    fs.writeFileSync(path.join(work, 'open.txt'), 'ON DISK\n')
    fs.writeFileSync(path.join(work, 'other.txt'), 'other on disk\n')
    const session = await api().call('session.create', { cwd: work })
    return { work, session }
  }

  describe('file sources', () => {
    it('read takes the text the attached source holds, the disk’s for a file it does not; detached, the disk’s again', async () => {
      const { work, session } = await project()
      const asked: string[] = []
      const detach = await api().attachFileSource(session.id, async (absolutePath) => {
        asked.push(absolutePath)
        return absolutePath === path.join(work, 'open.txt') ? 'UNSAVED BUFFER' : null
      })
      expect((await turn(session.id, 'read open.txt\nread other.txt')).reason).toBe('completed')
      expect(await results(session.id)).toMatchObject([
        { toolName: 'read', output: 'UNSAVED BUFFER', isError: false },
        { toolName: 'read', output: 'other on disk\n', isError: false },
      ])
      expect(asked).toEqual([path.join(work, 'open.txt'), path.join(work, 'other.txt')])
      // Only reads: the disk is as it was.
      expect(fs.readFileSync(path.join(work, 'open.txt'), 'utf8')).toBe('ON DISK\n')

      await detach()
      await detach()
      await turn(session.id, 'read open.txt')
      expect((await results(session.id)).at(-1)).toMatchObject({ output: 'ON DISK\n', isError: false })
      expect(asked).toHaveLength(2)
    })

    it('a source that is silent or fails: read falls back to the disk and says why', async () => {
      const { session } = await project()
      const hang = await api().attachFileSource(session.id, () => new Promise<string | null>(() => {}))
      const startedAt = Date.now()
      await turn(session.id, 'read open.txt')
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(options.timeoutMs - 50)
      const silent = (await results(session.id)).at(-1)!
      expect(silent.isError).toBe(false)
      expect(silent.output).toMatch(/^ON DISK\n\n\[the editor did not answer within \d+ ms: read from disk/)
      await hang()

      await api().attachFileSource(session.id, async () => {
        throw new Error('buffer store broke')
      })
      await turn(session.id, 'read open.txt')
      const failed = (await results(session.id)).at(-1)!
      expect(failed.output).toMatch(/^ON DISK\n/)
      expect(failed.output).toContain('buffer store broke')
    })

    it('the source’s text is bound like a file’s: too large is refused, NUL bytes are binary', async () => {
      const { session } = await project()
      const big = 'x'.repeat(10 * 1024 * 1024 + 1)
      const held = new Map([
        ['open.txt', 'a\u0000b'],
        ['other.txt', big],
      ])
      await api().attachFileSource(
        session.id,
        async (absolutePath) => held.get(path.basename(absolutePath)) ?? null,
      )
      await turn(session.id, 'read open.txt\nread other.txt')
      const [binary, large] = await results(session.id)
      expect(binary).toMatchObject({
        output: 'open.txt is a binary file (3 bytes); not shown.',
        isError: false,
      })
      // Over a Host the text cannot fit one message: the client says so and the disk is read.
      if (api().kind === 'host') {
        expect(large!.output).toMatch(
          /^other on disk\n\n\[the editor could not give its copy \(the text is too large/,
        )
      } else {
        expect(large).toMatchObject({ isError: true })
        expect(large!.output).toContain('too large to read')
      }
    })

    it('is never asked about a path out of the folder, through a link out, denied by the rules, a folder or a missing file', async () => {
      const { work, session } = await project()
      const outside = options.tempDir('tangent-outside-')
      fs.writeFileSync(path.join(outside, 'secret.txt'), 'outside\n')
      fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(work, 'link.txt'))
      fs.writeFileSync(path.join(work, 'denied.txt'), 'denied\n')
      fs.mkdirSync(path.join(work, 'sub'))
      const config = path.join(options.fixture().homeDir, '.config', 'tangent')
      fs.mkdirSync(config, { recursive: true })
      fs.writeFileSync(
        path.join(config, 'config.json'),
        JSON.stringify({ permission: { read: { 'denied.txt': 'deny' } } }),
      )
      const asked: string[] = []
      await api().attachFileSource(session.id, async (absolutePath) => {
        asked.push(absolutePath)
        return 'LEAKED'
      })
      const relativeOut = path.relative(work, path.join(outside, 'secret.txt'))
      await turn(
        session.id,
        [
          `read ${relativeOut}`,
          `read ${path.join(outside, 'secret.txt')}`,
          'read link.txt',
          'read denied.txt',
          'read sub',
          'read missing.txt',
        ].join('\n'),
      )
      const all = await results(session.id)
      expect(all).toHaveLength(6)
      for (const result of all) {
        expect(result.isError).toBe(true)
        expect(result.output).not.toContain('LEAKED')
      }
      expect(asked).toEqual([])
    })

    it('refuses a source for an unknown session', async () => {
      await expect(api().attachFileSource('NOSUCHSESSION', async () => null)).rejects.toMatchObject({
        code: 'session-not-found',
      })
    })
  })
}
