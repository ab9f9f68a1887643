// The usage figures (docs/protocol.md "Types", Usage) written the one way both clients show
// them: `tangent show` and the web UI say "in 1.2k · out 340 · cached 800 · $0.0042".
import type { ContextUsage, UsageTotals } from './types.js'

/** 340, 1.2k, 128k, 1M: one decimal at most. */
export function formatTokens(tokens: number): string {
  if (tokens < 1000) return String(Math.round(tokens))
  // Two branches, not a destructured pair: `tangent show` formats a few per turn.
  if (tokens < 1_000_000) return `${Math.round((tokens / 1000) * 10) / 10}k`
  return `${Math.round((tokens / 1_000_000) * 10) / 10}M`
}

/** USD: $0 for a free model, four decimals under a dollar, cents above; null is an unknown price. */
export function formatCost(cost: number | null): string {
  if (cost === null) return 'cost unknown'
  if (cost === 0) return '$0'
  if (cost < 0.0001) return '<$0.0001'
  return cost < 1 ? `$${cost.toFixed(4)}` : `$${cost.toFixed(2)}`
}

/** "in 1.2k · out 340 · cached 800 · $0.0042" (cached and reasoning only when there are some). */
export function formatUsage(totals: UsageTotals): string {
  const parts = [`in ${formatTokens(totals.inputTokens)}`, `out ${formatTokens(totals.outputTokens)}`]
  if (totals.cachedInputTokens > 0) parts.push(`cached ${formatTokens(totals.cachedInputTokens)}`)
  if (totals.reasoningTokens > 0) parts.push(`reasoning ${formatTokens(totals.reasoningTokens)}`)
  parts.push(formatCost(totals.cost))
  return parts.join(' · ')
}

/** "12.3k / 128k (10%)"; what is unknown is said, never guessed. */
export function formatContext(context: ContextUsage): string {
  if (context.used === null) return 'unknown (the last call reported no usage)'
  const used = formatTokens(context.used)
  if (context.window === null) return `${used} (window of ${context.model} unknown)`
  const percent = context.percent ?? 0
  const shown = percent > 0 && percent < 1 ? '<1' : String(Math.round(percent))
  return `${used} / ${formatTokens(context.window)} (${shown}%)`
}
