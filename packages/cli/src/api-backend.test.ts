// The CLI's Backend over a SessionApi: an import's text goes to session.import whatever its size (a
// Host api uploads a large one in pieces); export pages are followed until the last.
import type { SessionApi } from '@tangent/runtime'
import { describe, expect, it } from 'vitest'
import { ApiBackend } from './api-backend.js'

function fakeApi(kind: 'host' | 'local', answer: (method: string, params: unknown) => unknown) {
  const calls: { method: string; params: unknown }[] = []
  const api = {
    kind,
    async call(method: string, params: unknown) {
      calls.push({ method, params })
      return answer(method, params)
    },
    close: async () => {},
  } as unknown as SessionApi
  return { api, calls }
}

describe('ApiBackend bundles', () => {
  it('hands a file of any size to the SessionApi (a Host api uploads one past a message in pieces: host-api.ts)', async () => {
    const content = `${'"'.repeat(600 * 1024)}\n` // 600 KiB that JSON-escape to 1.2 MB
    for (const kind of ['host', 'local'] as const) {
      const fake = fakeApi(kind, () => ({ sessions: [] }))
      await expect(new ApiBackend(fake.api).importFile({ content })).resolves.toEqual({ sessions: [] })
      expect(fake.calls).toEqual([{ method: 'session.import', params: { content } }])
    }
  })

  it('follows export pages by their cursor', async () => {
    const pages: Record<string, { content: string; nextCursor?: string }> = {
      first: { content: 'a\n', nextCursor: '1.5' },
      '1.5': { content: 'b\n', nextCursor: '2.5' },
      '2.5': { content: 'c\n' },
    }
    const { api, calls } = fakeApi('host', (_method, params) => {
      const cursor = (params as { cursor?: string }).cursor ?? 'first'
      return { format: 'jsonl', ...pages[cursor] }
    })
    const got: string[] = []
    for await (const page of new ApiBackend(api).exportSession('S1', 'jsonl')) got.push(page.content)
    expect(got).toEqual(['a\n', 'b\n', 'c\n'])
    expect(calls.map((call) => (call.params as { cursor?: string }).cursor)).toEqual([
      undefined,
      '1.5',
      '2.5',
    ])
  })
})
