import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '../backend.js'
import { styleFor } from './style.js'
import { TurnPrinter } from './turn-printer.js'

function capture() {
  const stream = {
    text: '',
    write(chunk: string) {
      stream.text += chunk
      return true
    },
  }
  return stream
}

let seq = 0
function event(type: string, data: unknown = {}): SessionEvent {
  return { seq: seq++, time: 0, type, data }
}

describe('TurnPrinter', () => {
  it('says a preToolUse hook denied a call, with its reason', () => {
    const out = capture()
    const printer = new TurnPrinter(out, capture(), styleFor(out, {}))
    printer.onEvent(
      event('permission/answered', { callId: 'c1', decision: 'deny', reason: 'closed today', by: 'hook' }),
    )
    expect(out.text).toBe('    ✗ denied by a preToolUse hook: closed today\n')
  })

  it('prints streamed text once, tool calls with their results, and changed files', () => {
    const out = capture()
    const err = capture()
    const printer = new TurnPrinter(out, err, styleFor(out, {}))
    printer.onEvent(event('step/start'))
    printer.onEvent(
      event('assistant/message', {
        content: [
          { type: 'tool-call', toolCallId: 'c1', toolName: 'write', input: { path: 'a.txt', content: 'x' } },
        ],
      }),
    )
    printer.onEvent(
      event('tool/result', {
        callId: 'c1',
        toolName: 'write',
        output: 'Wrote a.txt (1 bytes).',
        isError: false,
      }),
    )
    printer.onEvent(event('snapshot/taken', { tree: 'abc', changed: ['a.txt'] }))
    printer.onEvent(event('step/start'))
    printer.onDelta({ kind: 'text', text: 'Done' })
    printer.onDelta({ kind: 'text', text: ' here.' })
    printer.onEvent(event('assistant/message', { content: [{ type: 'text', text: 'Done here.' }] }))
    printer.onEvent(event('turn/end', { reason: 'completed' }))
    expect(out.text).toBe(
      '  ▸ write a.txt\n    ✓ Wrote a.txt (1 bytes).\n    files changed: a.txt\nDone here.\n',
    )
    expect(err.text).toBe('')
  })

  it('names the files a snapshot left out (too big to keep): a restore or a fork will not bring them back', () => {
    const out = capture()
    const printer = new TurnPrinter(out, capture(), styleFor(out, {}))
    printer.onEvent(event('snapshot/taken', { tree: 'abc', changed: ['small.txt'], skipped: ['big.bin'] }))
    printer.onEvent(event('snapshot/taken', { tree: 'abd', changed: [], skipped: ['huge.iso'] }))
    expect(out.text).toBe(
      '    files changed: small.txt\n    not snapshotted (too big to keep): big.bin\n    not snapshotted (too big to keep): huge.iso\n',
    )
  })

  it('prints a message that arrived without deltas, and how a failed turn ended', () => {
    const out = capture()
    const err = capture()
    const printer = new TurnPrinter(out, err, styleFor(out, {}))
    printer.onEvent(event('step/start'))
    printer.onEvent(event('assistant/message', { content: [{ type: 'text', text: 'Partial' }] }))
    printer.onEvent(event('turn/end', { reason: 'error', error: 'HTTP 500 from provider' }))
    expect(out.text).toBe('Partial\n')
    expect(err.text).toBe('turn ended: error: HTTP 500 from provider\n')
    expect(printer.error).toBe('HTTP 500 from provider')
  })

  it('escapes control characters from the model, tool output and errors, even split across deltas', () => {
    const out = capture()
    const err = capture()
    const printer = new TurnPrinter(out, err, styleFor(out, {}))
    printer.onEvent(event('step/start'))
    printer.onEvent(
      event('assistant/message', {
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: { path: 'a\x1b[2J.txt' } }],
      }),
    )
    printer.onEvent(event('tool/result', { callId: 'c1', output: 'x\x1b]0;T\x07y', isError: false }))
    printer.onEvent(event('step/start'))
    // The sequence ESC ] 0 ; T BEL arrives in three deltas; ESC [ 2 J in two.
    for (const text of ['one \x1b', ']0;T', '\x07 two\x1b', '[2J\n\tthree\x9b1m'])
      printer.onDelta({ kind: 'text', text })
    printer.onEvent(event('assistant/message', { content: [{ type: 'text', text: 'ignored' }] }))
    printer.onEvent(event('turn/end', { reason: 'error', error: 'bad \x1b[31m\r' }))
    expect(out.text).toBe(
      '  ▸ read a\\x1b[2J.txt\n    ✓ x\\x1b]0;T\\x07y\none \\x1b]0;T\\x07 two\\x1b[2J\n\tthree\\x9b1m\n',
    )
    expect(err.text).toBe('turn ended: error: bad \\x1b[31m\\r\n')
  })
})

describe('TurnPrinter and Markdown', () => {
  const reply = '## Done\n\nIt is **fixed**: run `npm test`.\n\n| a | b |\n|---|---|\n| 1 | 22 |'
  const stream = (printer: TurnPrinter) => {
    printer.onEvent(event('step/start'))
    for (let at = 0; at < reply.length; at += 3)
      printer.onDelta({ kind: 'text', text: reply.slice(at, at + 3) })
    printer.onEvent(event('assistant/message', { content: [{ type: 'text', text: reply }] }))
    printer.onEvent(event('turn/end', { reason: 'completed' }))
  }

  it('renders the answer for a terminal: no raw ** or backticks, a table in columns', () => {
    const out = Object.assign(capture(), { isTTY: true })
    stream(new TurnPrinter(out, capture(), styleFor(out, { NO_COLOR: '1' })))
    expect(out.text).toBe('Done\n\nIt is fixed: run npm test.\n\na │ b\n──┼───\n1 │ 22\n')
  })

  it('writes it as the model wrote it into a pipe or a file', () => {
    const out = capture()
    stream(new TurnPrinter(out, capture(), styleFor(out, {})))
    expect(out.text).toBe(`${reply}\n`)
  })
})
