// The web's Import and Export over a fake Host: a small file is one session.import, a large one an
// upload in order whose pieces join back to the file; a refused file does not stop the next; an
// export's pages are joined; the tree is reloaded after an import.
import { maxMessageBytes, RpcError } from '@tangent/protocol'
import { describe, expect, it } from 'vitest'
import { summaryOf } from './import-dialog.js'
import { ImportExportStore } from './import-export-store.js'
import { NoticesStore } from './notices-store.js'
import { SessionsStore } from './sessions-store.js'
import { StoreState } from './store-state.js'
import type { RpcClient } from './wire.js'

function setup(handlers: Record<string, (params: Record<string, unknown>) => unknown>) {
  const calls: [string, Record<string, unknown>][] = []
  const client = {
    async call(method: string, params: Record<string, unknown> = {}) {
      calls.push([method, params])
      const handler = handlers[method]
      if (!handler) throw new Error(`unexpected ${method}`)
      return handler(params)
    },
  } as unknown as RpcClient
  const state = new StoreState(null, (flush) => flush())
  const notices = new NoticesStore(state)
  const deps = { state, notices, client: () => client }
  const sessions = new SessionsStore({
    ...deps,
    view: {} as never,
    workspaces: { know: () => {} } as never,
    openSession: async () => {},
    closing: () => ({}),
  })
  return { store: new ImportExportStore({ ...deps, sessions }), calls, state }
}

const imported = (id: string, status = 'created') => ({ id, source: 'claude', status, events: 4 })

describe('ImportExportStore', () => {
  it('sends a small file in one call, uploads a large one in order, and goes on past a refused file', async () => {
    const pieces: string[] = []
    const { store, calls } = setup({
      'session.import': (params) => {
        if (params.content === 'bad\n')
          throw new RpcError(-32000, 'not a file Tangent knows', { code: 'import-unsupported' })
        if (params.uploadId !== undefined) return { sessions: [imported('big')] }
        return { sessions: [imported('small')], problems: [{ line: 3, message: 'not JSON' }] }
      },
      'session.importBegin': () => ({ uploadId: 'u1', maxChunkChars: 512 * 1024 }),
      'session.importChunk': (params) => {
        expect(params.index).toBe(pieces.length)
        pieces.push(String(params.data))
        return { received: pieces.join('').length }
      },
      'session.list': () => ({ sessions: [] }),
    })
    const large = `${'é🌳"'.repeat(400_000)}\n`
    const outcomes = await store.importFiles([
      { name: 'small.jsonl', text: async () => 'small\n' },
      { name: 'bad.jsonl', text: async () => 'bad\n' },
      { name: 'large.jsonl', text: async () => large },
    ])
    expect(
      outcomes.map((outcome) => [outcome.name, outcome.sessions.map((s) => s.id), outcome.error]),
    ).toEqual([
      ['small.jsonl', ['small'], undefined],
      ['bad.jsonl', [], 'not a file Tangent knows'],
      ['large.jsonl', ['big'], undefined],
    ])
    expect(outcomes[0]!.problems).toEqual(['line 3: not JSON'])
    expect(pieces.join('')).toBe(large)
    for (const [method, params] of calls)
      expect(Buffer.byteLength(JSON.stringify({ method, params }))).toBeLessThan(maxMessageBytes)
    expect(calls.at(-1)![0]).toBe('session.list')
    expect(summaryOf(outcomes)).toBe('2 sessions imported, 1 file not imported, 1 problem.')
  })

  it("imports a tool's sessions of a folder and names each problem's file", async () => {
    const { store, calls } = setup({
      'session.importFrom': () => ({
        sessions: [imported('a', 'existing')],
        problems: [{ file: '/home/me/.claude/projects/-p/x.jsonl', line: 2, message: 'bad line' }],
        files: 2,
      }),
      'session.list': () => ({ sessions: [] }),
    })
    const outcome = await store.importFrom('claude', '/p')
    expect(calls[0]).toEqual(['session.importFrom', { tool: 'claude', cwd: '/p' }])
    expect(outcome).toMatchObject({ name: 'Claude Code', files: 2, problems: ['x.jsonl:2: bad line'] })
    expect(summaryOf([outcome])).toBe('No new sessions, 1 already here, 1 problem.')
  })

  it("joins an export's pages; a tool's file is named as that tool names it", async () => {
    const pages: Record<string, { content: string; nextCursor?: string }> = {
      first: { content: 'a\n', nextCursor: 'c1' },
      c1: { content: 'b\n' },
    }
    const { store } = setup({
      'session.export': (params) => {
        if (params.format === 'claude')
          return {
            format: 'claude',
            content: 'x\n',
            file: { tool: 'claude', sessionId: 'u', path: 'projects/-p/u.jsonl' },
          }
        return { format: params.format, ...pages[String(params.cursor ?? 'first')] }
      },
    })
    expect(await store.exportSession('S1', 'jsonl')).toEqual({
      content: 'a\nb\n',
      fileName: 'S1.tangent.jsonl',
      mediaType: 'application/jsonl',
    })
    expect(await store.exportSession('S1', 'claude')).toMatchObject({
      fileName: 'u.jsonl',
      tool: { sessionId: 'u' },
    })
  })
})
