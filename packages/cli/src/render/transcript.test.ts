import { describe, expect, it } from 'vitest'
import type { SessionEvent, SessionSummary } from '../backend.js'
import { styleFor } from './style.js'
import { renderTranscript } from './transcript.js'

const plain = styleFor({ write: () => true, isTTY: false }, {})

const session: SessionSummary = {
  id: 's1',
  title: 'md',
  cwd: '/tmp/x',
  workspaceId: null,
  parentSession: null,
  forkedAt: null,
  origin: 'user',
  createdAt: 0,
  updatedAt: 0,
  eventCount: 4,
  inheritedEventCount: 0,
  status: 'idle',
  archived: false,
  model: null,
  mode: 'edit',
  files: { mode: 'shared', path: '/tmp/x', baseTree: null },
}

const text = 'It is **done**:\n\n- `a.ts`\n- b.ts'
const events: SessionEvent[] = [
  { seq: 0, time: 0, type: 'turn/start', data: {} },
  { seq: 1, time: 0, type: 'assistant/message', data: { content: [{ type: 'text', text }] } },
]

describe('renderTranscript (tangent show)', () => {
  it('renders the answer’s Markdown on a terminal, its lines under the text column', () => {
    const lines = renderTranscript(session, events, plain, undefined, { markdown: true })
    expect(lines.at(-1)).toBe(`1  assistant  It is done:\n\n${' '.repeat(14)}• a.ts\n${' '.repeat(14)}• b.ts`)
  })

  it('shows it as written otherwise (a pipe)', () => {
    expect(renderTranscript(session, events, plain).at(-1)).toBe(`1  assistant  ${text}`)
  })
})
