// Import uploads over a real WebSocket (docs/protocol.md, session.importBegin): a file larger than
// one message goes in pieces; hostile uploads — unknown or foreign ids, pieces out of order, more
// than announced, over the limits, over HTTP, left to expire — are refused with a clear error and
// import nothing.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { importChunks, maxImportChars, maxImportChunkChars, maxMessageBytes } from '@tangent/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rpcFailure, startTestHost, type TestHost, waitFor } from './host-harness.js'

let t: TestHost
beforeAll(async () => {
  t = await startTestHost({ uploadIdleMs: 400 })
})
afterAll(async () => {
  await t.close()
})

const fixture = path.resolve(import.meta.dirname, '../fixtures/imports/pi/branched.jsonl')

describe('import uploads', () => {
  it('a pi session of 1.3 MiB goes up in pieces and imports; the upload then ends', async () => {
    const client = await t.connect()
    const lines = fs.readFileSync(fixture, 'utf8').replaceAll('/home/ada/project', t.work).split('\n')
    // pi keeps unknown records: a long custom one makes the file large.
    lines.splice(
      2,
      0,
      JSON.stringify({
        type: 'custom',
        customType: 'padding',
        data: 'ü'.repeat(700_000),
        id: 'pad1',
        parentId: null,
        timestamp: '2026-12-04T02:44:47.678Z',
      }),
    )
    const content = lines.join('\n')
    expect(Buffer.byteLength(content)).toBeGreaterThan(maxMessageBytes)
    // (one message of it is refused: host-websocket.e2e.ts)

    const { uploadId, maxChunkChars } = await client.call('session.importBegin', {
      size: content.length,
      fileName: 'branched.jsonl',
    })
    expect(maxChunkChars).toBe(maxImportChunkChars)
    const pieces = [...importChunks(content)]
    expect(pieces.length).toBeGreaterThan(1)
    for (const [index, data] of pieces.entries())
      await client.call('session.importChunk', { uploadId, index, data })
    const imported = await client.call('session.import', { uploadId })
    expect(imported.sessions.length).toBeGreaterThan(1)
    expect(imported.sessions[0]).toMatchObject({ source: 'pi', status: 'created' })
    // Used once: the id is gone.
    expect((await rpcFailure(client.call('session.import', { uploadId }))).data?.code).toBe(
      'upload-not-found',
    )
  })

  it('refuses unknown and foreign ids, pieces out of order, more than announced, an unfinished upload, HTTP', async () => {
    const client = await t.connect()
    const other = await t.connect()
    expect(
      (await rpcFailure(client.call('session.importChunk', { uploadId: 'nope', index: 0, data: 'x' }))).data
        ?.code,
    ).toBe('upload-not-found')
    const { uploadId } = await client.call('session.importBegin', { size: 10 })
    // Another connection cannot add to it or import it.
    expect(
      (await rpcFailure(other.call('session.importChunk', { uploadId, index: 0, data: 'x' }))).data?.code,
    ).toBe('upload-not-found')
    expect((await rpcFailure(other.call('session.import', { uploadId }))).data?.code).toBe('upload-not-found')
    // Out of order: index 1 before 0; the upload stays usable.
    const early = await rpcFailure(client.call('session.importChunk', { uploadId, index: 1, data: 'abc' }))
    expect(early.data).toMatchObject({ code: 'invalid-params', expected: 0 })
    await client.call('session.importChunk', { uploadId, index: 0, data: 'abcde' })
    // Unfinished: 5 of 10.
    const unfinished = await rpcFailure(client.call('session.import', { uploadId }))
    expect(unfinished.data).toMatchObject({ code: 'invalid-params', received: 5, size: 10 })
    // More than announced: dropped.
    const over = await rpcFailure(client.call('session.importChunk', { uploadId, index: 1, data: 'fghijk' }))
    expect(over.data?.code).toBe('payload-too-large')
    expect((await rpcFailure(client.call('session.import', { uploadId }))).data?.code).toBe(
      'upload-not-found',
    )
    // Over the limits: one chunk, one upload, all open uploads together.
    expect(
      (
        await rpcFailure(
          client.call('session.importChunk', {
            uploadId,
            index: 0,
            data: 'x'.repeat(maxImportChunkChars + 1),
          }),
        )
      ).data?.code,
    ).toBe('invalid-params')
    expect(
      (await rpcFailure(client.call('session.importBegin', { size: maxImportChars + 1 }))).data?.code,
    ).toBe('invalid-params')
    const half = await client.call('session.importBegin', { size: maxImportChars - 10 })
    expect((await rpcFailure(other.call('session.importBegin', { size: 100 }))).data?.code).toBe(
      'payload-too-large',
    )
    // Closing the connection drops its uploads: room again.
    client.close()
    await waitFor(async () =>
      other.call('session.importBegin', { size: 100 }).then(
        () => true,
        () => false,
      ),
    )
    expect(half.uploadId).toBeTruthy()
    // Over HTTP there is no connection to hold an upload.
    const http = await rpcFailure(t.call('session.importBegin', { size: 5 }))
    expect(http.data?.code).toBe('invalid-request')
    const httpImport = await rpcFailure(t.call('session.import', { uploadId: 'x' }))
    expect(httpImport.data?.code).toBe('invalid-request')
  })

  it('an upload left without a piece expires', async () => {
    const client = await t.connect()
    const { uploadId } = await client.call('session.importBegin', { size: 4 })
    await client.call('session.importChunk', { uploadId, index: 0, data: 'ab' })
    await new Promise((resolve) => setTimeout(resolve, 900))
    const expired = await rpcFailure(client.call('session.importChunk', { uploadId, index: 1, data: 'cd' }))
    expect(expired.data?.code).toBe('upload-not-found')
    expect(expired.message).toMatch(/expired/)
  })
})

describe('import of a file on the Host machine (session.import {path})', () => {
  it('reads the file itself a chunk at a time; refuses a relative path, a FIFO, a folder and a device, and two sources', async () => {
    const client = await t.connect()
    const before = (await client.call('session.list', {})).length
    const dir = fs.mkdtempSync(path.join(t.work, 'path-import-'))
    // A Claude Code session with a /rewind branch, tools and a compaction (made by the real CLI).
    const file = path.join(dir, 'tools-branch-compact.jsonl')
    fs.copyFileSync(
      path.resolve(import.meta.dirname, '../fixtures/imports/claude/tools-branch-compact.jsonl'),
      file,
    )
    const imported = await client.call('session.import', { path: file, cwd: t.work })
    expect(imported.sessions.length).toBeGreaterThan(1)
    expect(imported.sessions.map((s) => [s.source, s.status])).toEqual(
      imported.sessions.map(() => ['claude', 'created']),
    )
    // The same file again creates nothing new.
    const again = await client.call('session.import', { path: file, cwd: t.work })
    expect(again.sessions.map((s) => s.status)).toEqual(imported.sessions.map(() => 'existing'))

    const failure = async (params: Record<string, unknown>) =>
      (await rpcFailure(client.call('session.import', params as never))).data?.code
    expect(await failure({ path: 'branched.jsonl' })).toBe('invalid-params')
    // A FIFO would block a reader until someone writes to it: refused at once, the Host still answers.
    const fifo = path.join(dir, 'fifo.jsonl')
    execFileSync('mkfifo', [fifo])
    expect(await failure({ path: fifo })).toBe('invalid-path')
    expect(await failure({ path: dir })).toBe('invalid-path')
    expect(await failure({ path: '/dev/zero' })).toBe('invalid-path')
    expect(await failure({ path: path.join(dir, 'missing.jsonl') })).toBe('invalid-path')
    expect(await failure({ path: file, content: 'x' })).toBe('invalid-params')
    expect((await client.call('session.list', {})).length).toBe(before + imported.sessions.length)
  })
})
