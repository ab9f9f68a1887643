import { describe, expect, it } from 'vitest'
import {
  awaitsApproval,
  buildTranscript,
  openTurn,
  pendingApprovals,
  TranscriptBuilder,
  type TurnModel,
} from './transcript-model.js'
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
  it('shows one model divider when the model is changed before anything ran on the first', () => {
    const blocks = buildTranscript(
      log(
        ['model/selection', { provider: 'demo', model: 'scripted' }],
        ['model/selection', { provider: 'openai', model: 'gpt-x' }],
        ['turn/start', {}],
        ['user/message', { content: [{ type: 'text', text: 'hi' }] }],
        ['turn/end', { reason: 'completed' }],
        ['model/selection', { provider: 'demo', model: 'scripted' }],
      ),
      0,
    )
    expect(blocks.map((b) => (b.kind === 'model' ? b.model : b.kind))).toEqual([
      'openai:gpt-x',
      'turn',
      'demo:scripted',
    ])
  })

  it('shows a mode divider for each mode change, between turns and inside one', () => {
    const blocks = buildTranscript(
      log(
        ['model/selection', { provider: 'demo', model: 'scripted' }],
        ['session/mode', { mode: 'plan' }],
        ['turn/start', {}],
        ['user/message', { content: [{ type: 'text', text: 'hi' }] }],
        ['session/mode', { mode: 'ask' }],
        ['turn/end', { reason: 'completed' }],
      ),
      0,
    )
    expect(blocks.map((b) => (b.kind === 'mode' ? `mode ${b.mode}` : b.kind))).toEqual([
      'model',
      'mode plan',
      'turn',
      'mode ask',
    ])
    const turn = blocks[2]
    expect(turn?.kind === 'turn' && turn.turn.end?.reason).toBe('completed')
  })

  it('groups turns with tool calls paired to results, changed files and end reasons', () => {
    const blocks = buildTranscript(twoTurns, 0)
    expect(blocks.map((b) => b.kind)).toEqual(['model', 'turn', 'turn'])
    const first = blocks[1]
    if (first?.kind !== 'turn') throw new Error('expected a turn')
    expect(first.turn.user).toEqual({ seq: 2, text: 'list files', images: [] })
    expect(first.turn.items.map((i) => i.kind)).toEqual(['text', 'tool', 'text'])
    const tool = first.turn.items[1]
    expect(tool?.kind === 'tool' && tool.result?.seq).toBe(5)
    expect(first.turn.changed).toEqual(['a.txt'])
    expect(first.turn.end).toEqual({ seq: 11, reason: 'completed', error: null })
    const second = blocks[2]
    expect(second?.kind === 'turn' && second.turn.end?.reason).toBe('aborted')
    expect(openTurn(blocks)).toBeNull()
  })

  it('keeps the images of a user message apart from its text, and names other files', () => {
    const blocks = buildTranscript(
      log(
        ['turn/start', {}],
        [
          'user/message',
          {
            content: [
              { type: 'text', text: 'what is this?' },
              { type: 'file', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
              { type: 'file', mediaType: 'image/svg+xml', data: 'PHN2Zy8+' },
            ],
          },
        ],
        ['turn/end', { reason: 'completed' }],
      ),
      0,
    )
    const turn = blocks[0]
    if (turn?.kind !== 'turn') throw new Error('expected a turn')
    // An SVG is never shown as an image (it can hold scripts): it is named.
    expect(turn.turn.user).toEqual({
      seq: 1,
      text: 'what is this?\n[file image/svg+xml]',
      images: [{ mediaType: 'image/png', data: 'iVBORw0KGgo=' }],
    })
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

describe('buildTranscript: file restores', () => {
  const restored = log(
    ['snapshot/taken', { tree: 't0', changed: [] }],
    ['turn/start', {}],
    ['user/message', { content: [{ type: 'text', text: 'write notes.txt: one' }] }],
    ['turn/end', { reason: 'completed' }],
    ['snapshot/taken', { tree: 't1', changed: ['notes.txt'] }],
    ['turn/start', {}],
    ['user/message', { content: [{ type: 'text', text: 'write notes.txt: two' }] }],
    ['turn/end', { reason: 'completed' }],
    ['snapshot/taken', { tree: 't2', changed: ['notes.txt'] }],
    [
      'files/restored',
      { toSeq: 3, tree: 't1', changed: ['notes.txt'], restored: ['notes.txt'], kept: [], undoTree: 't2' },
    ],
    // A snapshot between turns after a restore belongs to the restore, not the turn before it.
    ['snapshot/taken', { tree: 't1', changed: ['notes.txt'] }],
    [
      'files/restored',
      { undoOf: 9, tree: 't2', changed: ['notes.txt'], restored: ['notes.txt'], kept: [], undoTree: 't1' },
    ],
    [
      'files/restored',
      {
        toSeq: -1,
        tree: 't0',
        changed: ['notes.txt'],
        restored: [],
        kept: ['new.txt'],
        skipped: ['locked.bin'],
        undoTree: 't2',
      },
    ],
  )

  it('shows a restore as its own row between turns, not as a change of the turn before it', () => {
    const blocks = buildTranscript(restored, 0)
    expect(blocks.map((b) => b.kind)).toEqual(['turn', 'turn', 'restore', 'restore', 'restore'])
    const second = blocks[1]
    if (second?.kind !== 'turn') throw new Error('expected a turn')
    expect(second.turn.changed).toEqual(['notes.txt'])
    expect(second.turn.lastSnapshotSeq).toBe(8)
    expect(blocks[2]).toEqual({
      kind: 'restore',
      seq: 9,
      toSeq: 3,
      undoOf: null,
      restored: ['notes.txt'],
      kept: [],
      skipped: [],
      keptFrom: null,
      undoneAt: 11,
      inherited: false,
    })
  })

  it('marks an undo with the restore it undid, and a restore to the start', () => {
    const blocks = buildTranscript(restored, 0)
    expect(blocks[3]).toMatchObject({ kind: 'restore', seq: 11, toSeq: null, undoOf: 9, undoneAt: null })
    expect(blocks[4]).toMatchObject({
      kind: 'restore',
      seq: 12,
      toSeq: -1,
      undoOf: null,
      restored: [],
      kept: ['new.txt'],
      skipped: ['locked.bin'],
      undoneAt: null,
    })
  })

  it('leaves a restore not undone until its undo arrives', () => {
    const blocks = buildTranscript(restored.slice(0, 10), 0)
    expect(blocks.at(-1)).toMatchObject({ kind: 'restore', seq: 9, undoneAt: null })
  })

  it('marks a restore from a fork prefix as inherited', () => {
    const blocks = buildTranscript(restored.slice(0, 10), 10)
    expect(blocks.map((b) => b.kind)).toEqual(['turn', 'turn', 'restore', 'fork-point'])
    expect(blocks[2]).toMatchObject({ kind: 'restore', inherited: true })
  })

  it('tolerates a malformed files/restored event', () => {
    const blocks = buildTranscript(log(['files/restored', { restored: 'nope', toSeq: 'x' }]), 0)
    expect(blocks).toEqual([
      {
        kind: 'restore',
        seq: 0,
        toSeq: null,
        undoOf: null,
        restored: [],
        kept: [],
        skipped: [],
        keptFrom: null,
        undoneAt: null,
        inherited: false,
      },
    ])
  })

  it('reads an exploration, a kept branch (and its files) and a check as their own rows', () => {
    const blocks = buildTranscript(
      log(
        [
          'exploration/started',
          {
            exploration: 'x1',
            boundary: 3,
            files: 'worktree',
            check: 'npm test',
            branches: [
              { sessionId: 's-a', label: 'A', prompt: 'one' },
              { sessionId: 's-b', label: 'B', prompt: 'two' },
            ],
          },
        ],
        ['files/restored', { keptFrom: { sessionId: 's-b', label: 'B' }, restored: ['b.txt'], kept: [] }],
        [
          'branch/kept',
          {
            sessionId: 's-b',
            label: 'B',
            title: 'T · B',
            applied: ['b.txt'],
            archived: ['s-a'],
            summary: 'S',
            files: 'worktree',
          },
        ],
        ['check/ran', { command: 'npm test', exitCode: 1, ok: false, output: 'boom', durationMs: 12 }],
      ),
      0,
    )
    expect(blocks[0]).toMatchObject({
      kind: 'exploration',
      exploration: 'x1',
      check: 'npm test',
      branches: [
        { sessionId: 's-a', label: 'A', prompt: 'one' },
        { sessionId: 's-b', label: 'B', prompt: 'two' },
      ],
    })
    expect(blocks[1]).toMatchObject({ kind: 'restore', keptFrom: { sessionId: 's-b', label: 'B' } })
    expect(blocks[2]).toMatchObject({
      kind: 'kept',
      label: 'B',
      applied: ['b.txt'],
      archived: ['s-a'],
      summary: 'S',
    })
    expect(blocks[3]).toMatchObject({
      kind: 'check',
      command: 'npm test',
      exitCode: 1,
      ok: false,
      timedOut: false,
    })
  })
})

describe('approvals', () => {
  const call = (id: string, command: string) => ({
    type: 'tool-call',
    toolCallId: id,
    toolName: 'bash',
    input: { command },
  })
  const asked = log(
    ['turn/start', {}],
    ['user/message', { content: [{ type: 'text', text: 'run: two' }] }],
    ['assistant/message', { content: [call('c1', 'echo one'), call('c2', 'rm keep.txt')] }],
    [
      'permission/requested',
      { callId: 'c1', toolName: 'bash', input: { command: 'echo one' }, pattern: 'echo' },
    ],
    [
      'permission/answered',
      { callId: 'c1', decision: 'always', rule: { tool: 'bash', pattern: 'echo' }, by: 'user' },
    ],
    ['tool/result', { callId: 'c1', toolName: 'bash', output: { type: 'text', value: '' }, isError: false }],
    [
      'permission/requested',
      { callId: 'c2', toolName: 'bash', input: { command: 'rm keep.txt' }, pattern: 'rm' },
    ],
  )
  const turnOf = (events: SessionEvent[]): TurnModel => {
    const block = buildTranscript(events, 0)[0]
    if (block?.kind !== 'turn') throw new Error('no turn')
    return block.turn
  }

  it('pairs asks and answers with their calls; an unanswered ask in an open turn waits', () => {
    const turn = turnOf(asked)
    expect(turn.items).toMatchObject([
      {
        callId: 'c1',
        permission: {
          seq: 3,
          pattern: 'echo',
          answer: {
            seq: 4,
            decision: 'always',
            reason: null,
            rule: { tool: 'bash', pattern: 'echo' },
            by: 'user',
          },
        },
      },
      { callId: 'c2', permission: { seq: 6, pattern: 'rm', answer: null } },
    ])
    expect(pendingApprovals(turn).map((item) => item.callId)).toEqual(['c2'])
    expect(awaitsApproval(asked)).toBe(true)
  })

  it('shows a preToolUse hook’s denial on its call, with nothing to wait for', () => {
    const hooked = log(
      ['turn/start', {}],
      ['user/message', { content: [{ type: 'text', text: 'run: rm x' }] }],
      ['assistant/message', { content: [call('h1', 'rm x')] }],
      [
        'permission/answered',
        { callId: 'h1', decision: 'deny', reason: 'no', by: 'hook', hook: { command: 'g', source: 'c' } },
      ],
    )
    const turn = turnOf(hooked)
    expect(turn.items[0]).toMatchObject({
      callId: 'h1',
      permission: { seq: 3, answer: { decision: 'deny', reason: 'no', by: 'hook' } },
    })
    expect(pendingApprovals(turn)).toEqual([])
    expect(awaitsApproval(hooked)).toBe(false)
  })

  it('waits no more once answered, or once the turn ended', () => {
    const answered = [
      ...asked,
      ...log(['permission/answered', { callId: 'c2', decision: 'deny', reason: 'keep it' }]).map((e) => ({
        ...e,
        seq: asked.length,
      })),
    ]
    expect(pendingApprovals(turnOf(answered))).toEqual([])
    expect(turnOf(answered).items[1]).toMatchObject({
      permission: { answer: { decision: 'deny', reason: 'keep it' } },
    })
    expect(awaitsApproval(answered)).toBe(false)

    const ended = [...asked, { seq: asked.length, time: 0, type: 'turn/end', data: { reason: 'aborted' } }]
    expect(pendingApprovals(turnOf(ended))).toEqual([])
    expect(awaitsApproval(ended)).toBe(false)
    expect(awaitsApproval([])).toBe(false)
  })
})

describe('buildTranscript: instructions and compactions', () => {
  const compacted = log(
    ['turn/start', {}],
    ['user/message', { content: [{ type: 'text', text: 'one' }] }],
    ['context/instructions', { files: [{ path: 'AGENTS.md', scope: 'project', content: 'x' }] }],
    ['turn/end', { reason: 'completed' }],
    ['turn/start', {}],
    ['user/message', { content: [{ type: 'text', text: 'two' }] }],
    [
      'context/compacted',
      {
        summary: 'S',
        throughSeq: 3,
        model: 'demo:scripted',
        trigger: 'auto',
        tokensBefore: 900,
        tokensAfter: 100,
      },
    ],
    ['turn/end', { reason: 'completed' }],
    ['context/compaction-failed', { model: 'demo:scripted', message: 'down' }],
  )

  it('shows one recorded inside a turn just above that turn, and one between turns in place', () => {
    const blocks = buildTranscript(compacted, 0)
    expect(
      blocks.map((block) =>
        block.kind === 'turn' ? `turn@${block.turn.startSeq}` : `${block.kind}@${block.seq}`,
      ),
    ).toEqual(['instructions@2', 'turn@0', 'compaction@6', 'turn@4', 'compaction-failed@8'])
    expect(blocks[0]).toEqual({ kind: 'instructions', seq: 2, paths: ['AGENTS.md'] })
    expect(blocks[2]).toEqual({
      kind: 'compaction',
      seq: 6,
      throughSeq: 3,
      summary: 'S',
      trigger: 'auto',
      tokensBefore: 900,
      tokensAfter: 100,
    })
  })
})

describe('TranscriptBuilder (incremental)', () => {
  const event = (seq: number, type: string, data: unknown = {}): SessionEvent => ({
    seq,
    time: seq,
    type,
    data,
  })
  const call = (id: string) => ({ type: 'tool-call', toolCallId: id, toolName: 'write', input: { path: id } })

  it('keeps every block an event did not touch, and copies the one it did', () => {
    const builder = new TranscriptBuilder(0)
    builder.append([
      event(0, 'turn/start'),
      event(1, 'user/message', { content: [{ type: 'text', text: 'one' }] }),
      event(2, 'turn/end', { reason: 'completed' }),
      event(3, 'turn/start'),
      event(4, 'assistant/message', { content: [call('a'), call('b')] }),
    ])
    const first = builder.blocks()
    expect(builder.blocks()).toBe(first)
    builder.append([
      event(5, 'tool/result', { callId: 'a', toolName: 'write', output: 'ok', isError: false }),
    ])
    const second = builder.blocks()
    expect(second).not.toBe(first)
    expect(second[0]).toBe(first[0])
    const before = first[1]!.kind === 'turn' ? first[1]!.turn : null
    const after = second[1]!.kind === 'turn' ? second[1]!.turn : null
    expect(after).not.toBe(before)
    // What was handed out is never changed afterwards: the old turn still has no result.
    expect(before!.items[0]!.kind === 'tool' && before!.items[0]!.result).toBe(null)
    expect(after!.items[0]!.kind === 'tool' && after!.items[0]!.result?.output).toBe('ok')
    // The call the event did not touch is the same object.
    expect(after!.items[1]).toBe(before!.items[1])
    expect(builder.nextSeq).toBe(6)
  })

  it('builds the same transcript fed at once or one event at a time', () => {
    const events = [
      event(0, 'turn/start'),
      event(1, 'user/message', { content: [{ type: 'text', text: 'one' }] }),
      event(2, 'assistant/message', { content: [call('a')] }),
      event(3, 'permission/requested', { callId: 'a', pattern: 'a' }),
      event(4, 'permission/answered', { callId: 'a', decision: 'once' }),
      event(5, 'tool/result', { callId: 'a', toolName: 'write', output: 'ok', isError: false }),
      event(6, 'snapshot/taken', { changed: ['a'] }),
      event(7, 'turn/end', { reason: 'completed' }),
      event(8, 'files/restored', { toSeq: 7, restored: ['a'] }),
      event(9, 'files/restored', { undoOf: 8, restored: ['a'] }),
    ]
    const stepwise = new TranscriptBuilder(3)
    for (const one of events) {
      stepwise.append([one])
      stepwise.blocks()
    }
    expect(stepwise.blocks()).toEqual(buildTranscript(events, 3))
    expect(stepwise.hasSnapshots).toBe(true)
  })

  it('starts a window that begins inside a turn with that part of the turn', () => {
    const builder = new TranscriptBuilder(0, 10)
    builder.append([
      event(10, 'tool/result', { callId: 'x', toolName: 'write', output: 'ok', isError: false }),
      event(11, 'turn/end', { reason: 'completed' }),
    ])
    const [block] = builder.blocks()
    expect(block?.kind === 'turn' && block.turn.startSeq).toBe(10)
    expect(block?.kind === 'turn' && block.turn.end?.seq).toBe(11)
  })
})

describe('buildTranscript: files changed outside Tangent', () => {
  const handEdited = log(
    ['turn/start', {}],
    ['user/message', { content: [{ type: 'text', text: 'write a' }] }],
    ['snapshot/taken', { tree: 't0', changed: [] }],
    ['snapshot/taken', { tree: 't1', changed: ['a.txt'] }],
    ['turn/end', { reason: 'completed' }],
    ['turn/start', {}],
    ['user/message', { content: [{ type: 'text', text: 'write c' }] }],
    ['snapshot/taken', { tree: 't2', changed: [], outside: ['mine.txt'] }],
    ['snapshot/taken', { tree: 't3', changed: ['c.txt'] }],
    ['turn/end', { reason: 'completed' }],
  )

  it('shows a turn-start snapshot’s outside paths as their own row above the turn, never in its changed files', () => {
    const blocks = buildTranscript(handEdited, 0)
    expect(
      blocks.map((block) =>
        block.kind === 'turn' ? `turn@${block.turn.startSeq}` : `${block.kind}@${block.seq}`,
      ),
    ).toEqual(['turn@0', 'outside@7', 'turn@5'])
    expect(blocks[1]).toEqual({ kind: 'outside', seq: 7, paths: ['mine.txt'] })
    const second = blocks[2]
    expect(second?.kind === 'turn' ? second.turn.changed : null).toEqual(['c.txt'])
  })
})
