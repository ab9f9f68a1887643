// What the CLI checks of a message or a title before it sends it: a refusal then comes before
// anything is made for it (a session for a first message), and says what is wrong in the user's
// terms rather than the protocol's (the limits are docs/protocol.md's, from @tangent/protocol).
import { TangentError } from '@tangent/core'
import { maxPromptChars, maxTitleChars } from '@tangent/protocol'
import { UsageError } from './cli-error.js'

/** `invalid-params` when a message is longer than a prompt may be. */
export function assertMessageFits(text: string): void {
  if (text.length <= maxPromptChars) return
  throw new TangentError(
    'invalid-params',
    `The message is ${count(text.length)} characters; the limit is ${count(maxPromptChars)}: shorten it, or put the text in a file and ask the agent to read it.`,
    { length: text.length, limit: maxPromptChars },
  )
}

/**
 * A title the Host takes: bad usage (`blank`, the sentence that says where to put one) without
 * a visible character, `invalid-params` past the length limit.
 */
export function assertTitleFits(title: string, blank: string): void {
  if (!/\S/.test(title)) throw new UsageError(blank)
  if (title.length <= maxTitleChars) return
  throw new TangentError(
    'invalid-params',
    `The title is ${count(title.length)} characters; the limit is ${count(maxTitleChars)}.`,
    { length: title.length, limit: maxTitleChars },
  )
}

function count(n: number): string {
  return n.toLocaleString('en-US')
}
