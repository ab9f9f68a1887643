// The length of a value as text, for token estimates (4 characters a token): a file part (an
// image of a prompt) counts as a fixed 4,000 characters, ~1,000 tokens, as providers bill an
// image of common size, instead of its base64, which would count a screenshot as ~250k tokens.

/** Characters an image stands for in an estimate. */
export const imageEstimateChars = 4000

export function estimatedChars(value: unknown): number {
  return JSON.stringify(value, withoutFileBytes)?.length ?? 0
}

function withoutFileBytes(key: string, value: unknown): unknown {
  const part = value as { type?: unknown } | null
  if (key !== '' && part !== null && typeof part === 'object' && part.type === 'file')
    return 'x'.repeat(imageEstimateChars)
  return value
}
