import { TangentError } from '@tangent/core'
import { describe, expect, it } from 'vitest'
import { describeFailure, formatFailure, UsageError } from './cli-error.js'

describe('describeFailure', () => {
  it('keeps a TangentError code, and lists conflicting paths', () => {
    const report = describeFailure(
      new TangentError('files-conflict', 'Changed since.', { paths: ['a.txt', 'b.txt'] }),
    )
    expect(report.exitCode).toBe(1)
    expect(formatFailure(report)).toBe('error[files-conflict]: Changed since. (a.txt, b.txt)')
  })

  it('maps usage errors to exit 2 and unknown errors to internal', () => {
    expect(describeFailure(new UsageError('bad flag')).exitCode).toBe(2)
    expect(formatFailure(describeFailure(new Error('boom\nsecond line')))).toBe(
      'error[internal]: boom second line',
    )
  })
})

describe('formatFailure', () => {
  it("escapes what a message quotes (a title, a path, a model's words): one line, no control reaches the terminal", () => {
    const report = describeFailure(
      new TangentError('turn-error', 'The turn ended: \x1b]0;PWNED\x07 \x1b[2J\ttab\x9b', {
        paths: ['e\x1b[31m.txt'],
      }),
    )
    expect(formatFailure(report)).toBe(
      'error[turn-error]: The turn ended: \\x1b]0;PWNED\\x07 \\x1b[2J\\ttab\\x9b (e\\x1b[31m.txt)',
    )
  })
})
