// Long sessions for the transcript's benchmark and its scale test (issue 17), written straight
// into a data directory in the on-disk format (docs/architecture.md §2: a header line, then one
// event per line), as a long agent run would leave them. Turns vary: a reply, a file written,
// a command run; one turn can be a long run of tool calls.
import fs from 'node:fs'
import path from 'node:path'

export interface TranscriptFixture {
  /** The session's id (a valid id: letters and digits). */
  readonly id: string
  readonly eventCount: number
  /** The seq of the big tool turn's `turn/start`, when there is one. */
  readonly toolRunTurnSeq: number | null
  /** The text of the last assistant message (a page shows it once the end of the log is on screen). */
  readonly lastText: string
}

export interface FixtureOptions {
  readonly id: string
  readonly cwd: string
  readonly title: string
  /** At least this many events (whole turns). */
  readonly events: number
  /** A turn of this many `write` calls (plus 3 commands, one failing), at `toolRunAt`. */
  readonly toolRun?: number
  /** Where the tool run goes, as a fraction of the log (default 0.5: the middle). */
  readonly toolRunAt?: number
}

type Line = readonly [type: string, data: unknown]

const baseTime = 1_760_000_000_000

/** Writes `<home>/sessions/<id>.jsonl` (0600 in a 0700 folder, fsynced) and says what is in it. */
export function writeTranscriptFixture(home: string, options: FixtureOptions): TranscriptFixture {
  const dir = path.join(home, 'sessions')
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  const file = path.join(dir, `${options.id}.jsonl`)
  const fd = fs.openSync(file, 'w', 0o600)
  const header = {
    type: 'session',
    version: 1,
    id: options.id,
    createdAt: baseTime,
    cwd: options.cwd,
    title: options.title,
    inheritedEventCount: 0,
    seed: 'inline',
    origin: 'user',
  }
  let seq = 0
  let batch: string[] = [JSON.stringify(header)]
  let toolRunTurnSeq: number | null = null
  let lastText = ''
  const flush = () => {
    fs.writeSync(fd, `${batch.join('\n')}\n`)
    batch = []
  }
  const bigAt = Math.floor(options.events * (options.toolRunAt ?? 0.5))
  for (let turn = 0; seq < options.events; turn++) {
    const big = options.toolRun !== undefined && toolRunTurnSeq === null && seq >= bigAt
    if (big) toolRunTurnSeq = seq
    lastText = `Turn ${turn} is done: ${'the change is in and the tests pass. '.repeat(1 + (turn % 3))}`
    const lines = big ? toolRunTurn(turn, options.toolRun!, lastText) : plainTurn(turn, lastText)
    for (const [type, data] of lines) {
      batch.push(JSON.stringify({ seq, time: baseTime + seq, type, data }))
      seq++
    }
    if (batch.length >= 2000) flush()
  }
  flush()
  fs.fsyncSync(fd)
  fs.closeSync(fd)
  return { id: options.id, eventCount: seq, toolRunTurnSeq, lastText }
}

const user = (text: string): Line => ['user/message', { content: [{ type: 'text', text }] }]
const say = (text: string): Line => ['assistant/message', { content: [{ type: 'text', text }] }]
const usage = { inputTokens: 1200, outputTokens: 80 }

/** 10 or 13 events: a question and a reply, every other turn with a file written or a command. */
function plainTurn(turn: number, answer: string): Line[] {
  const lines: Line[] = [['turn/start', {}], user(`Step ${turn}: please go on with the plan.`)]
  if (turn % 2 === 1) {
    const callId = `call-${turn}`
    const write = turn % 4 === 1
    const input = write
      ? { path: `src/part-${turn}.ts`, content: `export const part = ${turn}\n` }
      : { command: 'npm test' }
    lines.push(
      ['step/start', {}],
      [
        'assistant/message',
        { content: [{ type: 'tool-call', toolCallId: callId, toolName: write ? 'write' : 'bash', input }] },
      ],
      [
        'tool/result',
        {
          callId,
          toolName: write ? 'write' : 'bash',
          output: { type: 'text', value: write ? `Wrote src/part-${turn}.ts` : 'ok\n[exit code 0]' },
          isError: false,
        },
      ],
      ['step/end', { finishReason: 'tool-calls', usage }],
    )
    if (write) lines.push(['snapshot/taken', { tree: `tree-${turn}`, changed: [`src/part-${turn}.ts`] }])
  }
  lines.push(
    ['step/start', {}],
    say(answer),
    ['step/end', { finishReason: 'stop', usage }],
    ['turn/end', { reason: 'completed' }],
  )
  return lines
}

/** One step of `writes` file writes and 3 commands (the second fails), then the reply. */
function toolRunTurn(turn: number, writes: number, answer: string): Line[] {
  const calls = [
    ...Array.from({ length: writes }, (_, i) => ({
      toolCallId: `run-${turn}-w${i}`,
      toolName: 'write',
      input: { path: `f/${String(i).padStart(3, '0')}.txt`, content: `file ${i}\n` },
    })),
    ...[0, 1, 2].map((i) => ({
      toolCallId: `run-${turn}-b${i}`,
      toolName: 'bash',
      input: { command: `check ${i}` },
    })),
  ]
  const lines: Line[] = [
    ['turn/start', {}],
    user(`Write ${writes} files, then check them.`),
    ['step/start', {}],
    ['assistant/message', { content: calls.map((call) => ({ type: 'tool-call', ...call })) }],
  ]
  for (const call of calls) {
    const failed = call.toolCallId.endsWith('b1')
    lines.push([
      'tool/result',
      {
        callId: call.toolCallId,
        toolName: call.toolName,
        output: {
          type: 'text',
          value:
            call.toolName === 'write'
              ? `Wrote ${String((call.input as { path?: string }).path)}`
              : failed
                ? 'boom\n[exit code 1]'
                : 'ok\n[exit code 0]',
        },
        isError: failed,
      },
    ])
  }
  lines.push(
    ['step/end', { finishReason: 'tool-calls', usage }],
    ['step/start', {}],
    say(answer),
    ['step/end', { finishReason: 'stop', usage }],
    ['turn/end', { reason: 'completed' }],
  )
  return lines
}
