import { describe, expect, it } from 'vitest'
import { buildTranscript, openTurn } from './transcript-model.js'
import type { SessionEvent } from './wire.js'

function log(...items: [string, unknown][]): SessionEvent[] {
  return items.map(([type, data], seq) => ({ seq, time: seq, type, data }))
}

const twoTurns = log(
  ['model/selection', { provider: 'demo', model: 'scripted' }],
  ['turn/start', {}],
  ['user/message', { content: [{ type: 'text', text: 'list files' }] }],
  ['step/start', {}],
  [
    'assistant/message',
    {
      content: [
        { type: 'text', text: 'Looking.' },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'list', input: { path: '.' } },
      ],
    },
  ],
  [
    'tool/result',
    { callId: 'c1', toolName: 'list', output: { type: 'text', value: 'a.txt' }, isError: false },
  ],
  ['snapshot/taken', { tree: 't1', changed: ['a.txt'] }],
  ['step/end', { finishReason: 'tool-calls' }],
  ['step/start', {}],
  ['assistant/message', { content: [{ type: 'text', text: 'One file.' }] }],
  ['step/end', { finishReason: 'stop' }],
  ['turn/end', { reason: 'completed' }],
  ['turn/start', {}],
  ['user/message', { content: [{ type: 'text', text: 'again' }] }],
  ['turn/end', { reason: 'aborted' }],
)

describe('buildTranscript', () => {
  it('groups turns with tool calls paired to results, changed files and end reasons', () => {
    const blocks = buildTranscript(twoTurns, 0)
    expect(blocks.map((b) => b.kind)).toEqual(['model', 'turn', 'turn'])
    const first = blocks[1]
    if (first?.kind !== 'turn') throw new Error('expected a turn')
    expect(first.turn.user).toEqual({ seq: 2, text: 'list files' })
    expect(first.turn.items.map((i) => i.kind)).toEqual(['text', 'tool', 'text'])
    const tool = first.turn.items[1]
    expect(tool?.kind === 'tool' && tool.result?.seq).toBe(5)
    expect(first.turn.changed).toEqual(['a.txt'])
    expect(first.turn.end).toEqual({ seq: 11, reason: 'completed', error: null })
    const second = blocks[2]
    expect(second?.kind === 'turn' && second.turn.end?.reason).toBe('aborted')
    expect(openTurn(blocks)).toBeNull()
  })

  it('marks the fork point and inherited turns of a fork', () => {
    const blocks = buildTranscript(twoTurns, 12)
    expect(blocks.map((b) => b.kind)).toEqual(['model', 'turn', 'fork-point', 'turn'])
    expect(blocks[2]).toEqual({ kind: 'fork-point', seq: 11 })
    expect(blocks[1]?.kind === 'turn' && blocks[1].turn.inherited).toBe(true)
    expect(blocks[3]?.kind === 'turn' && blocks[3].turn.inherited).toBe(false)
  })

  it('reports the open turn while it runs', () => {
    const running = twoTurns.slice(0, 14)
    const turn = openTurn(buildTranscript(running, 0))
    expect(turn?.startSeq).toBe(12)
    expect(turn?.end).toBeNull()
  })
})
