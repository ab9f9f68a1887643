// The `claude` export's mapping (claude-export.ts): records chained as Claude Code chains them,
// Tangent's tools under Claude Code's names where they correspond, results answering their calls,
// usage, images, compactions; stable ids; hostile content. The real Claude Code resuming an export
// is test/e2e/export-claude.e2e.ts; here the Claude Code reader (imports/claude.ts) reads it back.
import { type Session, SessionStore } from '@tangent/core'
import { describe, expect, test } from 'vitest'
import { readClaudeSession, testedClaudeCodeVersions } from '../imports/claude.js'
import { claudeFolderKey } from '../imports/claude-folder-key.js'
import { claudeExportFormatVersion, exportClaude } from './claude-export.js'
import { claudeSessionIdOf, claudeToolUseId } from './claude-ids.js'
import { claudeToolCallOf } from './claude-tools.js'

/** A record read back: JSON, looked into freely. */
// biome-ignore lint/suspicious/noExplicitAny: the test reads arbitrary JSON records
type Record_ = Record<string, any>

const context = { now: Date.UTC(2026, 11, 4), version: 'test' }
const sessionUlid = '01KBMZ8J6N0000000000000000'
const cwd = '/home/me/my project ü'

/** A session of the given turns; each turn is a user text and its steps. */
function sessionOf(
  turns: { user: unknown[]; steps: { content: unknown[]; results?: unknown[]; usage?: unknown }[] }[],
  options: { id?: string; cwd?: string; title?: string; before?: (session: Session) => void } = {},
): Session {
  const store = new SessionStore({ now: () => context.now })
  const session = store.create(options.id ?? sessionUlid, { meta: { cwd: options.cwd ?? cwd } })
  session.append('model/selection', { provider: 'anthropic', model: 'claude-sonnet-4-5' })
  options.before?.(session)
  let time = context.now
  for (const turn of turns) {
    session.append('turn/start', {}, ++time)
    session.append('user/message', { content: turn.user }, ++time)
    for (const step of turn.steps) {
      session.append('step/start', {}, ++time)
      session.append('assistant/message', { content: step.content }, ++time)
      for (const result of step.results ?? []) session.append('tool/result', result, ++time)
      const calls = step.content.some((part) => (part as { type: string }).type === 'tool-call')
      session.append(
        'step/end',
        { finishReason: calls ? 'tool-calls' : 'stop', ...(step.usage ? { usage: step.usage } : {}) },
        ++time,
      )
    }
    session.append('turn/end', { reason: 'completed' }, ++time)
  }
  if (options.title) session.append('session/title', { title: options.title }, ++time)
  return session
}

const text = (value: string) => ({ type: 'text', text: value })
const call = (toolCallId: string, toolName: string, input: unknown) => ({
  type: 'tool-call',
  toolCallId,
  toolName,
  input,
})
const result = (callId: string, toolName: string, output: unknown, isError = false) => ({
  callId,
  toolName,
  output,
  isError,
})

function exported(session: Session, throughSeq = session.lastSeq) {
  const out = exportClaude(session, throughSeq, context)
  return { ...out, records: out.lines.map((line) => JSON.parse(line) as Record_) }
}

/** The messages a resume sends: the chain from the last message record back to its start. */
function chainOf(records: Record_[]): Record_[] {
  const byUuid = new Map(records.filter((record) => record.uuid).map((record) => [record.uuid, record]))
  const chain: Record_[] = []
  let record = records.filter((candidate) => candidate.uuid).at(-1)
  while (record) {
    chain.unshift(record)
    record = record.parentUuid === null ? undefined : byUuid.get(record.parentUuid)
  }
  return chain
}

describe('exportClaude', () => {
  const session = sessionOf(
    [
      {
        user: [text('make notes.txt\nthen read it')],
        steps: [
          {
            content: [
              { type: 'reasoning', text: 'thinking it over' },
              text('Writing it.'),
              call('call-1', 'write', { path: 'notes.txt', content: 'alpha\n' }),
              call('call-2', 'read', { path: 'notes.txt', offset: 1, limit: 5 }),
            ],
            results: [result('call-1', 'write', 'Wrote notes.txt.'), result('call-2', 'read', 'alpha\n')],
            usage: { inputTokens: 150, outputTokens: 20, cachedInputTokens: 100 },
          },
          { content: [text('Done.')], usage: { inputTokens: 200, outputTokens: 5 } },
        ],
      },
      { user: [text('second')], steps: [{ content: [text('Second answer.')] }] },
    ],
    { title: 'Notes' },
  )

  test('the file: where Claude Code looks, under a uuid stable for the session', () => {
    const { file, records } = exported(session)
    const uuid = claudeSessionIdOf(sessionUlid)
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(file).toEqual({
      tool: 'claude',
      sessionId: uuid,
      path: `projects/${claudeFolderKey(cwd)}/${uuid}.jsonl`,
    })
    expect(file.path).toBe(`projects/-home-me-my-project--/${uuid}.jsonl`)
    for (const record of records) expect(record.sessionId).toBe(uuid)
    // Exported again (even at another time), the same file: it overwrites its earlier export.
    expect(exportClaude(session, session.lastSeq, { ...context, now: 5 }).lines).toEqual(
      exported(session).lines,
    )
    expect(claudeExportFormatVersion).toBe(testedClaudeCodeVersions.newest)
  })

  test('one record per content block, chained; results answer their calls; usage in the API shape', () => {
    const { records } = exported(session)
    const messages = records.filter((record) => record.uuid)
    expect(chainOf(records)).toEqual(messages)
    expect(
      messages.map((record) => [
        record.type,
        typeof record.message.content === 'string' ? record.message.content : record.message.content,
      ]),
    ).toEqual([
      ['user', 'make notes.txt\nthen read it'],
      ['assistant', [{ type: 'text', text: 'Writing it.' }]],
      [
        'assistant',
        [
          {
            type: 'tool_use',
            id: 'call-1',
            name: 'Write',
            input: { file_path: `${cwd}/notes.txt`, content: 'alpha\n' },
          },
        ],
      ],
      [
        'assistant',
        [
          {
            type: 'tool_use',
            id: 'call-2',
            name: 'Read',
            input: { file_path: `${cwd}/notes.txt`, offset: 1, limit: 5 },
          },
        ],
      ],
      [
        'user',
        [
          { type: 'tool_result', tool_use_id: 'call-1', content: 'Wrote notes.txt.', is_error: false },
          { type: 'tool_result', tool_use_id: 'call-2', content: 'alpha\n', is_error: false },
        ],
      ],
      ['assistant', [{ type: 'text', text: 'Done.' }]],
      ['user', 'second'],
      ['assistant', [{ type: 'text', text: 'Second answer.' }]],
    ])
    // The blocks of one step share its API message id, stop reason and usage.
    const step = messages.slice(1, 4).map((record) => record.message)
    expect(new Set(step.map((message) => message.id)).size).toBe(1)
    expect(step[0]).toMatchObject({
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      stop_reason: 'tool_use',
      usage: { input_tokens: 50, cache_read_input_tokens: 100, output_tokens: 20 },
    })
    expect(messages[5]!.message).toMatchObject({ stop_reason: 'end_turn', usage: { input_tokens: 200 } })
    expect(messages[5]!.message.id).not.toBe(step[0].id)
    for (const record of messages) {
      expect(record).toMatchObject({ isSidechain: false, cwd, version: '2.1.332' })
      expect(Number.isNaN(Date.parse(record.timestamp))).toBe(false)
    }
    expect(records.at(-1)).toEqual({
      type: 'custom-title',
      customTitle: 'Notes',
      sessionId: claudeSessionIdOf(sessionUlid),
    })
  })

  test('the Claude Code reader reads it back: texts, calls under Tangent names, results, usage', () => {
    const { lines, file } = exported(session)
    const tree = readClaudeSession(`${lines.join('\n')}\n`, { fileName: `${file.sessionId}.jsonl` })
    expect(tree.problems).toEqual([])
    expect(tree.sourceId).toBe(file.sessionId)
    expect(tree.cwd).toBe(cwd)
    expect(tree.title).toBe('Notes')
    const entries = tree.entries.filter((entry) => entry.kind !== 'unknown')
    expect(
      entries.map((entry) =>
        entry.kind === 'assistant'
          ? ['assistant', entry.text, entry.toolCalls.map((c) => [c.id, c.name, c.input])]
          : entry.kind === 'tool-result'
            ? ['result', entry.callId, entry.toolName, entry.output, entry.isError]
            : [entry.kind, (entry as { text?: string }).text],
      ),
    ).toEqual([
      ['user', 'make notes.txt\nthen read it'],
      [
        'assistant',
        'Writing it.',
        [
          ['call-1', 'write', { path: 'notes.txt', content: 'alpha\n' }],
          ['call-2', 'read', { path: 'notes.txt', offset: 1, limit: 5 }],
        ],
      ],
      ['result', 'call-1', 'write', 'Wrote notes.txt.', false],
      ['result', 'call-2', 'read', 'alpha\n', false],
      ['assistant', 'Done.', []],
      ['user', 'second'],
      ['assistant', 'Second answer.', []],
    ])
    expect(tree.model).toBe('anthropic:claude-sonnet-4-5')
  })

  test('throughSeq cuts the history: a fork point exports the turns before it only', () => {
    const firstEnd = session.events.find((event) => event.type === 'turn/end')!.seq
    const texts = exported(session, firstEnd).lines.join('\n')
    expect(texts).toContain('Done.')
    expect(texts).not.toContain('second')
  })

  test('an image is an image block; an error result is one', () => {
    const pixel =
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='
    const store = new SessionStore({ now: () => context.now })
    const withImage = store.create(sessionUlid, { meta: { cwd } })
    withImage.append('turn/start', {})
    withImage.append('user/message', {
      content: [text('what is this?'), { type: 'file', mediaType: 'image/png', data: pixel }],
    })
    withImage.append('step/start', {})
    withImage.append('assistant/message', {
      content: [call('c1', 'bash', { command: 'false' }), call('c2', 'bash', { command: 'sleep 9' })],
    })
    withImage.append('tool/result', result('c1', 'bash', '[exit code 1]', true))
    withImage.append('tool/result', result('c2', 'bash', 'Interrupted.', true))
    withImage.append('step/end', { finishReason: 'tool-calls' })
    withImage.append('turn/end', { reason: 'interrupted' })
    const messages = exported(withImage).records
    expect(messages[0]!.message.content).toEqual([
      { type: 'text', text: 'what is this?' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: pixel } },
    ])
    expect(messages.at(-1)!.message.content).toEqual([
      { type: 'tool_result', tool_use_id: 'c1', content: '[exit code 1]', is_error: true },
      { type: 'tool_result', tool_use_id: 'c2', content: 'Interrupted.', is_error: true },
    ])
    const tree = readClaudeSession(`${exported(withImage).lines.join('\n')}\n`)
    expect(tree.entries[0]).toMatchObject({ kind: 'user', images: [{ mediaType: 'image/png', data: pixel }] })
  })

  test('a compaction: a boundary and its summary where replay starts from it, then the history after', () => {
    const compacted = sessionOf(
      [
        { user: [text('first')], steps: [{ content: [text('First answer.')] }] },
        { user: [text('after the summary')], steps: [{ content: [text('Later answer.')] }] },
      ],
      {},
    )
    // A manual compaction between the turns: it stands for everything before it.
    const store = new SessionStore({ now: () => context.now })
    const session = store.create('01KBMZ8J6N0000000000000001', { meta: { cwd } })
    const firstTurn = compacted.events.filter((event) => event.seq <= 5)
    for (const event of firstTurn) session.append(event.type, event.data, event.time)
    session.append('context/compacted', {
      summary: 'The user said first.',
      throughSeq: session.lastSeq,
      model: 'anthropic:claude-sonnet-4-5',
      trigger: 'manual',
      tokensBefore: 300,
    })
    for (const event of compacted.events.filter((event) => event.seq > 5))
      session.append(event.type, event.data, event.time)
    const { records, lines } = exported(session)
    const boundary = records.find((record) => record.subtype === 'compact_boundary')!
    expect(boundary).toMatchObject({
      type: 'system',
      parentUuid: null,
      compactMetadata: { trigger: 'manual', preTokens: 300 },
    })
    expect(boundary.logicalParentUuid).toBe(records[records.indexOf(boundary) - 1]!.uuid)
    // What a resume sends: the summary, then what followed it; the earlier turn stays in the file.
    const chain = chainOf(records).filter((record) => record.type !== 'system')
    expect(chain.map((record) => record.message.content)).toEqual([
      expect.stringMatching(/^This session is being continued .*\n\nSummary:\nThe user said first\.$/s),
      'after the summary',
      [{ type: 'text', text: 'Later answer.' }],
    ])
    expect(chain[0]).toMatchObject({ isCompactSummary: true })
    expect(lines.join('\n')).toContain('First answer.')
    // Read back, it is a compaction again.
    const tree = readClaudeSession(`${lines.join('\n')}\n`)
    expect(tree.entries.filter((entry) => entry.kind === 'summary')).toHaveLength(1)
  })

  test('hostile content: newlines, U+2028, quotes and a huge output stay one line each, intact', () => {
    const huge = `${'x'.repeat(3_000_000)}\n\u2028\u2029"}\n{"type":"user"`
    const hostile = sessionOf([
      {
        user: [text('line one\r\nline two\u2028"quoted" \\ back\u0000slash')],
        steps: [
          {
            content: [call('c1', 'bash', { command: 'echo "}\n{"' })],
            results: [result('c1', 'bash', huge)],
          },
          { content: [text('</script>\n\n')] },
        ],
      },
    ])
    const { lines, records } = exported(hostile)
    expect(lines).toHaveLength(records.length)
    for (const line of lines) expect(line).not.toMatch(/[\n\r]/)
    expect(records[0]!.message.content).toBe('line one\r\nline two\u2028"quoted" \\ back\u0000slash')
    const results = records.find(
      (record) => Array.isArray(record.message?.content) && record.message.content[0].type === 'tool_result',
    )
    expect(results!.message.content[0].content).toBe(huge)
  })

  test('ids the API would refuse are replaced, the same for the call and its result; repeated ids made unique', () => {
    const odd = 'call|fc_1 ü/..'
    const hostile = sessionOf([
      {
        user: [text('go')],
        steps: [
          {
            content: [call(odd, 'my.tool/x', 'not an object')],
            results: [result(odd, 'my.tool/x', { ok: true })],
          },
          { content: [call('call_0', 'bash', { command: 'true' })], results: [result('call_0', 'bash', '')] },
          {
            content: [call('call_0', 'bash', { command: 'true' })],
            results: [result('call_0', 'bash', 'again')],
          },
          { content: [text('ok')] },
        ],
      },
    ])
    const { records } = exported(hostile)
    const uses = records.flatMap((record) =>
      Array.isArray(record.message?.content)
        ? record.message.content.filter((b: Record_) => b.type === 'tool_use')
        : [],
    )
    const answers = records.flatMap((record) =>
      Array.isArray(record.message?.content)
        ? record.message.content.filter((b: Record_) => b.type === 'tool_result')
        : [],
    )
    for (const use of uses) {
      expect(use.id).toMatch(/^[a-zA-Z0-9_-]{1,64}$/)
      expect(use.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/)
    }
    expect(uses.map((use) => use.id)).toEqual([claudeToolUseId(odd), 'call_0', 'call_0_2'])
    expect(answers.map((answer) => [answer.tool_use_id, answer.content])).toEqual([
      [claudeToolUseId(odd), '{"ok":true}'],
      ['call_0', '(no output)'],
      ['call_0_2', 'again'],
    ])
    expect(uses[0]).toMatchObject({ name: 'my_tool_x', input: { input: 'not an object' } })
    expect(claudeToolUseId(odd)).toBe(claudeToolUseId(odd))
    expect(claudeToolUseId(odd)).not.toBe(claudeToolUseId(`${odd}2`))
  })

  test('a session id that is no ULID still gets a stable UUID; different ids differ', () => {
    const a = claudeSessionIdOf('imported-session_1')
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(claudeSessionIdOf('imported-session_1')).toBe(a)
    expect(claudeSessionIdOf('imported-session_2')).not.toBe(a)
    expect(claudeSessionIdOf(sessionUlid)).not.toBe(claudeSessionIdOf('01KBMZ8J6N0000000000000001'))
  })
})

describe('claudeToolCallOf', () => {
  test("Tangent's tools under Claude Code's names, paths absolute in the folder", () => {
    expect(
      claudeToolCallOf('edit', { path: 'a.ts', oldText: 'x', newText: 'y', replaceAll: true }, cwd),
    ).toEqual({
      name: 'Edit',
      input: { file_path: `${cwd}/a.ts`, old_string: 'x', new_string: 'y', replace_all: true },
    })
    expect(claudeToolCallOf('bash', { command: 'ls', timeoutMs: 5000 }, cwd)).toEqual({
      name: 'Bash',
      input: { command: 'ls', timeout: 5000 },
    })
    expect(
      claudeToolCallOf('grep', { pattern: 'a', path: 'src', include: '*.ts', ignoreCase: true }, cwd),
    ).toEqual({
      name: 'Grep',
      input: { pattern: 'a', path: `${cwd}/src`, glob: '*.ts', '-i': true, output_mode: 'content' },
    })
    expect(claudeToolCallOf('list', {}, cwd)).toEqual({ name: 'LS', input: { path: cwd } })
    expect(
      claudeToolCallOf('task', { prompt: 'look around the folder and report back please' }, cwd),
    ).toEqual({
      name: 'Agent',
      input: {
        description: 'look around the folder and report',
        prompt: 'look around the folder and report back please',
        subagent_type: 'general-purpose',
      },
    })
    expect(claudeToolCallOf('read', { path: '/etc/hosts' }, cwd)).toEqual({
      name: 'Read',
      input: { file_path: '/etc/hosts' },
    })
  })

  test('a call whose input has no Claude Code equivalent keeps its name and input', () => {
    const append = { path: 'a.txt', content: 'x', append: true }
    expect(claudeToolCallOf('write', append, cwd)).toEqual({ name: 'write', input: append })
    expect(claudeToolCallOf('list', { recursive: true }, cwd)).toEqual({
      name: 'list',
      input: { recursive: true },
    })
    expect(claudeToolCallOf('task', { prompt: 'p', files: 'worktree' }, cwd)).toEqual({
      name: 'task',
      input: { prompt: 'p', files: 'worktree' },
    })
    expect(claudeToolCallOf('read', { path: 'a', extra: 1 }, cwd)).toEqual({
      name: 'read',
      input: { path: 'a', extra: 1 },
    })
    expect(claudeToolCallOf('mcp__everything__echo', { message: 'hi' }, cwd)).toEqual({
      name: 'mcp__everything__echo',
      input: { message: 'hi' },
    })
    // An own property named like a table entry's is not the table's.
    expect(claudeToolCallOf('__proto__', {}, cwd)).toEqual({ name: '__proto__', input: {} })
  })
})
