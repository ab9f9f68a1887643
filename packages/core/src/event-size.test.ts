import { describe, expect, it } from 'vitest'
import { eventTooLargeError, maxEventLineBytes, oversizedEventLineBytes } from './event-size.js'

describe('event size', () => {
  it('counts UTF-8 bytes, not characters, and only over the limit', () => {
    expect(maxEventLineBytes).toBe(64 * 1024 * 1024)
    expect(oversizedEventLineBytes('x'.repeat(100), 100)).toBeNull()
    expect(oversizedEventLineBytes('é'.repeat(50), 100)).toBeNull() // 100 bytes
    expect(oversizedEventLineBytes('é'.repeat(51), 100)).toBe(102)
  })

  it('names the event, its size and the limit, and what to do', () => {
    const event = { seq: 4, time: 0, type: 'user/message', data: {} }
    const error = eventTooLargeError('s1', event, 3 * 1024 * 1024, 1024 * 1024)
    expect(error.code).toBe('invalid-event')
    expect(error.message).toBe(
      'Event user/message of session s1 is 3 MiB as a log line, over the 1 MiB one event may hold: it was not appended and the session is unchanged. Send a shorter message: put long text in a file in the project and ask the agent to read it.',
    )
    expect(error.data).toEqual({
      type: 'user/message',
      seq: 4,
      sessionId: 's1',
      bytes: 3145728,
      limit: 1048576,
    })
  })
})
