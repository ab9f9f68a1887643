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
