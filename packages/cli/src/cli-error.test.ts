import { TangentError, type TangentErrorCode } from '@tangent/core'
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

describe('inCliWords (issue 28: one vocabulary)', () => {
  const line = (code: TangentErrorCode, message: string, data: Record<string, unknown> = {}) =>
    formatFailure(describeFailure(new TangentError(code, message, data)))

  it('names flags and commands where the runtime names protocol methods, params or buttons', () => {
    expect(
      line(
        'files-conflict',
        'Nothing was written; restore with force to overwrite them (undo brings them back).',
        {
          sessionId: 'S1',
        },
      ),
    ).toBe(
      'error[files-conflict]: Nothing was written; run the same `tangent restore` again with --force to overwrite them (`tangent restore S1 --undo` brings them back).',
    )
    expect(
      line(
        'worktree-dirty',
        'Commit or copy them and delete again, or delete it with worktree "keep" (the folder stays) or "force" (removed with its changes).',
        { sessionId: 'S2' },
      ),
    ).toBe(
      'error[worktree-dirty]: Commit or copy them and delete again, or run `tangent delete S2 --worktree keep` (the folder stays) or `--worktree force` (removed with its changes).',
    )
    expect(
      line(
        'session-not-found',
        'Session X not found: list sessions with `tangent sessions --all` or session.list.',
      ),
    ).toBe('error[session-not-found]: Session X not found: list sessions with `tangent sessions --all`.')
    expect(line('invalid-params', 'Invalid params for session.fork: atSeq: too big.')).toBe(
      'error[invalid-params]: Invalid arguments: atSeq: too big.',
    )
    expect(
      line(
        'not-a-restore',
        'Seq 4 of session S3 is not a restore of its files: give the seq of a "Restored files" row.',
        { sessionId: 'S3' },
      ),
    ).toBe(
      'error[not-a-restore]: Seq 4 of session S3 is not a restore of its files: give the seq of a `restore` row of `tangent show S3` (or --undo without a seq: the latest).',
    )
  })
})
