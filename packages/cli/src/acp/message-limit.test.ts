import { describe, expect, it } from 'vitest'
import { limitMessageSize, messageTooLargeResponse, TopLevelIdScanner } from './message-limit.js'

function scan(...parts: string[]): string | number | null {
  const scanner = new TopLevelIdScanner()
  for (const part of parts) scanner.push(new TextEncoder().encode(part))
  return scanner.id()
}

async function run(input: string[], limit: number) {
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const part of input) controller.enqueue(new TextEncoder().encode(part))
      controller.close()
    },
  })
  const dropped: (string | number | null)[] = []
  const lines: string[] = []
  const reader = limitMessageSize(source, limit, (id) => {
    dropped.push(id)
  }).getReader()
  for (let read = await reader.read(); !read.done; read = await reader.read())
    lines.push(new TextDecoder().decode(read.value))
  return { lines, dropped }
}

describe('ACP message size limit', () => {
  it('finds the top-level id wherever it is, across chunks; nested ids and odd values are not it', () => {
    expect(scan('{"jsonrpc":"2.0","id":7,"params":{}}')).toBe(7)
    expect(scan('{"params":{"id":1,"x":[{"id":2}]},', '"i', 'd"', ' : "a\\"b" }')).toBe('a"b')
    expect(scan('{"params":"\\"id\\":5","id":-1.5e3}')).toBe(-1500)
    expect(scan('{"id":{"x":1}}')).toBeNull()
    expect(scan('{"id":true}')).toBeNull()
    expect(scan(`{"id":${'9'.repeat(300)}}`)).toBeNull()
    expect(scan('[{"id":1}]')).toBeNull()
    expect(scan('not json')).toBeNull()
    expect(scan('{"id":3,"id":4}')).toBe(3)
    // Cut off: the value read so far.
    expect(scan('{"id":12')).toBe(12)
  })

  it('passes lines up to the limit on whole, drops longer ones with their id, and goes on', async () => {
    const { lines, dropped } = await run(['{"id":1}\n{"id":2,', '"x":"long"}\n', '{"id":3}\n', 'tail'], 12)
    expect(lines).toEqual(['{"id":1}\n', '{"id":3}\n', 'tail'])
    expect(dropped).toEqual([2])
    const unterminated = await run(['{"id":"a","x":"0123456789"}'], 12)
    expect(unterminated).toEqual({ lines: [], dropped: ['a'] })
  })

  it('answers with -32600 naming the limit', () => {
    expect(JSON.parse(messageTooLargeResponse(null, 32 * 1024 * 1024))).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: {
        code: -32600,
        message:
          'Message too large: tangent acp accepts messages up to 33554432 bytes (32 MiB); this one was dropped.',
        data: { code: 'payload-too-large', limit: 33554432 },
      },
    })
  })
})
