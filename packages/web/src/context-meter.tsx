// The open session's context meter and cost in the header (docs/architecture.md §12.5): how
// full the model's context is, said in words and numbers as well as by the bar.
import { formatCost, formatTokens, formatUsage } from '@tangent/protocol'
import type { SessionUsage } from './wire.js'

/** "Context 12.3k of 128k tokens (10%)", or what is unknown about it. */
export function contextLabel(context: SessionUsage['context']): string {
  if (context.used === null) return 'Context unknown: the last model call reported no usage'
  if (context.window === null)
    return `Context ${formatTokens(context.used)} tokens (window of ${context.model} unknown)`
  const percent = context.percent ?? 0
  const shown = percent > 0 && percent < 1 ? 'under 1' : String(Math.round(percent))
  return `Context ${formatTokens(context.used)} of ${formatTokens(context.window)} tokens (${shown}%)`
}

export function ContextMeter({ usage }: { usage: SessionUsage }) {
  const { context, total, own, inherited } = usage
  const label = contextLabel(context)
  const spent =
    inherited.steps > 0
      ? `This branch: ${formatUsage(own)}. Inherited: ${formatUsage(inherited)}.`
      : `This session: ${formatUsage(total)}.`
  const details = `${spent} Prices: ${usage.priceSource}.`
  const known = context.used !== null && context.window !== null
  return (
    <span className="usage-summary" data-testid="session-usage" title={details}>
      {known ? (
        <meter
          className="context-meter"
          min={0}
          max={context.window!}
          value={Math.min(context.used!, context.window!)}
          aria-label={label}
          aria-valuetext={label}
          data-testid="context-meter"
        />
      ) : null}
      <span className="context-text" data-testid="context-text" aria-hidden={known}>
        {label}
      </span>
      <span className="session-cost" data-testid="session-cost">
        {total.cost === null ? formatCost(null) : `cost ${formatCost(total.cost)}`}
      </span>
    </span>
  )
}
