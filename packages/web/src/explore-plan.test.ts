import { describe, expect, it } from 'vitest'
import { explorePlan } from './explore-plan.js'

const fields = { mode: 'prompts' as const, prompts: ['a', 'b'], prompt: '', models: [], times: 3 }

describe('explorePlan', () => {
  it('makes one branch per prompt, and names the first empty one', () => {
    expect(explorePlan(fields)).toEqual({ ok: true, branches: [{ prompt: 'a' }, { prompt: 'b' }] })
    expect(explorePlan({ ...fields, prompts: ['a', ' ', ''] })).toEqual({
      ok: false,
      missing: 'Write a prompt for branch B.',
    })
  })

  it('sends one prompt to each model picked (2–8)', () => {
    const models = { ...fields, mode: 'models' as const, prompt: ' go ' }
    expect(explorePlan({ ...models, models: ['demo:scripted', 'demo:echo'] })).toEqual({
      ok: true,
      branches: [
        { prompt: 'go', model: 'demo:scripted' },
        { prompt: 'go', model: 'demo:echo' },
      ],
    })
    expect(explorePlan({ ...models, models: ['demo:scripted'] })).toMatchObject({ ok: false })
    expect(explorePlan({ ...models, prompt: '', models: ['x', 'y'] })).toEqual({
      ok: false,
      missing: 'Write the prompt.',
    })
  })

  it('repeats one prompt N times, N from 2 to 8', () => {
    const repeat = { ...fields, mode: 'repeat' as const, prompt: 'go' }
    expect(explorePlan(repeat)).toEqual({
      ok: true,
      branches: [{ prompt: 'go' }, { prompt: 'go' }, { prompt: 'go' }],
    })
    expect(explorePlan({ ...repeat, times: 9 })).toMatchObject({ ok: false })
    expect(explorePlan({ ...repeat, times: 1.5 })).toMatchObject({ ok: false })
  })
})
