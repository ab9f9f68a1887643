import { maxPromptChars, maxTitleChars } from '@tangent/protocol'
import { describe, expect, it } from 'vitest'
import { UsageError } from './cli-error.js'
import { assertMessageFits, assertTitleFits } from './input-limits.js'

describe('input limits in the user’s terms', () => {
  it('takes a message up to the prompt limit and refuses one character more, saying both numbers', () => {
    expect(() => assertMessageFits('a'.repeat(maxPromptChars))).not.toThrow()
    expect(() => assertMessageFits('a'.repeat(maxPromptChars + 1))).toThrow(
      expect.objectContaining({
        code: 'invalid-params',
        message:
          'The message is 262,145 characters; the limit is 262,144: shorten it, or put the text in a file and ask the agent to read it.',
      }),
    )
  })

  it('takes a title up to its limit with a visible character; blank is bad usage, longer invalid-params', () => {
    expect(() => assertTitleFits(' x ', 'blank')).not.toThrow()
    expect(() => assertTitleFits('x'.repeat(maxTitleChars), 'blank')).not.toThrow()
    expect(() => assertTitleFits(' \t', 'needs a title')).toThrow(new UsageError('needs a title'))
    expect(() => assertTitleFits('x'.repeat(maxTitleChars + 1), 'blank')).toThrow(
      expect.objectContaining({
        code: 'invalid-params',
        message: 'The title is 201 characters; the limit is 200.',
      }),
    )
  })
})
