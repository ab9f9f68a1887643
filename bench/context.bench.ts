// Context management (docs/architecture.md §12) per model call: the compaction check the agent
// runs before every step, against what that step costs anyway (replaying the log, a call of the
// demo model); and the read of the instruction files at every turn's start.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {
  compactionBoundary,
  DemoLanguageModel,
  estimateContextTokens,
  ModelRegistry,
  overThreshold,
  readInstructionFiles,
} from '@tangent/agent'
import { type Session, SessionStore, toModelMessages } from '@tangent/core'
import { generateText } from 'ai'
import { type BenchRow, type BenchSuite, median, timeIt } from './table.js'

const text = (n: number, bytes: number) => `message ${n} `.padEnd(bytes, 'lorem ipsum dolor sit amet ')

/** `turns` turns of 10 events each (a tool call with a ~2 KB result), usage on every step/end. */
function session(turns: number): Session {
  const s = new SessionStore().create()
  for (let n = 0; n < turns; n++) {
    const callId = `call-${n}`
    s.append('turn/start', {})
    s.append('user/message', { content: [{ type: 'text', text: text(n, 300) }] })
    s.append('step/start', {})
    s.append('assistant/message', {
      content: [{ type: 'tool-call', toolCallId: callId, toolName: 'read', input: { path: `f${n}.ts` } }],
    })
    s.append('tool/result', { callId, toolName: 'read', output: text(n, 2_000), isError: false })
    s.append('step/end', { finishReason: 'tool-calls', usage: { inputTokens: 1_000 * n, outputTokens: 20 } })
    s.append('step/start', {})
    s.append('assistant/message', { content: [{ type: 'text', text: text(n, 400) }] })
    s.append('step/end', { finishReason: 'stop', usage: { inputTokens: 1_000 * n + 600, outputTokens: 100 } })
    s.append('turn/end', { reason: 'completed' })
  }
  return s
}

/** Per call, in ms: `fn` run `batch` times per sample, the median of `samples`. */
async function perCall(fn: () => unknown, batch: number, samples: number): Promise<number> {
  const times = await timeIt(
    async () => {
      for (let i = 0; i < batch; i++) await fn()
    },
    samples,
    1,
  )
  return median(times) / batch
}

export const suite: BenchSuite = {
  title: 'Context: the compaction check per model call, the instruction files per turn',
  async run(): Promise<BenchRow[]> {
    const big = session(1_000)
    // The check before a turn's first step: it estimates the new user message (later steps
    // find a step/end at once).
    big.append('turn/start', {})
    big.append('user/message', { content: [{ type: 'text', text: text(1_000, 300) }] })
    const events = big.events
    const models = new ModelRegistry({ env: {} })
    const system = 'x'.repeat(2_000)
    const modelId = 'openai:gpt-4.1'
    let sink = 0
    // What the agent runs before each step (SessionContext.compactIfNeeded, when it decides not to compact).
    const check = () => {
      const tokens = estimateContextTokens(events, system.length)
      if (overThreshold(tokens, models.contextWindow(modelId), 0.8)) sink += compactionBoundary(big) ?? 0
      sink += tokens
    }
    // And when it must: the window is passed, so it also finds the boundary.
    const checkOver = () => {
      const tokens = estimateContextTokens(events, system.length)
      if (overThreshold(tokens, 1_000, 0.8)) sink += compactionBoundary(big) ?? 0
    }
    await perCall(check, 10_000, 3) // warm both paths up before either is timed
    await perCall(checkOver, 10_000, 3)
    const checkMs = await perCall(check, 10_000, 9)
    const checkOverMs = await perCall(checkOver, 10_000, 9)
    const replayMs = await perCall(() => (sink += toModelMessages(events).length), 3, 9)
    const demo = new DemoLanguageModel()
    const messages = toModelMessages(events)
    const demoMs = await perCall(
      async () => {
        sink += (await generateText({ model: demo, system, messages })).text.length
      },
      1,
      7,
    )

    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-bench-context-'))
    const cwd = path.join(root, 'repo', 'packages', 'app')
    fs.mkdirSync(path.join(root, 'repo', '.git'), { recursive: true })
    fs.mkdirSync(cwd, { recursive: true })
    fs.writeFileSync(path.join(root, 'repo', 'AGENTS.md'), text(0, 4_000))
    fs.writeFileSync(path.join(cwd, 'CLAUDE.md'), text(1, 1_000))
    const user = path.join(root, 'config', 'tangent', 'AGENTS.md')
    fs.mkdirSync(path.dirname(user), { recursive: true })
    fs.writeFileSync(user, text(2, 500))
    const readMs = await perCall(
      async () => {
        sink += (await readInstructionFiles({ cwd, userPath: user })).length
      },
      50,
      9,
    )
    fs.rmSync(root, { recursive: true, force: true })
    if (sink === 0) throw new Error('nothing measured')

    const us = (ms: number) => `${(ms * 1000).toFixed(2)} µs`
    const replay = {
      name: 'replay of the log (toModelMessages), done for every call anyway',
      medianMs: replayMs,
    }
    const checkRow = (name: string, ms: number): BenchRow => ({
      name,
      medianMs: ms,
      baseline: replay,
      extra: { 'per call': us(ms), 'vs a demo model call': `${((ms / demoMs) * 100).toFixed(4)} %` },
      target: { text: '≤ 1% of the replay', met: ms <= replayMs / 100 },
    })
    return [
      checkRow('compaction check before a model call @ 10k events (under the threshold)', checkMs),
      checkRow(
        'compaction check before a model call @ 10k events (over: also finds the boundary)',
        checkOverMs,
      ),
      {
        name: 'one demo model call over that history (generateText)',
        medianMs: demoMs,
        baseline: {
          name: 'replay of the log (toModelMessages), done for every call anyway',
          medianMs: replayMs,
        },
      },
      {
        name: 'instruction files read per turn (user file + 2 of 3 levels of a repository)',
        medianMs: readMs,
        baseline: { name: 'one demo model call over that history', medianMs: demoMs },
        extra: { 'per turn': us(readMs) },
      },
    ]
  },
}
