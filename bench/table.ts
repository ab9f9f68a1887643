// Shared helpers for benchmarks: timing, medians and a printed table.
// Benchmarks report ratios against a baseline measured in the same run,
// because the machines are shared and absolute times are noisy.

export interface BenchRow {
  /** What was measured, e.g. "fork + flush @ 100k events". */
  name: string
  /** Median of the measured operation, in milliseconds. */
  medianMs: number
  /** The baseline's name and median (same run), when there is one. */
  baseline?: { name: string; medianMs: number }
  /** Extra columns: bytes written, memory, events/s… */
  extra?: Record<string, string | number>
  /** The target, in words, and whether this run met it. */
  target?: { text: string; met: boolean }
  /** What `medianMs` and the baseline's median hold when not milliseconds: bytes (shown in MiB). */
  unit?: 'bytes'
}

export interface BenchSuite {
  title: string
  run(): Promise<BenchRow[]>
}

/** Runs `fn` `iterations` times (after `warmup` runs) and returns each duration in ms. */
export async function timeIt(
  fn: () => unknown | Promise<unknown>,
  iterations: number,
  warmup = 1,
): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn()
  const times: number[] = []
  for (let i = 0; i < iterations; i++) {
    const start = process.hrtime.bigint()
    await fn()
    times.push(Number(process.hrtime.bigint() - start) / 1e6)
  }
  return times
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  if (sorted.length === 0) return Number.NaN
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  if (sorted.length === 0) return Number.NaN
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
}

export function formatMs(ms: number): string {
  if (ms < 1) return `${(ms * 1000).toFixed(0)} µs`
  if (ms < 100) return `${ms.toFixed(2)} ms`
  return `${ms.toFixed(0)} ms`
}

/** A markdown table of rows: name, median, baseline, ratio, extras, target. */
export function renderTable(title: string, rows: readonly BenchRow[]): string {
  const extraKeys = [...new Set(rows.flatMap((r) => Object.keys(r.extra ?? {})))]
  const head = ['measure', 'median', 'baseline', 'baseline median', 'ratio', ...extraKeys, 'target']
  const lines = [`### ${title}`, '', `| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`]
  for (const row of rows) {
    const ratio = row.baseline ? row.medianMs / row.baseline.medianMs : undefined
    const format =
      row.unit === 'bytes' ? (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB` : formatMs
    const cells = [
      row.name,
      format(row.medianMs),
      row.baseline?.name ?? '—',
      row.baseline ? format(row.baseline.medianMs) : '—',
      formatRatio(ratio),
      ...extraKeys.map((k) => String(row.extra?.[k] ?? '')),
      row.target ? `${row.target.met ? 'met' : 'MISSED'}: ${row.target.text}` : '',
    ]
    lines.push(`| ${cells.join(' | ')} |`)
  }
  return lines.join('\n')
}

/** `2.50×` when slower than (or level with) the baseline, `0.010× (100× faster)` when clearly faster. */
function formatRatio(ratio: number | undefined): string {
  if (ratio === undefined) return '—'
  if (ratio >= 0.95) return `${ratio.toFixed(2)}×`
  return `${ratio.toFixed(3)}× (${(1 / ratio).toFixed(ratio > 0.5 ? 1 : 0)}× faster)`
}
