import { TangentError } from '@tangent/core'
import { describe, expect, it } from 'vitest'
import { createRpcRouter, type MethodHandlers, maxBatchLength } from './rpc-router.js'

// Only the methods these tests call; the router looks handlers up by name.
const handlers = {
  'host.info': async () => ({
    version: '1.0.0',
    dataDir: '/data',
    defaultModel: 'demo:scripted',
    models: [],
  }),
  'session.abort': async (params: { sessionId: string }) => {
    if (params.sessionId === 'busy') {
      throw new TangentError('session-busy', 'Session busy is running a turn.', { sessionId: 'busy' })
    }
    if (params.sessionId === 'boom') throw new Error('disk on fire')
    return { aborted: false }
  },
  'session.prompt': async (params: { images?: unknown[] }) => ({
    turnStartSeq: 0,
    turnEndSeq: params.images?.length ?? 0,
    reason: 'completed',
  }),
} as unknown as MethodHandlers

function router() {
  const reported: unknown[] = []
  return { reported, router: createRpcRouter(handlers, (error) => reported.push(error)) }
}

const call = (method: string, params?: unknown, id: number | string = 1) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params })

describe('createRpcRouter', () => {
  it('lets only a session.prompt with images past 1 MiB, up to 12 MiB', async () => {
    const { router: r } = router()
    const png = `iVBORw0KGgo${'A'.repeat(3 * 1024 * 1024 - 11)}`
    const sessionId = 's1'
    const withImage = call('session.prompt', {
      sessionId,
      text: 'x',
      images: [{ mediaType: 'image/png', data: png }],
    })
    expect(await r.handleText(withImage, { connection: null })).toMatchObject({
      id: 1,
      result: { turnEndSeq: 1 },
    })
    const tooLarge = { id: null, error: { code: -32600, data: { code: 'payload-too-large' } } }
    // The same bytes as text, or padding another method: the ordinary 1 MiB limit.
    const asText = call('session.prompt', { sessionId, text: png })
    expect(await r.handleText(asText, { connection: null })).toMatchObject(tooLarge)
    const padded = call('host.info', { pad: png, images: [1] })
    expect(await r.handleText(padded, { connection: null })).toMatchObject(tooLarge)
    expect(await r.handleText(`[${withImage}]`, { connection: null })).toMatchObject(tooLarge)
    expect(await r.handleText('x'.repeat(1024 * 1024 + 1), { connection: null })).toMatchObject(tooLarge)
    // Four such images are over 12 MiB, wherever the transport cut it.
    const four = call('session.prompt', {
      sessionId,
      text: 'x',
      images: Array.from({ length: 4 }, () => ({ mediaType: 'image/png', data: png })),
    })
    expect(await r.handleText(four, { connection: null })).toMatchObject({
      error: { data: { code: 'payload-too-large', limit: 12 * 1024 * 1024 } },
    })
  })

  it('answers a call with its id and result', async () => {
    const answer = await router().router.handleText(call('host.info', {}, 'x'), { connection: null })
    expect(answer).toEqual({
      jsonrpc: '2.0',
      id: 'x',
      result: { version: '1.0.0', dataDir: '/data', defaultModel: 'demo:scripted', models: [] },
    })
  })

  it('treats missing params as {}', async () => {
    const answer = await router().router.handleText(call('host.info'), { connection: null })
    expect(answer).toMatchObject({ result: { version: '1.0.0' } })
  })

  it('maps a TangentError to -32000 with data.code and its data', async () => {
    const answer = await router().router.handleText(call('session.abort', { sessionId: 'busy' }), {
      connection: null,
    })
    expect(answer).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32000,
        message: 'Session busy is running a turn.',
        data: { code: 'session-busy', sessionId: 'busy' },
      },
    })
  })

  it('maps any other error to internal and reports it', async () => {
    const { router: rpc, reported } = router()
    const answer = await rpc.handleText(call('session.abort', { sessionId: 'boom' }), { connection: null })
    expect(answer).toMatchObject({ error: { code: -32000, data: { code: 'internal' } } })
    expect(JSON.stringify(answer)).toContain('disk on fire')
    expect(reported).toHaveLength(1)
  })

  it('validates params with the protocol schema (-32602 with issues)', async () => {
    const answer = await router().router.handleText(call('session.abort', { sessionId: '../x' }), {
      connection: null,
    })
    expect(answer).toMatchObject({ error: { code: -32602, data: { code: 'invalid-params' } } })
    const issues = (answer as unknown as { error: { data: { issues: { path: string[] }[] } } }).error.data
      .issues
    expect(issues[0]?.path).toEqual(['sessionId'])
  })

  it('uses the standard codes for parse errors, invalid requests and unknown methods', async () => {
    const { router: rpc } = router()
    expect(await rpc.handleText('{', { connection: null })).toMatchObject({
      id: null,
      error: { code: -32700 },
    })
    expect(await rpc.handleText('42', { connection: null })).toMatchObject({
      id: null,
      error: { code: -32600 },
    })
    expect(
      await rpc.handleText(JSON.stringify({ jsonrpc: '1.0', id: 5, method: 'host.info' }), {
        connection: null,
      }),
    ).toMatchObject({
      id: 5,
      error: { code: -32600 },
    })
    expect(await rpc.handleText(call('nope.nope'), { connection: null })).toMatchObject({
      error: { code: -32601, data: { code: 'method-not-found' } },
    })
  })

  it('runs notifications without answering, and batches up to the limit', async () => {
    const { router: rpc } = router()
    expect(
      await rpc.handleText(JSON.stringify({ jsonrpc: '2.0', method: 'host.info' }), { connection: null }),
    ).toBeNull()
    const batch = `[${call('host.info', {}, 1)},${JSON.stringify({ jsonrpc: '2.0', method: 'host.info' })},${call('x', {}, 2)}]`
    const answers = (await rpc.handleText(batch, { connection: null })) as { id: number }[]
    expect(answers.map((answer) => answer.id)).toEqual([1, 2])
    const tooMany = `[${Array.from({ length: maxBatchLength + 1 }, () => call('host.info')).join(',')}]`
    expect(await rpc.handleText(tooMany, { connection: null })).toMatchObject({ error: { code: -32600 } })
  })
})
