import { describe, expect, it } from 'vitest'
import { HooksConfig, hookMatchesTool } from './hook-config.js'

/** The first issue's path and message, as a config error names them. */
function problem(value: unknown): string | null {
  const parsed = HooksConfig.safeParse(value)
  if (parsed.success) return null
  const issue = parsed.error.issues[0]!
  return `${issue.path.join('.')}: ${issue.message}`
}

describe('hooks config', () => {
  it('takes every event with a command, a match on tool events and a timeout', () => {
    expect(
      problem({
        sessionStart: [{ command: 'echo start' }],
        preToolUse: [{ command: './guard.sh', match: 'bash', timeoutMs: 500 }],
        postToolUse: [{ command: 'fmt', match: 'mcp__*' }],
        turnEnd: [],
        fork: [{ command: 'x' }],
        keep: [{ command: 'y', timeoutMs: 600_000 }],
      }),
    ).toBeNull()
  })

  it('names what is wrong: an unknown event, a missing or blank command, a bad timeout, a stray key or match', () => {
    expect(problem({ preTool: [{ command: 'x' }] })).toBe(
      'preTool: "preTool" is not a hook event (use sessionStart, preToolUse, postToolUse, turnEnd, fork, keep)',
    )
    expect(problem({ turnEnd: [{}] })).toBe('turnEnd.0.command: a hook needs a "command" (a shell line)')
    expect(problem({ turnEnd: [{ command: '   ' }] })).toBe(
      'turnEnd.0.command: a hook needs a "command" (a shell line)',
    )
    for (const timeoutMs of [0, -1, 1.5, 600_001, '100'])
      expect(problem({ fork: [{ command: 'x', timeoutMs }] })).toContain(
        'fork.0.timeoutMs: timeoutMs must be a whole number of milliseconds, 1 to 600000',
      )
    expect(problem({ fork: [{ command: 'x', timeout: 5 }] })).toContain('fork.0')
    expect(problem({ turnEnd: [{ command: 'x', match: 'bash' }] })).toBe(
      'turnEnd.0.match: "match" limits only preToolUse and postToolUse hooks, not turnEnd',
    )
    expect(problem({ preToolUse: { command: 'x' } })).toContain('preToolUse')
    expect(problem([])).not.toBeNull()
  })

  it('match: a tool name exactly, or a glob where * is any characters and ? one', () => {
    expect(hookMatchesTool(undefined, 'bash')).toBe(true)
    expect(hookMatchesTool('bash', 'bash')).toBe(true)
    expect(hookMatchesTool('bash', 'bash2')).toBe(false)
    expect(hookMatchesTool('mcp__github__*', 'mcp__github__create_issue')).toBe(true)
    expect(hookMatchesTool('mcp__github__*', 'mcp__gitlab__x')).toBe(false)
    expect(hookMatchesTool('b?sh', 'bash')).toBe(true)
    expect(hookMatchesTool('*', 'anything')).toBe(true)
    // Other regular-expression characters are themselves.
    expect(hookMatchesTool('a.b', 'axb')).toBe(false)
    expect(hookMatchesTool('(x)+', '(x)+')).toBe(true)
  })
})
