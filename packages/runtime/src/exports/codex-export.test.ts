import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { SessionStore } from '@tangent/core'
import { describe, expect, it } from 'vitest'
import { readCodexRollout, testedCodexVersions } from '../imports/codex.js'
import { Runtime } from '../runtime.js'
import { tempDirs } from '../temp-dirs.test-helper.js'
import {
  codexCallOf,
  codexExportVersion,
  codexRolloutPath,
  codexSessionIdOf,
  exportCodex,
} from './codex-export.js'

const context = { now: 0, version: 'test' }
const tempDir = tempDirs('tangent-codex-export-')
type Line = { timestamp: string; ordinal: number; type: string; payload: Record<string, unknown> }
const parse = (lines: string[]) => lines.map((line) => JSON.parse(line) as Line)
const items = (lines: string[]) =>
  parse(lines)
    .filter((line) => line.type === 'response_item')
    .map((line) => line.payload)

/** A session with one turn: a user message, a step of tool calls and their results, a closing answer. */
function sessionWith(
  id: string,
  cwd: string,
  calls: { id: string; name: string; input: unknown; output: unknown; isError?: boolean }[],
  texts: { user: string; answer: string } = { user: 'hello', answer: 'done' },
) {
  let time = Date.UTC(2026, 11, 4, 2, 54, 11)
  const store = new SessionStore({ now: () => (time += 1000) })
  const session = store.create(id, { meta: { cwd, createdAt: Date.UTC(2026, 11, 4, 2, 54, 11, 486) } })
  session.append('model/selection', { provider: 'demo', model: 'demo' })
  session.append('turn/start', {})
  session.append('user/message', { content: [{ type: 'text', text: texts.user }] })
  session.append('step/start', {})
  session.append('assistant/message', {
    content: [
      { type: 'reasoning', text: 'thinking hard' },
      { type: 'text', text: 'Let me look.' },
      ...calls.map((call) => ({
        type: 'tool-call' as const,
        toolCallId: call.id,
        toolName: call.name,
        input: call.input,
      })),
    ],
  })
  for (const call of calls)
    session.append('tool/result', {
      callId: call.id,
      toolName: call.name,
      output: call.output,
      isError: call.isError ?? false,
    })
  session.append('step/end', { finishReason: 'tool-calls' })
  session.append('step/start', {})
  session.append('assistant/message', { content: [{ type: 'text', text: texts.answer }] })
  session.append('step/end', { finishReason: 'stop' })
  session.append('turn/end', { reason: 'completed' })
  return { store, session }
}

describe('codexSessionIdOf', () => {
  it("is a ULID's 128 bits as a version-7 UUID (its time kept), the same at every call", () => {
    // 01ARZ3NDEKTSV4RRFFQ69G5FAV is 0x01563e3ab5d3d6764c61efb99302bd5b (the ULID spec's example);
    // the version nibble becomes 7 and the variant bits 10.
    expect(codexSessionIdOf('01ARZ3NDEKTSV4RRFFQ69G5FAV')).toBe('01563e3a-b5d3-7676-8c61-efb99302bd5b')
    expect(codexSessionIdOf('7ZZZZZZZZZZZZZZZZZZZZZZZZZ')).toBe('ffffffff-ffff-7fff-bfff-ffffffffffff')
  })

  it('hashes any other id into a version-8 UUID, distinct ids apart', () => {
    const odd = ['main', 'a-b_c', '8ZZZZZZZZZZZZZZZZZZZZZZZZZ']
    const ids = odd.map(codexSessionIdOf)
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(new Set(ids).size).toBe(odd.length)
    expect(codexSessionIdOf('main')).toBe(ids[0])
  })
})

describe('codexRolloutPath', () => {
  it("is under sessions/ in the creation day's folder, named as Codex names rollouts", () => {
    const id = codexSessionIdOf('01ARZ3NDEKTSV4RRFFQ69G5FAV')
    expect(codexRolloutPath(id, Date.UTC(2026, 0, 2, 3, 4, 5, 678))).toBe(
      `sessions/2026/01/02/rollout-2026-01-02T03-04-05-${id}.jsonl`,
    )
  })
})

describe('codexCallOf', () => {
  it("maps bash, whole-file writes and plain edits to Codex's tools", () => {
    expect(codexCallOf('bash', { command: 'ls -la\necho "hi"' })).toEqual({
      type: 'function_call',
      name: 'exec_command',
      arguments: JSON.stringify({ cmd: 'ls -la\necho "hi"' }),
    })
    expect(codexCallOf('write', { path: 'a b/ü.txt', content: 'one\n\ntwo\n' })).toEqual({
      type: 'custom_tool_call',
      name: 'apply_patch',
      input: '*** Begin Patch\n*** Add File: a b/ü.txt\n+one\n+\n+two\n*** End Patch\n',
    })
    expect(codexCallOf('write', { path: 'empty', content: '' })).toMatchObject({
      input: '*** Begin Patch\n*** Add File: empty\n*** End Patch\n',
    })
    expect(codexCallOf('edit', { path: 'f.ts', oldText: 'a\nb\nz', newText: 'a\nc\nd\nz' })).toMatchObject({
      input: '*** Begin Patch\n*** Update File: f.ts\n@@\n a\n-b\n+c\n+d\n z\n*** End Patch\n',
    })
    expect(codexCallOf('edit', { path: 'f.ts', oldText: 'x\nx', newText: 'x' })).toMatchObject({
      input: '*** Begin Patch\n*** Update File: f.ts\n@@\n x\n-x\n*** End Patch\n',
    })
    expect(codexCallOf('edit', { path: 'f.ts', oldText: 'a b', newText: 'a c' })).toMatchObject({
      input: '*** Begin Patch\n*** Update File: f.ts\n@@\n-a b\n+a c\n*** End Patch\n',
    })
    expect(codexCallOf('edit', { path: 'f.ts', oldText: 'gone\n', newText: '\n' })).toMatchObject({
      input: '*** Begin Patch\n*** Update File: f.ts\n@@\n-gone\n+\n*** End Patch\n',
    })
  })

  it('keeps a call under its own name when Codex has nothing that says the same', () => {
    const own = (name: string, input: unknown) => ({
      type: 'function_call',
      name,
      arguments: JSON.stringify(input ?? {}),
    })
    const cases: [string, unknown][] = [
      ['bash', { command: 'sleep 9', timeoutMs: 5 }], // a kill timeout exec_command has not
      ['write', { path: 'x', content: 'no final newline' }], // an Add File holds whole lines
      ['write', { path: 'x', content: 'a\n', append: true }],
      ['write', { path: 'x', content: 'crlf\r\n' }],
      ['write', { path: 'two\nlines', content: 'a\n' }],
      ['write', { path: ' padded', content: 'a\n' }],
      ['edit', { path: 'x', oldText: '', newText: 'a' }],
      ['edit', { path: 'x', oldText: 'a\n', newText: 'b' }],
      ['edit', { path: 'x', oldText: 'a', newText: 'b', replaceAll: true }],
      ['read', { path: 'notes.txt' }],
      ['mcp__srv__echo', { message: '*** End Patch' }],
      ['task', 'not an object'],
      ['list', undefined],
    ]
    for (const [name, input] of cases) expect(codexCallOf(name, input)).toEqual(own(name, input))
  })

  it('gives back a Codex patch an import kept under its own name', () => {
    const patch = '*** Begin Patch\n*** Delete File: hello.txt\n*** End Patch\n'
    for (const input of [patch, { input: patch }])
      expect(codexCallOf('apply_patch', input)).toEqual({
        type: 'custom_tool_call',
        name: 'apply_patch',
        input: patch,
      })
    expect(codexCallOf('apply_patch', 'rm -rf /')).toEqual({
      type: 'function_call',
      name: 'apply_patch',
      arguments: '"rm -rf /"',
    })
  })

  it('gives patches the reader maps back to the same write and edit', async () => {
    const { patchAsTool } = await import('../imports/codex.js')
    const write = codexCallOf('write', { path: 'dir/new file.txt', content: 'x\ny\n' })
    expect(write.type === 'custom_tool_call' && patchAsTool(write.input, '/w')).toEqual({
      name: 'write',
      input: { path: 'dir/new file.txt', content: 'x\ny\n' },
    })
    for (const [oldText, newText] of [
      ['one\ntwo', 'uno'],
      ['keep\nold\nkeep too', 'keep\nnew\nkeep too'],
      ['same\nsame', 'same'],
      ['', ''],
    ] as const) {
      const edit = codexCallOf('edit', { path: 'f', oldText, newText })
      if (oldText === '') expect(edit.type).toBe('function_call')
      else
        expect(edit.type === 'custom_tool_call' && patchAsTool(edit.input, '/w')).toEqual({
          name: 'edit',
          input: { path: 'f', oldText, newText },
        })
    }
  })
})

describe('exportCodex', () => {
  it('writes session_meta, then the history as the Responses items Codex replays, in order', () => {
    const cwd = '/tmp/a folder/with ünïcødé "quotes"\nand a newline'
    const huge = `${'x'.repeat(3 * 1024 * 1024)}\nend`
    const { session } = sessionWith(
      '01ARZ3NDEKTSV4RRFFQ69G5FAV',
      cwd,
      [
        { id: 'call 1/odd"id', name: 'bash', input: { command: 'cat big' }, output: huge },
        { id: 'c2', name: 'write', input: { path: 'n.txt', content: 'a\n' }, output: 'Wrote n.txt' },
        { id: 'c3', name: 'read', input: { path: 'missing' }, output: 'ENOENT', isError: true },
        { id: 'c4', name: 'mcp__x__y', input: { a: [1] }, output: { structured: true } },
      ],
      { user: 'line one\nline two\n```\ncode\n```', answer: 'All done.\n\n- a\n- b' },
    )
    const exported = exportCodex(session, session.lastSeq, context)
    const uuid = codexSessionIdOf(session.id)
    expect(exported.file).toEqual({
      tool: 'codex',
      sessionId: uuid,
      path: `sessions/2026/12/04/rollout-2026-12-04T02-54-11-${uuid}.jsonl`,
    })
    for (const line of exported.lines) expect(line).not.toContain('\n') // one record a line
    const records = parse(exported.lines)
    expect(records.map((record) => record.ordinal)).toEqual(records.map((_, index) => index))
    expect(records[0]).toEqual({
      timestamp: '2026-12-04T02:54:11.486Z',
      ordinal: 0,
      type: 'session_meta',
      payload: {
        id: uuid,
        timestamp: '2026-12-04T02:54:11.486Z',
        cwd,
        originator: 'tangent',
        cli_version: codexExportVersion,
        source: 'cli',
        history_mode: 'paginated',
      },
    })
    // No provider is pinned: Codex refuses to resume a rollout under another provider than it names
    expect(records[0]!.payload).not.toHaveProperty('model_provider')
    expect(records.some((record) => record.type === 'turn_context')).toBe(false)
    expect(items(exported.lines)).toEqual([
      {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: 'line one\nline two\n```\ncode\n```' }],
      },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Let me look.' }] },
      {
        type: 'function_call',
        name: 'exec_command',
        arguments: '{"cmd":"cat big"}',
        call_id: 'call 1/odd"id',
      },
      {
        type: 'custom_tool_call',
        name: 'apply_patch',
        input: '*** Begin Patch\n*** Add File: n.txt\n+a\n*** End Patch\n',
        call_id: 'c2',
      },
      { type: 'function_call', name: 'read', arguments: '{"path":"missing"}', call_id: 'c3' },
      { type: 'function_call', name: 'mcp__x__y', arguments: '{"a":[1]}', call_id: 'c4' },
      { type: 'function_call_output', call_id: 'call 1/odd"id', output: huge },
      { type: 'custom_tool_call_output', call_id: 'c2', output: 'Wrote n.txt' },
      { type: 'function_call_output', call_id: 'c3', output: 'ENOENT' },
      { type: 'function_call_output', call_id: 'c4', output: '{"structured":true}' },
      {
        type: 'message',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'All done.\n\n- a\n- b' }],
      },
    ])
    // The texts mirrored for Codex's UIs; reasoning nowhere (the API takes back only its own)
    expect(records.filter((record) => record.type === 'event_msg').map((record) => record.payload)).toEqual([
      { type: 'user_message', message: 'line one\nline two\n```\ncode\n```' },
      { type: 'agent_message', message: 'Let me look.' },
      { type: 'agent_message', message: 'All done.\n\n- a\n- b' },
    ])
    expect(exported.lines.join('\n')).not.toContain('thinking hard')
    // Timestamps never go back
    const times = records.map((record) => Date.parse(record.timestamp))
    expect(times.every((time, index) => index === 0 || time >= times[index - 1]!)).toBe(true)
  })

  it("exports through `throughSeq` and a fork's inherited history, with images as data URLs", () => {
    const { store, session } = sessionWith('parent', '/w', [])
    const end = session.lastSeq
    session.append('turn/start', {})
    session.append('user/message', { content: [{ type: 'text', text: 'not exported' }] })
    session.append('turn/end', { reason: 'interrupted' })
    const child = store.fork(session, end, 'child')
    child.append('turn/start', {})
    child.append('user/message', {
      content: [
        { type: 'text', text: 'see' },
        { type: 'file', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
      ],
    })
    child.append('step/start', {})
    child.append('assistant/message', { content: [{ type: 'text', text: 'a pixel' }] })
    child.append('step/end', { finishReason: 'stop' })
    child.append('turn/end', { reason: 'completed' })
    const texts = (lines: string[]) =>
      items(lines).map((item) =>
        (item.content as { text?: string; image_url?: string }[]).map((part) => part.text ?? part.image_url),
      )
    expect(texts(exportCodex(child, child.lastSeq, context).lines)).toEqual([
      ['hello'],
      ['Let me look.'],
      ['done'],
      ['see', 'data:image/png;base64,iVBORw0KGgo='],
      ['a pixel'],
    ])
    expect(texts(exportCodex(session, end, context).lines)).toEqual([['hello'], ['Let me look.'], ['done']])
    expect(exportCodex(child, child.lastSeq, context).file.sessionId).toBe(codexSessionIdOf('child'))
  })

  it('writes a step of 10,000 calls and their results, in order', () => {
    const calls = Array.from({ length: 10_000 }, (_, index) => ({
      id: `c${index}`,
      name: 'bash',
      input: { command: `echo ${index}` },
      output: String(index),
    }))
    const { session } = sessionWith('many', '/w', calls)
    const lines = exportCodex(session, session.lastSeq, context).lines
    const written = items(lines)
    expect(written).toHaveLength(1 + 1 + 10_000 * 2 + 1)
    expect(written[2]).toMatchObject({ call_id: 'c0', arguments: '{"cmd":"echo 0"}' })
    expect(written.at(-2)).toMatchObject({ type: 'function_call_output', call_id: 'c9999', output: '9999' })
  })

  it("claims a version Tangent's Codex reader takes, which reads the export back with the same texts", () => {
    expect(testedCodexVersions).toContain(codexExportVersion)
    const { session } = sessionWith('01ARZ3NDEKTSV4RRFFQ69G5FAV', '/w', [
      { id: 'k1', name: 'bash', input: { command: 'ls' }, output: 'a\n' },
      { id: 'k2', name: 'edit', input: { path: 'f', oldText: 'a', newText: 'b' }, output: 'ok' },
    ])
    const tree = readCodexRollout(exportCodex(session, session.lastSeq, context).lines.join('\n'))
    expect(tree.sourceId).toBe(codexSessionIdOf(session.id))
    expect(tree.cwd).toBe('/w')
    expect(tree.problems).toEqual([])
    expect(tree.entries.map((entry) => entry.kind)).toEqual([
      'user',
      'assistant',
      'tool-result',
      'tool-result',
      'assistant',
    ])
    const calls = tree.entries.flatMap((entry) => (entry.kind === 'assistant' ? entry.toolCalls : []))
    expect(calls.map((call) => [call.id, call.name, call.input])).toEqual([
      ['k1', 'bash', { command: 'ls' }],
      ['k2', 'edit', { path: 'f', oldText: 'a', newText: 'b' }],
    ])
    expect(tree.entries.map((entry) => ('text' in entry ? entry.text : ''))).toEqual([
      'hello',
      'Let me look.',
      '',
      '',
      'done',
    ])
  })
})

describe('a Codex rollout imported, then exported to Codex again', () => {
  it('gives back its conversation: the same texts, tools and call ids, in order', async () => {
    const fixture = fs.readFileSync(
      path.resolve(
        path.dirname(fileURLToPath(import.meta.url)),
        '../../../../test/fixtures/imports/codex/resumed.jsonl',
      ),
      'utf8',
    )
    const runtime = await Runtime.open({
      home: tempDir(),
      startFolder: tempDir(),
      homeDir: tempDir(),
      report: () => {},
    })
    try {
      const [main] = (await runtime.importTree(readCodexRollout(fixture), { cwd: tempDir() })).sessions
      const page = await runtime.exportSession({ sessionId: main!.id, format: 'codex' })
      // What the model saw, in both: user and assistant texts, calls and outputs (Codex's own context left out)
      const userParts = (item: Record<string, unknown>) =>
        (item.content as { text?: string }[])
          .map((part) => part.text ?? '[image]')
          .filter((text) => !/^(<image\b[^>]*>|<\/image>)$/.test(text))
      const conversation = (text: string) =>
        text
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as Line)
          .filter((record) => record.type === 'response_item')
          .map((record) => record.payload)
          .filter(
            (item) =>
              item.type !== 'reasoning' &&
              (item.type !== 'message' || item.role === 'assistant' || isTyped(item)),
          )
          .map((item) => {
            const {
              type,
              role,
              call_id,
              name,
              arguments: args,
              input,
              output,
              content,
            } = item as Record<string, unknown>
            // Tangent keeps a message's texts before its images: the parts are compared as a set
            const text = Array.isArray(content) ? userParts({ content }).sort().join('|') : undefined
            return JSON.stringify({ type, role, call_id, name, args, input, output, text })
          })
      // Typed by the user (not Codex's injected context); an image's <image> frame texts left out
      const isTyped = (item: Record<string, unknown>) =>
        item.role === 'user' &&
        !/^\s*<(environment_context|user_instructions)\b/.test(userParts(item)[0] ?? '')
      const original = conversation(fixture)
      expect(original.length).toBeGreaterThan(10)
      expect(conversation(page.content)).toEqual(original)
    } finally {
      await runtime.close()
    }
  })
})
