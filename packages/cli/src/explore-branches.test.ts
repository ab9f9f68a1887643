import { describe, expect, it } from 'vitest'
import { exploreBranches } from './explore-branches.js'

describe('exploreBranches', () => {
  it('makes one branch per -p, per model, or N of one prompt', () => {
    expect(exploreBranches({ prompt: ['a', 'b', 'c'] })).toEqual([
      { prompt: 'a' },
      { prompt: 'b' },
      { prompt: 'c' },
    ])
    expect(exploreBranches({ prompt: ['a'], models: 'demo:scripted, openai:gpt-4.1' })).toEqual([
      { prompt: 'a', model: 'demo:scripted' },
      { prompt: 'a', model: 'openai:gpt-4.1' },
    ])
    expect(exploreBranches({ prompt: ['a'], count: 2 })).toEqual([{ prompt: 'a' }, { prompt: 'a' }])
  })

  it('refuses the mixes it cannot read as bad usage', () => {
    const usage = (flags: Parameters<typeof exploreBranches>[0]) => () => exploreBranches(flags)
    expect(usage({})).toThrow(/at least one -p/)
    expect(usage({ prompt: ['a', 'b'], count: 2 })).toThrow(/several -p, or one -p with -n/)
    expect(usage({ prompt: ['a', 'b'], models: 'demo:scripted' })).toThrow(/with --models/)
    expect(usage({ prompt: ['a'], models: 'demo:scripted', count: 2 })).toThrow(/--models or -n/)
    expect(usage({ prompt: ['a'], models: 'demo:scripted,' })).toThrow(/provider:model/)
    expect(usage({ prompt: [' '] })).toThrow(/prompt 1 is empty/)
    expect(usage({ prompt: Array.from({ length: 9 }, () => 'x') })).toThrow(/at most 8/)
  })
})
