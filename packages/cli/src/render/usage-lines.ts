// Usage lines of `tangent show` and `tangent diff` (docs/architecture.md §12.5): tokens and cost
// of a session, own vs inherited, and its context meter, in the wording of @tangent/protocol.
import { formatContext, formatUsage, type UsageSplit } from '@tangent/protocol'
import type { Style } from './style.js'

/** "tokens in 1.2k · out 340 · $0.0042" (own and inherited apart for a fork), then the context meter. */
export function usageLines(
  usage: UsageSplit,
  style: Style,
  labels = { own: 'own', inherited: 'inherited' },
): string[] {
  const tokens =
    usage.inherited.steps > 0
      ? `${labels.own}: ${formatUsage(usage.own)}  ${labels.inherited}: ${formatUsage(usage.inherited)}`
      : formatUsage(usage.own)
  return [
    style.dim(`  tokens ${tokens}`),
    style.dim(`  context ${formatContext(usage.context)} · prices: ${usage.priceSource}`),
  ]
}
