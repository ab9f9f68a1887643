import { describe, expect, it } from 'vitest'
import { branchLabels, branchTitles } from './explore.js'

describe('branchTitles', () => {
  it('leads with the part of each prompt its siblings do not share', () => {
    expect(
      branchTitles(
        [
          { prompt: 'Rewrite notes.txt in a formal tone, keep it short' },
          { prompt: 'Rewrite notes.txt in a casual tone, keep it short' },
        ],
        'Notes',
        branchLabels,
      ),
    ).toEqual(['…formal…', '…casual…'])
    expect(branchTitles([{ prompt: 'fix it' }, { prompt: 'fix it properly' }], 'S', branchLabels)).toEqual([
      'fix it',
      '…properly',
    ])
  })

  it('gives the model for one prompt to several models, the prompt for one prompt N times', () => {
    expect(
      branchTitles(
        [
          { prompt: 'Add tests', model: 'demo/a' },
          { prompt: 'Add tests', model: 'demo/b' },
        ],
        'S',
        branchLabels,
      ),
    ).toEqual(['demo/a · Add tests', 'demo/b · Add tests'])
    expect(branchTitles([{ prompt: 'Add tests' }, { prompt: 'Add  tests ' }], 'S', branchLabels)).toEqual([
      'Add tests',
      'Add tests',
    ])
    expect(branchTitles([{ prompt: ' ' }, { prompt: '' }], 'S', branchLabels)).toEqual(['S · A', 'S · B'])
    expect(branchTitles([{ prompt: 'x'.repeat(200) }], 'S', branchLabels)[0]).toHaveLength(80)
  })
})
