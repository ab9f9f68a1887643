// Says when the AI SDK is about to retry a model call (a 429, a 500, an overloaded provider):
// the model is wrapped so each failed attempt the SDK will retry is reported, with its reason
// and the wait the SDK takes (the same rule: retry-after-ms / retry-after under 60 s, else
// 2 s doubling). The retries themselves stay the SDK's; this only watches them.
import type { LanguageModelV4 } from '@ai-sdk/provider'

export interface RetryNotice {
  /** 1 for the first retry. */
  attempt: number
  maxRetries: number
  delayMs: number
  reason: string
}

/**
 * The line a `retry` delta carries (one per retry, newline-terminated; docs/protocol.md
 * `session.delta`): `retry 1/2 in 2000 ms: HTTP 429 Too Many Requests`.
 */
export function retryLine(notice: RetryNotice): string {
  return `retry ${notice.attempt}/${notice.maxRetries} in ${Math.round(notice.delayMs)} ms: ${notice.reason.replace(/\s+/g, ' ')}\n`
}

export function watchRetries(
  model: LanguageModelV4,
  maxRetries: number,
  onRetry: (notice: RetryNotice) => void,
): LanguageModelV4 {
  if (maxRetries <= 0) return model
  let failures = 0
  const doStream: LanguageModelV4['doStream'] = async (options) => {
    try {
      return await model.doStream(options)
    } catch (error) {
      if (failures < maxRetries && isRetryable(error) && options.abortSignal?.aborted !== true) {
        onRetry({
          attempt: failures + 1,
          maxRetries,
          delayMs: delayOf(error, 2000 * 2 ** failures),
          reason: reasonOf(error),
        })
      }
      failures++
      throw error
    }
  }
  // A proxy, not a copy: the provider's model class keeps its own `this` (private fields too).
  return new Proxy(model, {
    get(target, property) {
      if (property === 'doStream') return doStream
      const value = Reflect.get(target, property, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

function isRetryable(error: unknown): boolean {
  return error instanceof Error && (error as { isRetryable?: unknown }).isRetryable === true
}

function reasonOf(error: unknown): string {
  const status = (error as { statusCode?: unknown }).statusCode
  const message = error instanceof Error ? error.message : String(error)
  return typeof status === 'number' ? `HTTP ${status} ${message}` : message
}

/** The SDK's getRetryDelayInMs (ai, util/retry-with-exponential-backoff). */
function delayOf(error: unknown, exponential: number): number {
  const headers = (error as { responseHeaders?: Record<string, string> }).responseHeaders
  if (!headers) return exponential
  let ms: number | undefined
  const retryAfterMs = headers['retry-after-ms']
  if (retryAfterMs) {
    const value = Number.parseFloat(retryAfterMs)
    if (!Number.isNaN(value)) ms = value
  }
  const retryAfter = headers['retry-after']
  if (retryAfter && ms === undefined) {
    const seconds = Number.parseFloat(retryAfter)
    ms = Number.isNaN(seconds) ? Date.parse(retryAfter) - Date.now() : seconds * 1000
  }
  if (ms !== undefined && !Number.isNaN(ms) && ms >= 0 && (ms < 60_000 || ms < exponential)) return ms
  return exponential
}
