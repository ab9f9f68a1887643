import { renderToStaticMarkup } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { ApprovalCard, alwaysScope, answerText, ruleLabel, subjectOf, visibleText } from './approval-card.js'
import { HostStore } from './host-store.js'
import type { ToolItem } from './transcript-model.js'
import { HostContext } from './use-host.js'
import type { RpcClient } from './wire.js'

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
    expect(answer({ decision: 'deny', by: 'hook', reason: 'closed' })).toBe(
      'Denied by a preToolUse hook: closed',
    )
  })

  it('shows the command or the path a call works on, else its input', () => {
    expect(subjectOf({ command: 'rm -rf build' })).toBe('rm -rf build')
    expect(subjectOf({ path: 'a.txt', content: 'x' })).toBe('a.txt')
    expect(subjectOf({ pattern: '*.ts' })).toBe('{\n  "pattern": "*.ts"\n}')
    expect(ruleLabel('bash', 'touch')).toBe('bash touch')
  })
})

function renderCard(toolName: string, input: unknown, pattern: string): string {
  const item: ToolItem = {
    kind: 'tool',
    seq: 4,
    callId: 'call-1',
    toolName,
    input,
    result: null,
    permission: { seq: 5, pattern, answer: null },
  }
  const store = new HostStore(() => ({}) as RpcClient)
  return renderToStaticMarkup(
    <HostContext.Provider value={store}>
      <ApprovalCard sessionId="s1" item={item} />
    </HostContext.Provider>,
  )
}

/** The text of the element with this data-testid (tags dropped, entities decoded). */
function textOf(html: string, testId: string): string {
  const match = new RegExp(`<(\\w+)[^>]*data-testid="${testId}"[^>]*>([\\s\\S]*?)</\\1>`).exec(html)
  if (!match) throw new Error(`no ${testId} in ${html}`)
  return match[2]!
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/&amp;/g, '&')
}

describe('the approval card', () => {
  it('shows the whole command, however long, with hidden characters made visible, in a focusable box', () => {
    const command = `echo ${'a'.repeat(400)}\u202e; touch hidden\r\necho done`
    const html = renderCard('bash', { command }, 'echo')
    expect(textOf(html, 'approval-subject')).toBe(
      `echo ${'a'.repeat(400)}\\u202e; touch hidden\\r\necho done`,
    )
    expect(html).toMatch(/<pre class="approval-subject" data-testid="approval-subject" tabindex="0">/)
  })

  it('names the exact scope of "Always allow" on the button, described by the sentence that explains it', () => {
    const html = renderCard('bash', { command: 'git status --short' }, 'git status')
    expect(textOf(html, 'approval-always')).toBe('Always allow git status')
    expect(html).toContain('<code>git status</code>')
    expect(html).toContain('aria-describedby="approval-why-call-1"')
    expect(html).toMatch(/id="approval-why-call-1">[\s\S]*every bash command that starts with “git status”/)
    expect(textOf(renderCard('write', { path: 'a.ts' }, '**'), 'approval-always')).toBe(
      'Always allow write anywhere here',
    )
  })

  it('words every scope from the pattern as it is', () => {
    expect(alwaysScope('bash', 'rm -f x')).toEqual({
      code: 'rm -f x',
      after: '',
      sentence: 'every bash command that starts with “rm -f x” (word by word)',
    })
    expect(alwaysScope('bash', '*')).toMatchObject({ code: 'bash', after: ': every command' })
    expect(alwaysScope('edit', 'src/**')).toMatchObject({ code: 'edit src/**' })
    expect(alwaysScope('mcp__gh__issue', '**')).toMatchObject({
      code: 'mcp__gh__issue',
      after: ' with any input',
    })
    expect(alwaysScope('bash', 'exact:rm -rf build')).toEqual({
      code: 'this exact command',
      after: '',
      sentence: 'only this bash command, character for character: “rm -rf build”',
    })
    expect(alwaysScope('write', '.git/config')).toMatchObject({
      code: 'write .git/config',
      after: ' this once',
      sentence: expect.stringContaining('asks every time'),
    })
    expect(visibleText('a\u0007b\tc\u200bd')).toBe('a\\x07b\tc\\u200bd')
  })
})
