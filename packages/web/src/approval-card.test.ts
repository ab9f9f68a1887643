import { describe, expect, it } from 'vitest'
import { answerText, ruleLabel, subjectOf } from './approval-card.js'

const answer = (patch: Partial<Parameters<typeof answerText>[0]>) =>
  answerText({ seq: 1, decision: 'once', reason: null, rule: null, by: 'user', ...patch })

describe('approval wording', () => {
  it('says how a call was answered, and by whom when not a person', () => {
    expect(answer({})).toBe('Allowed once')
    expect(answer({ by: 'flag' })).toBe('Allowed once (by a flag)')
    expect(answer({ decision: 'always', rule: { tool: 'bash', pattern: 'echo' } })).toBe(
      'Allowed always: bash echo',
    )
    expect(answer({ decision: 'always', rule: { tool: 'write', pattern: '**' } })).toBe(
      'Allowed always: write',
    )
    expect(answer({ decision: 'deny', reason: 'keep it' })).toBe('Denied: keep it')
    expect(answer({ decision: 'deny' })).toBe('Denied')
    expect(answer({ decision: 'deny', by: 'interrupted' })).toBe('Not answered: the Host stopped')
  })

  it('shows the command or the path a call works on, else its input', () => {
    expect(subjectOf({ command: 'rm -rf build' })).toBe('rm -rf build')
    expect(subjectOf({ path: 'a.txt', content: 'x' })).toBe('a.txt')
    expect(subjectOf({ pattern: '*.ts' })).toBe('{\n  "pattern": "*.ts"\n}')
    expect(ruleLabel('bash', 'touch')).toBe('bash touch')
  })
})
