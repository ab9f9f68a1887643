// Compaction and forks with a real provider client (docs/architecture.md §12.4): the runtime
// drives @ai-sdk/openai against a local fake of the Responses API, and the request bodies it
// records show what each fork sends the model — the full history before the compaction, the
// summary after it. Never the internet.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Runtime } from '@tangent/runtime'
import { afterEach, describe, expect, it } from 'vitest'
import {
  type FakeProviderServer,
  startFakeProviderServer,
} from '../../packages/agent/src/testing/fake-provider-server.js'
import { openaiResponsesWire } from '../../packages/agent/src/testing/wire-formats.js'

const summary = 'SUMMARY: the user greeted with alpha, beta and gamma.'

/** A non-streamed Responses API answer (what generateText, the summary call, reads). */
const summaryResponse = {
  status: 200,
  json: {
    id: 'resp_summary',
    created_at: 1_700_000_000,
    model: 'gpt-4.1',
    output: [
      {
        type: 'message',
        id: 'msg_summary',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: summary, annotations: [] }],
      },
    ],
    incomplete_details: null,
    usage: {
      input_tokens: 300,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 20,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 320,
    },
  },
}

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

function temp(prefix: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** Every text the request sends the model (instructions aside), in order. */
function inputTexts(body: unknown): string[] {
  const input = (body as { input: { role?: string; content?: unknown }[] }).input
  return input
    .filter((item) => item.role !== 'system' && item.role !== 'developer')
    .flatMap((item) =>
      typeof item.content === 'string'
        ? [item.content]
        : ((item.content as { text?: string }[] | undefined) ?? []).map((part) => part.text ?? ''),
    )
}

describe('compaction and forks through @ai-sdk/openai', () => {
  it('a fork before a compaction replays the full history; a fork after it sends the summary', async () => {
    const replies = [
      { frames: openaiResponsesWire.text('Answer alpha.') },
      { frames: openaiResponsesWire.text('Answer beta.') },
      { frames: openaiResponsesWire.text('Answer gamma.') },
      summaryResponse,
      { frames: openaiResponsesWire.text('Before-fork answer.') },
      { frames: openaiResponsesWire.text('After-fork answer.') },
    ]
    const server: FakeProviderServer = await startFakeProviderServer(replies)
    cleanups.push(() => server.close())
    const start = temp('tangent-compaction-start-')
    const runtime = await Runtime.open({
      home: temp('tangent-compaction-home-'),
      startFolder: start,
      homeDir: temp('tangent-compaction-user-'),
      env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: server.baseUrl, XDG_CONFIG_HOME: start },
      report: () => {},
    })
    cleanups.push(() => runtime.close())
    fs.writeFileSync(path.join(start, 'AGENTS.md'), 'Answer in one sentence.')

    const session = await runtime.createSession({ model: 'openai:gpt-4.1' })
    const first = await runtime.prompt({ sessionId: session.id, text: 'alpha' })
    const second = await runtime.prompt({ sessionId: session.id, text: 'beta' })
    await runtime.prompt({ sessionId: session.id, text: 'gamma' })
    expect([first.reason, second.reason]).toEqual(['completed', 'completed'])
    // The project instructions reached the model (as the Responses API's system input).
    expect(JSON.stringify(server.requests[0]!.body)).toContain('Answer in one sentence.')

    const compacted = await runtime.compact({ sessionId: session.id })
    expect(compacted).toMatchObject({ summary, model: 'openai:gpt-4.1', throughSeq: compacted.seq - 1 })
    // The summary request carried the whole history, then the request for a summary.
    const summaryTexts = inputTexts(server.requests[3]!.body)
    expect(summaryTexts.slice(0, 6)).toEqual([
      'alpha',
      'Answer alpha.',
      'beta',
      'Answer beta.',
      'gamma',
      'Answer gamma.',
    ])
    expect(summaryTexts.at(-1)).toMatch(/^Summarise the conversation so far/)

    // Before: forked at the second turn (its cut ends before the third turn, long before the compaction).
    const before = await runtime.fork({ sessionId: session.id, atSeq: second.turnStartSeq })
    const after = await runtime.fork({ sessionId: session.id })
    expect(before.boundary).toBeLessThan(compacted.seq)
    expect(after.boundary).toBeGreaterThanOrEqual(compacted.seq)

    await runtime.prompt({ sessionId: before.session.id, text: 'delta from before' })
    await runtime.prompt({ sessionId: after.session.id, text: 'delta from after' })
    const beforeTexts = inputTexts(server.requests[4]!.body)
    const afterTexts = inputTexts(server.requests[5]!.body)
    expect(beforeTexts).toEqual(['alpha', 'Answer alpha.', 'beta', 'Answer beta.', 'delta from before'])
    expect(beforeTexts.join('\n')).not.toContain(summary)
    expect(afterTexts).toHaveLength(2)
    expect(afterTexts[0]).toContain(summary)
    expect(afterTexts[1]).toBe('delta from after')
    for (const early of ['alpha', 'Answer alpha.', 'beta', 'gamma']) expect(afterTexts).not.toContain(early)
    expect(server.requests).toHaveLength(6)
  })
})
