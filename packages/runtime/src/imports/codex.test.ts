// The Codex rollout reader against rollouts the real Codex CLI 0.171.0 wrote
// (test/fixtures/imports/codex/, made by make-fixtures.mjs there), and against hostile ones.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { TangentError } from '@tangent/core'
import { afterEach, describe, expect, it } from 'vitest'
import { codexSessionFiles, patchAsTool, readCodexRollout } from './codex.js'
import type { ImportedEntry } from './imported-tree.js'

const fixtures = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../../test/fixtures/imports/codex',
)
const resumedText = fs.readFileSync(path.join(fixtures, 'resumed.jsonl'), 'utf8')
const forkedText = fs.readFileSync(path.join(fixtures, 'forked.jsonl'), 'utf8')
const compactedText = fs.readFileSync(path.join(fixtures, 'compacted.jsonl'), 'utf8')
const sessionId: string = JSON.parse(resumedText.split('\n')[0]!).payload.id

const conversation = (entries: ImportedEntry[]) => entries.filter((entry) => entry.kind !== 'unknown')
const errorOf = (run: () => unknown): TangentError => {
  try {
    run()
  } catch (error) {
    if (error instanceof TangentError) return error
    throw error
  }
  throw new Error('did not throw')
}

const cleanups: (() => void)[] = []
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup()
})

describe('readCodexRollout on a real rollout (exec, then exec resume)', () => {
  const tree = readCodexRollout(resumedText)

  it('reads the session meta', () => {
    expect(tree).toMatchObject({
      source: 'codex',
      sourceId: sessionId,
      sourceVersion: '0.171.0',
      model: 'fake:gpt-5.5',
      problems: [],
      subtrees: [],
    })
    expect(tree.cwd).toMatch(/^\/tmp\/tangent-codex-fixtures-.*\/work$/)
    expect(tree.forkedFrom).toBeUndefined()
  })

  it('keeps both turns in order, each entry following the previous one', () => {
    const shape = conversation(tree.entries).map((entry) =>
      entry.kind === 'assistant'
        ? `assistant:${entry.toolCalls.map((call) => call.name).join(',') || entry.text}`
        : entry.kind === 'tool-result'
          ? `result:${entry.callId}`
          : `${entry.kind}:${'text' in entry ? entry.text : ''}`,
    )
    expect(shape).toEqual([
      'user:Look around, then write notes.txt and fix its second line.',
      'assistant:bash',
      'result:call_ls',
      'assistant:write',
      'result:call_add',
      'assistant:edit',
      'result:call_upd',
      'assistant:bash',
      'result:call_fail',
      'assistant:Created **notes.txt** and fixed its second line; `missing.txt` does not exist.',
      'user:Now delete hello.txt.',
      'assistant:apply_patch',
      'result:call_del',
      'assistant:Deleted hello.txt.',
    ])
    tree.entries.forEach((entry, index) => {
      expect(entry.parentId).toBe(index === 0 ? null : tree.entries[index - 1]!.id)
      expect(entry.line).toBe(Number(entry.id))
    })
    expect(new Set(tree.entries.map((entry) => entry.id)).size).toBe(tree.entries.length)
    const times = tree.entries.map((entry) => entry.time!)
    expect(times.every((time) => Number.isFinite(time))).toBe(true)
    expect([...times].sort((a, b) => a - b)).toEqual(times)
    expect(times[0]).toBe(Date.parse(JSON.parse(resumedText.split('\n')[2]!).timestamp))
  })

  it('maps tool calls to Tangent tools where they say the same thing, with their inputs and paired results', () => {
    const calls = tree.entries.flatMap((entry) => (entry.kind === 'assistant' ? entry.toolCalls : []))
    expect(calls).toEqual([
      { id: 'call_ls', name: 'bash', input: { command: 'ls && cat hello.txt' }, sourceName: 'exec_command' },
      {
        id: 'call_add',
        name: 'write',
        input: { path: 'notes.txt', content: 'first line\nsecond line\n' },
        sourceName: 'apply_patch',
      },
      {
        id: 'call_upd',
        name: 'edit',
        input: {
          path: 'notes.txt',
          oldText: 'first line\nsecond line',
          newText: 'first line\nsecond line, fixed',
        },
        sourceName: 'apply_patch',
      },
      { id: 'call_fail', name: 'bash', input: { command: 'cat missing.txt' }, sourceName: 'exec_command' },
      // A delete has no Tangent tool: kept as the patch Codex ran
      {
        id: 'call_del',
        name: 'apply_patch',
        input: '*** Begin Patch\n*** Delete File: hello.txt\n*** End Patch\n',
      },
    ])
    const results = tree.entries.filter((entry) => entry.kind === 'tool-result')
    expect(results.map((result) => [result.callId, result.toolName, result.isError])).toEqual([
      ['call_ls', 'bash', false],
      ['call_add', 'write', false],
      ['call_upd', 'edit', false],
      ['call_fail', 'bash', true],
      ['call_del', 'apply_patch', false],
    ])
    expect(results[0]!.output).toContain('Output:\nhello.txt\nhello\n')
    expect(results[3]!.output).toContain('cat: missing.txt: No such file or directory')
    // every result follows its call
    for (const result of results) {
      const callIndex = tree.entries.findIndex(
        (entry) => entry.kind === 'assistant' && entry.toolCalls.some((call) => call.id === result.callId),
      )
      expect(callIndex).toBeGreaterThanOrEqual(0)
      expect(callIndex).toBeLessThan(tree.entries.indexOf(result))
    }
  })

  it('keeps the image attached to the first prompt (codex exec -i)', () => {
    const user = tree.entries.find((entry) => entry.kind === 'user')!
    expect(user).toMatchObject({
      kind: 'user',
      text: 'Look around, then write notes.txt and fix its second line.',
      images: [
        {
          mediaType: 'image/png',
          data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==',
        },
      ],
    })
    const second = tree.entries.filter((entry) => entry.kind === 'user')[1]!
    expect('images' in second).toBe(false)
  })

  it('keeps the reasoning and the usage of each model response', () => {
    const assistants = tree.entries.filter((entry) => entry.kind === 'assistant')
    expect(assistants[0]!.reasoning).toBe('Look at the folder first.')
    expect(assistants.slice(1).every((entry) => entry.reasoning === undefined)).toBe(true)
    // The fake server answered request n with input 1000 + n, cached 100 n, output 20 + n
    expect(assistants.map((entry) => entry.usage)).toEqual(
      assistants.map((_, n) => ({
        inputTokens: 1000 + n,
        cachedInputTokens: 100 * n,
        outputTokens: 20 + n,
        reasoningTokens: n === 0 ? 7 : 0,
      })),
    )
    expect(assistants.every((entry) => entry.model === 'fake:gpt-5.5')).toBe(true)
  })

  it('keeps what it does not map as unknown entries: the instructions, the injected context, the world state', () => {
    const unknown = tree.entries.filter((entry) => entry.kind === 'unknown')
    expect(unknown.map((entry) => entry.type)).toEqual([
      'response_item/message:developer',
      'response_item/message:context',
      'world_state',
    ])
    const context = unknown[1]!.raw as { payload: { content: { text: string }[] } }
    expect(context.payload.content[0]!.text).toMatch(/^<environment_context>/)
  })
})

describe('readCodexRollout on a real fork (exec fork)', () => {
  it('names the parent session and the point it continues from, and holds only its own turn', () => {
    const tree = readCodexRollout(forkedText)
    expect(tree.sourceId).not.toBe(sessionId)
    expect(tree.forkedFrom).toEqual({ sourceId: sessionId, throughLine: 51 })
    expect(conversation(tree.entries).map((entry) => entry.kind)).toEqual(['user', 'assistant'])
    expect(tree.entries[0]).toMatchObject({ kind: 'user', text: 'Say what this fork keeps.', parentId: null })
    // line 51 of the parent is its last record (ordinal 50, the end of the resumed turn)
    const parentLines = resumedText.trimEnd().split('\n')
    expect(parentLines).toHaveLength(51)
    expect(JSON.parse(parentLines[50]!).ordinal).toBe(50)
    expect(readCodexRollout(resumedText).entries.at(-1)!.line).toBeLessThanOrEqual(51)
  })
})

describe('readCodexRollout on a real compaction (a resume that compacts first)', () => {
  it('makes the compacted record a summary between the turns, the compaction answer kept aside', () => {
    const tree = readCodexRollout(compactedText)
    expect(tree.problems).toEqual([])
    const shape = conversation(tree.entries).map((entry) => [
      entry.kind,
      entry.kind === 'summary' ? entry.summaryOf : 'text' in entry ? entry.text : '',
    ])
    expect(shape).toEqual([
      ['user', 'Give a first answer.'],
      ['assistant', 'First answer.'],
      ['summary', 'compaction'],
      ['user', 'Give a second answer.'],
      ['assistant', 'Second answer, after the compaction.'],
    ])
    const summary = tree.entries.find((entry) => entry.kind === 'summary')!
    expect(summary.kind === 'summary' && summary.text).toMatch(
      /summary produced by the other language model.*\nSummary: the user asked for a first answer and got it\.$/s,
    )
    const unknown = tree.entries.filter((entry) => entry.kind === 'unknown').map((entry) => entry.type)
    expect(unknown).toEqual([
      'response_item/message:developer',
      'response_item/message:context',
      'world_state',
      'response_item/compaction-output',
      'world_state',
    ])
    // the fake server's 9th request (input 1009 tokens) was the compaction, the 10th the answer
    const answers = tree.entries.filter((entry) => entry.kind === 'assistant')
    expect(answers.map((entry) => entry.usage?.inputTokens)).toEqual([1008, 1010])
  })
})

describe('readCodexRollout on bad input', () => {
  it('reports a malformed line with its number and imports the rest', () => {
    const lines = resumedText.split('\n')
    lines.splice(14, 1, '{"timestamp": "2026-12-04T02:46:44Z", "type": "response_item", "payl')
    lines.splice(20, 0, '[1, 2, 3]')
    const tree = readCodexRollout(lines.join('\n'))
    expect(tree.problems).toEqual([
      { line: 15, message: 'not valid JSON' },
      { line: 21, message: 'not a rollout record (no string `type`)' },
    ])
    const results = tree.entries.filter((entry) => entry.kind === 'tool-result')
    expect(results.map((result) => result.callId)).toEqual(['call_add', 'call_upd', 'call_fail', 'call_del'])
    expect(conversation(tree.entries)).toHaveLength(13)
  })

  it('refuses a rollout of a Codex version it was not tested with', () => {
    const newer = resumedText.replace('"cli_version":"0.171.0"', '"cli_version":"0.172.0"')
    const error = errorOf(() => readCodexRollout(newer))
    expect(error.code).toBe('unsupported-version')
    expect(error.message).toBe('Codex rollout version 0.172.0 is not supported (tested: 0.171.0)')
    expect(error.data).toMatchObject({ source: 'codex', version: '0.172.0', tested: ['0.171.0'] })
    const none = resumedText.replace('"cli_version":"0.171.0",', '')
    expect(errorOf(() => readCodexRollout(none)).message).toMatch(
      /version \(none recorded\) is not supported/,
    )
  })

  it('refuses files that are not Codex rollouts, clearly', () => {
    const claude = `${JSON.stringify({ type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content: 'hi' } })}\n`
    for (const text of ['', 'not json at all\n', claude, '{"type":"session_meta","payload":{}}\n', '[]']) {
      const error = errorOf(() => readCodexRollout(text))
      expect(error.code).toBe('not-a-session-file')
      expect(error.data).toEqual({ source: 'codex' })
      expect(error.message).toBe('not a Codex rollout: its first line is not a Codex session_meta record')
    }
    // the session_meta of a rollout, elsewhere than on line 1, does not make a rollout
    const shifted = `${JSON.stringify({ type: 'event_msg', payload: {} })}\n${resumedText}`
    expect(errorOf(() => readCodexRollout(shifted)).code).toBe('not-a-session-file')
  })

  it('reads a huge line and keeps hostile keys as plain data', () => {
    const lines = resumedText.trimEnd().split('\n')
    const huge = 'x'.repeat(20 << 20)
    lines.push(
      JSON.stringify({
        timestamp: '2026-12-04T03:00:00.000Z',
        type: 'response_item',
        payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: huge }] },
      }),
      '{"timestamp":"2026-12-04T03:00:01.000Z","type":"response_item","payload":{"type":"function_call","call_id":"call_proto","name":"exec_command","arguments":"{\\"__proto__\\":{\\"polluted\\":true},\\"cmd\\":\\"true\\"}"}}',
      '{"timestamp":"2026-12-04T03:00:02.000Z","type":"__proto__","payload":{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}}',
      '{"type":"response_item","payload":{"__proto__":{"type":"message"},"role":"user"}}',
    )
    const tree = readCodexRollout(lines.join('\n'))
    expect(tree.problems).toEqual([])
    const big = tree.entries.find((entry) => entry.kind === 'user' && entry.text.length > 1000)
    expect(big && big.kind === 'user' && big.text.length).toBe(20 << 20)
    const call = tree.entries.flatMap((entry) => (entry.kind === 'assistant' ? entry.toolCalls : [])).at(-1)!
    // an argument `bash` has no place for: kept under its own name, the key as plain data
    expect(call).toMatchObject({ id: 'call_proto', name: 'exec_command' })
    expect(call.sourceName).toBeUndefined()
    expect(Object.hasOwn(call.input as object, '__proto__')).toBe(true)
    expect(Object.getPrototypeOf(call.input)).toBe(Object.prototype)
    const unknown = tree.entries.slice(-2)
    expect(unknown.map((entry) => entry.kind === 'unknown' && entry.type)).toEqual([
      '__proto__',
      'response_item/:user',
    ])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(Object.getPrototypeOf(tree.entries)).toBe(Array.prototype)
  })
})

describe('readCodexRollout tool mapping beyond the fixtures', () => {
  it('keeps calls Tangent tools cannot say under their own name, and reads structured outputs', () => {
    const record = (payload: object) =>
      JSON.stringify({ timestamp: '2026-12-04T03:00:00.000Z', type: 'response_item', payload })
    const cwd = readCodexRollout(resumedText).cwd!
    const lines = [
      resumedText.split('\n')[0]!,
      record({
        type: 'function_call',
        call_id: 'a',
        name: 'exec_command',
        arguments: JSON.stringify({ cmd: 'ls', workdir: '/etc' }),
      }),
      record({
        type: 'function_call',
        call_id: 'b',
        name: 'exec_command',
        arguments: JSON.stringify({ cmd: 'pwd', workdir: cwd }),
      }),
      record({
        type: 'function_call',
        call_id: 'b2',
        name: 'exec_command',
        arguments: JSON.stringify({ cmd: 'vim', tty: true }),
      }),
      record({
        type: 'function_call',
        call_id: 'b3',
        name: 'exec_command',
        arguments: JSON.stringify({ cmd: 'ls', shell: '/bin/zsh' }),
      }),
      record({
        type: 'function_call',
        call_id: 'b4',
        name: 'exec_command',
        arguments: JSON.stringify({ cmd: 'make', yield_time_ms: 1000, max_output_tokens: 500 }),
      }),
      record({
        type: 'function_call',
        call_id: 'c',
        name: 'write_stdin',
        arguments: '{"session_id":3,"chars":"y\\n"}',
      }),
      record({ type: 'function_call', call_id: 'd', name: 'view_image', arguments: 'not json' }),
      record({
        type: 'function_call_output',
        call_id: 'd',
        output: [
          { type: 'input_text', text: 'seen' },
          { type: 'input_image', image_url: 'data:image/png;base64,AA==' },
        ],
      }),
      record({ type: 'function_call_output', call_id: 'zz', output: { content: 'failed', success: false } }),
    ]
    const tree = readCodexRollout(lines.join('\n'))
    const calls = tree.entries.flatMap((entry) => (entry.kind === 'assistant' ? entry.toolCalls : []))
    expect(calls).toEqual([
      { id: 'a', name: 'exec_command', input: { cmd: 'ls', workdir: '/etc' } },
      { id: 'b', name: 'bash', input: { command: 'pwd' }, sourceName: 'exec_command' },
      { id: 'b2', name: 'exec_command', input: { cmd: 'vim', tty: true } },
      { id: 'b3', name: 'exec_command', input: { cmd: 'ls', shell: '/bin/zsh' } },
      { id: 'b4', name: 'bash', input: { command: 'make' }, sourceName: 'exec_command' },
      { id: 'c', name: 'write_stdin', input: { session_id: 3, chars: 'y\n' } },
      { id: 'd', name: 'view_image', input: 'not json' },
    ])
    // the calls of one response: one assistant entry
    expect(tree.entries.filter((entry) => entry.kind === 'assistant')).toHaveLength(1)
    const results = tree.entries.filter((entry) => entry.kind === 'tool-result')
    expect(
      results.map(({ callId, toolName, output, isError }) => ({ callId, toolName, output, isError })),
    ).toEqual([
      { callId: 'd', toolName: 'view_image', output: 'seen', isError: false },
      { callId: 'zz', toolName: 'unknown', output: 'failed', isError: true },
    ])
  })
})

describe('patchAsTool', () => {
  const cwd = '/home/me/project'
  it('maps one added file to write and one single-hunk update to edit, paths made relative to the folder', () => {
    expect(
      patchAsTool('*** Begin Patch\n*** Add File: /home/me/project/a/b.txt\n+x\n+\n*** End Patch', cwd),
    ).toEqual({
      name: 'write',
      input: { path: 'a/b.txt', content: 'x\n\n' },
    })
    expect(
      patchAsTool('*** Begin Patch\n*** Update File: c.ts\n a\n-b\n+B\n c\n*** End Patch\n', cwd),
    ).toEqual({
      name: 'edit',
      input: { path: 'c.ts', oldText: 'a\nb\nc', newText: 'a\nB\nc' },
    })
  })
  it('keeps what edit and write cannot say as the patch', () => {
    const keep = [
      '*** Begin Patch\n*** Delete File: a\n*** End Patch',
      '*** Begin Patch\n*** Update File: a\n*** Move to: b\n@@\n-x\n+y\n*** End Patch',
      '*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n@@\n-z\n+w\n*** End Patch',
      '*** Begin Patch\n*** Update File: a\n@@ def f():\n-x\n+y\n*** End Patch',
      '*** Begin Patch\n*** Add File: a\n+x\n*** Add File: b\n+y\n*** End Patch',
      '*** Begin Patch\n*** Add File: /etc/passwd\n+x\n*** End Patch',
      '*** Begin Patch\n*** Add File: ../out.txt\n+x\n*** End Patch',
      '*** Begin Patch\n*** Update File: a\n+only added\n*** End Patch',
      'not a patch',
    ]
    for (const patch of keep) expect(patchAsTool(patch, cwd), patch).toBeNull()
  })
})

describe('codexSessionFiles', () => {
  it('lists the rollouts of CODEX_HOME (else ~/.codex) whose session folder is the one asked, or all', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-codex-home-'))
    cleanups.push(() => fs.rmSync(home, { recursive: true, force: true }))
    const day = path.join(home, '.codex', 'sessions', '2026', '12', '04')
    fs.mkdirSync(day, { recursive: true })
    const write = (name: string, text: string) => {
      fs.writeFileSync(path.join(day, name), text)
      return path.join(day, name)
    }
    const cwd = readCodexRollout(resumedText).cwd!
    const first = write('rollout-2026-12-04T02-46-43-a.jsonl', resumedText)
    const forked = write('rollout-2026-12-04T02-46-49-b.jsonl', forkedText)
    const other = write(
      'rollout-2026-12-04T02-50-00-c.jsonl',
      resumedText.replaceAll(JSON.stringify(cwd), JSON.stringify('/elsewhere')),
    )
    write('rollout-2026-12-04T02-51-00-d.jsonl', 'garbage\n')
    write('notes.jsonl', resumedText)

    expect(await codexSessionFiles({ HOME: home }, cwd)).toEqual([first, forked])
    expect(await codexSessionFiles({ HOME: home }, `${cwd}/`)).toEqual([first, forked])
    expect(await codexSessionFiles({ HOME: home }, '/elsewhere')).toEqual([other])
    expect(await codexSessionFiles({ HOME: home }, null)).toHaveLength(4)
    expect(
      await codexSessionFiles({ HOME: '/nonexistent', CODEX_HOME: path.join(home, '.codex') }, cwd),
    ).toEqual([first, forked])
    expect(await codexSessionFiles({ HOME: path.join(home, 'none') }, null)).toEqual([])
    expect(await codexSessionFiles({}, null)).toEqual([])
  })
})
