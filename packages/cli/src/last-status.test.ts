import { describe, expect, it } from 'vitest'
import type { SessionEvent } from './backend.js'
import { statusOf } from './last-status.js'

const event = (seq: number, type: string, data: unknown = {}): SessionEvent =>
  ({ seq, time: seq, type, data }) as SessionEvent

describe('how the last turn went (tangent sessions)', () => {
  it('reads a running turn as running or needs approval, an ended one by its reason', () => {
    const asking = [event(1, 'turn/start'), event(2, 'permission/requested', { callId: 'c1' })]
    expect(statusOf({ status: 'running' }, asking)).toBe('needs-approval')
    expect(
      statusOf({ status: 'running' }, [...asking, event(3, 'permission/answered', { callId: 'c1' })]),
    ).toBe('running')
    const ended = (reason: string) =>
      statusOf({ status: 'idle' }, [
        event(1, 'turn/start'),
        event(2, 'turn/end', { reason }),
        event(3, 'session/title', { title: 't' }),
      ])
    expect(ended('completed')).toBe('ok')
    expect(ended('error')).toBe('failed')
    expect(ended('aborted')).toBe('aborted')
    expect(ended('interrupted')).toBe('aborted')
    expect(ended('max-steps')).toBe('max-steps')
    // A turn that never ended (its process stopped) and a session with no turn yet.
    expect(statusOf({ status: 'idle' }, [event(1, 'turn/start'), event(2, 'user/message')])).toBe('aborted')
    expect(statusOf({ status: 'idle' }, [event(0, 'model/selection')])).toBe('new')
  })
})
