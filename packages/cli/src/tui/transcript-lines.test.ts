import picocolors from 'picocolors'
import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '../backend.js'
import { changedLines, transcriptLines } from './transcript-lines.js'

const plain = picocolors.createColors(false)
const colours = picocolors.createColors(true)

let seq = 0
const event = (type: string, data: unknown): SessionEvent => ({ seq: seq++, time: 0, type, data })

function turn(): SessionEvent[] {
  seq = 0
  return [
    event('turn/start', {}),
    event('user/message', { content: [{ type: 'text', text: 'make it' }] }),
    event('assistant/message', {
      content: [
        { type: 'text', text: 'Doing **it** now.' },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'write', input: { path: 'a.txt', content: 'x' } },
        { type: 'tool-call', toolCallId: 'c2', toolName: 'bash', input: { command: 'false' } },
      ],
    }),
    event('tool/result', {
      callId: 'c1',
      toolName: 'write',
      output: 'Wrote a.txt',
      isError: false,
      diff: { path: 'a.txt', oldText: 'one\ntwo\nthree\n', newText: 'one\nTWO\nthree\nfour\n' },
    }),
    event('tool/result', { callId: 'c2', toolName: 'bash', output: 'exit 1\nmore', isError: true }),
    event('turn/end', { reason: 'completed' }),
  ]
}

describe('transcriptLines', () => {
  it('renders Markdown, folds each tool run to one line (failures marked), shows a diff and the fork seq', () => {
    const lines = transcriptLines(turn(), plain, null)
    expect(lines.map((line) => line.text)).toEqual([
      'you › make it',
      'Doing it now.',
      '✓ write a.txt +2 −1',
      '    - two',
      '    + TWO',
      '    + four',
      '✗ bash false — exit 1',
      '─ turn ends · seq 5',
      '',
    ])
    expect(lines[7]!.turnEndSeq).toBe(5)
  })

  it('unfolds each tool run to its output on request, long output cut with a count', () => {
    const events = turn()
    ;(events[4]!.data as { output: string }).output = Array.from({ length: 25 }, (_, i) => `line ${i}`).join(
      '\n',
    )
    const lines = transcriptLines(events, plain, null, new Map(), true).map((line) => line.text)
    const at = lines.indexOf('✗ bash false — line 0')
    expect(lines.slice(at + 1, at + 3)).toEqual(['    │ line 0', '    │ line 1'])
    expect(lines).toContain('    │ … 5 more lines')
    expect(lines).not.toContain('    │ line 20')
  })

  it('colours a diff and a failure, and writes no escape at all without colours (NO_COLOR)', () => {
    const coloured = transcriptLines(turn(), colours, null).map((line) => line.text)
    expect(coloured[4]).toBe(colours.green('    + TWO'))
    expect(coloured[3]).toBe(colours.red('    - two'))
    expect(coloured[6]).toBe(colours.red('✗ bash false — exit 1'))
    expect(transcriptLines(turn(), plain, null).some((line) => line.text.includes('\u001b'))).toBe(false)
  })

  it('shows a running call as running, the streamed text after the log, and never emits controls from the model', () => {
    const events = turn().slice(0, 3)
    const lines = transcriptLines(events, plain, { text: 'partial \u001b[2J answer', reasoning: '' }).map(
      (line) => line.text,
    )
    expect(lines).toContain('… write a.txt')
    expect(lines.at(-1)).toBe('partial \\x1b[2J answer')
  })

  it('marks a call waiting for an approval until it is answered', () => {
    seq = 0
    const asked = [
      event('turn/start', {}),
      event('permission/requested', {
        callId: 'c9',
        toolName: 'bash',
        input: { command: 'rm -rf x' },
        pattern: 'rm',
      }),
    ]
    expect(transcriptLines(asked, plain, null).map((line) => line.text)).toContain(
      '? bash rm -rf x waits for your answer',
    )
    const answered = [
      ...asked,
      event('permission/answered', { callId: 'c9', decision: 'deny', reason: 'no' }),
    ]
    const shown = transcriptLines(answered, plain, null).map((line) => line.text)
    expect(shown.some((line) => line.includes('waits for your answer'))).toBe(false)
    expect(shown).toContain('  denied: no')
    // A turn that ended without an answer (interrupted) waits for none.
    const ended = [...asked, event('turn/end', { reason: 'interrupted' })]
    expect(
      transcriptLines(ended, plain, null).some((line) => line.text.includes('waits for your answer')),
    ).toBe(false)
  })
})

describe('changedLines', () => {
  it('finds the changed hunk between the common first and last lines, and cuts long ones', () => {
    expect(changedLines('', 'a\nb\n')).toEqual({ added: 2, removed: 0, shown: ['+ a', '+ b'] })
    const long = changedLines('', `${Array.from({ length: 20 }, (_, i) => `l${i}`).join('\n')}\n`)
    expect(long.added).toBe(20)
    expect(long.shown).toHaveLength(13)
    expect(long.shown.at(-1)).toBe('… 8 more')
  })
})
