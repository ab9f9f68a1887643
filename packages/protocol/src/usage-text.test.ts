import { describe, expect, it } from 'vitest'
import { formatContext, formatCost, formatTokens, formatUsage } from './usage-text.js'

describe('usage text', () => {
  it('writes token counts short', () => {
    expect([0, 340, 999, 1000, 1234, 12_345, 128_000, 1_047_576].map(formatTokens)).toEqual([
      '0',
      '340',
      '999',
      '1k',
      '1.2k',
      '12.3k',
      '128k',
      '1M',
    ])
  })

  it('writes costs, and says when a price is unknown', () => {
    expect([0, 0.00004, 0.0042, 0.5, 12.345, null].map(formatCost)).toEqual([
      '$0',
      '<$0.0001',
      '$0.0042',
      '$0.5000',
      '$12.35',
      'cost unknown',
    ])
  })

  it('writes a turn or a session in one line', () => {
    const totals = { inputTokens: 1200, outputTokens: 340, cachedInputTokens: 800, reasoningTokens: 0 }
    expect(formatUsage({ ...totals, steps: 1, cost: 0.0042 })).toBe(
      'in 1.2k · out 340 · cached 800 · $0.0042',
    )
    expect(formatUsage({ ...totals, cachedInputTokens: 0, reasoningTokens: 40, steps: 1, cost: null })).toBe(
      'in 1.2k · out 340 · reasoning 40 · cost unknown',
    )
  })

  it('writes the context meter', () => {
    expect(formatContext({ used: 12_345, window: 128_000, percent: 9.6, model: 'demo:scripted' })).toBe(
      '12.3k / 128k (10%)',
    )
    expect(formatContext({ used: 137, window: 128_000, percent: 0.1, model: 'demo:scripted' })).toBe(
      '137 / 128k (<1%)',
    )
    expect(formatContext({ used: 500, window: null, percent: null, model: 'x:y' })).toBe(
      '500 (window of x:y unknown)',
    )
    expect(formatContext({ used: null, window: 1000, percent: null, model: 'x:y' })).toMatch(/^unknown/)
  })
})
