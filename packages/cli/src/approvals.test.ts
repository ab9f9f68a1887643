import { describe, expect, it } from 'vitest'
import { alwaysScope, approvalQuestion } from './approvals.js'

const ask = (toolName: string, input: unknown, pattern: string) => ({
  callId: 'c1',
  toolName,
  input,
  pattern,
})

describe('the approval question', () => {
  it('shows every line of the command, escaped and folded, never cut, then the scope and the choices', () => {
    const command = `printf ok\n${'x'.repeat(50)}\r\u009b; touch hidden`
    const question = approvalQuestion(ask('bash', { command }, 'printf'), 40)
    expect(question.split('\n')).toEqual([
      'Allow bash to run:',
      '  │ printf ok',
      `  │ ${'x'.repeat(35)}`,
      `  │ ${'x'.repeat(15)}\\r\\x9b; touch hidden`,
      '  [a] always = allow bash commands starting with `printf` for the rest of this session',
      '[y] once · [a] always · [n] deny › ',
    ])
  })

  it('names the scope "always" keeps: the pattern as it is, or the tool anywhere', () => {
    expect(alwaysScope(ask('bash', { command: 'git status' }, 'git status'))).toBe(
      'bash commands starting with `git status`',
    )
    expect(alwaysScope(ask('bash', { command: 'x' }, '*'))).toBe('every bash command')
    expect(alwaysScope(ask('bash', { command: 'rm -f x' }, 'exact:rm -f x'))).toBe(
      'only this exact bash command',
    )
    expect(alwaysScope(ask('bash', { command: 'rm -f y' }, 'exact:rm -f x\u001b'))).toBe(
      'only the exact bash command `rm -f x\\x1b`',
    )
    expect(alwaysScope(ask('bash', { command: 'x' }, 'rm -f x\u001b[2J'))).toBe(
      'bash commands starting with `rm -f x\\x1b[2J`',
    )
    expect(alwaysScope(ask('write', { path: 'a.ts' }, '**'))).toBe(
      "write anywhere in the session's directory",
    )
    expect(alwaysScope(ask('edit', { path: 'src/a.ts' }, 'src/**'))).toBe('edit on `src/**`')
    expect(alwaysScope(ask('write', { path: '.git/config' }, '.git/config'))).toBe(
      "nothing more: writing `.git/config` (the repository's .git or the project's .tangent) asks every time",
    )
    expect(approvalQuestion(ask('write', { path: 'src/a.ts' }, '**'))).toMatch(
      /^Allow write on:\n {2}│ src\/a\.ts\n/,
    )
    expect(approvalQuestion(ask('mcp__gh__issue', { title: 't' }, '**'))).toMatch(
      /^Allow mcp__gh__issue with:\n {2}│ \{"title":"t"\}\n/,
    )
  })
})

describe('a denial with nobody to ask', () => {
  it('is recorded as no-terminal, and never offers an --allow already given', async () => {
    const { Approver } = await import('./approvals.js')
    const answered: unknown[] = []
    const notices: string[] = []
    const backend = {
      answerPermission: async (_session: string, _call: string, answer: unknown) => {
        answered.push(answer)
      },
    } as unknown as ConstructorParameters<typeof Approver>[0]['backend']
    const approver = new Approver({
      backend,
      flags: { allow: ['mcp__gh__issue:foo'] },
      ask: async () => null,
      notice: (line) => notices.push(line),
      cwd: () => '/work/project',
    })
    const observer = approver.observe('S', { onEvent: () => {}, onDelta: () => {} })
    observer.onEvent({
      seq: 5,
      time: 0,
      type: 'permission/requested',
      data: ask('mcp__gh__issue', { title: 't' }, 'foo'),
    })
    for (let waited = 0; answered.length === 0 && waited < 10_000; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20))
    expect(answered).toEqual([
      {
        decision: 'deny',
        by: 'no-terminal',
        reason:
          'no terminal to ask: --allow mcp__gh__issue:foo was given but does not cover this call: pass --yes to allow every call of this turn',
      },
    ])
    expect(notices).toEqual([
      'tangent: denied mcp__gh__issue: {"title":"t"} (no terminal to ask: --allow mcp__gh__issue:foo was given but does not cover this call: pass --yes to allow every call of this turn)',
    ])
  })
})
