// Fan-out under load (docs/architecture.md §7): many WebSocket subscribers of one turn, in
// another process, get every event in order and the deltas merged, while the Host keeps
// answering /healthz; a subscriber that stops reading loses no event once it reads again.
import { type ChildProcess, spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { rpcSocketUrl } from '@tangent/host'
import type { SessionEvent } from '@tangent/protocol'
import { afterEach, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { repoRoot } from './cli-harness.js'
import { startTestHost, type TestHost, waitFor } from './host-harness.js'

let t: TestHost | null = null
const children: ChildProcess[] = []
afterEach(async () => {
  for (const child of children.splice(0)) child.kill()
  await t?.close()
  t = null
})

/** Runs `script` (an ES module) in a new Node process; resolves each stdout line in turn. */
function helper(
  script: string,
  env: Record<string, string>,
): { child: ChildProcess; line(): Promise<string> } {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  children.push(child)
  const lines: string[] = []
  const waiting: ((line: string) => void)[] = []
  let buffered = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk
    for (let at = buffered.indexOf('\n'); at >= 0; at = buffered.indexOf('\n')) {
      const line = buffered.slice(0, at)
      buffered = buffered.slice(at + 1)
      const waiter = waiting.shift()
      if (waiter) waiter(line)
      else lines.push(line)
    }
  })
  return {
    child,
    line: () =>
      lines.length > 0 ? Promise.resolve(lines.shift()!) : new Promise((resolve) => waiting.push(resolve)),
  }
}

const subscribersScript = `
  import { WebSocket } from 'ws'
  const { URL: url, SESSION: sessionId, COUNT } = process.env
  const stats = []
  await Promise.all(Array.from({ length: Number(COUNT) }, () => new Promise((resolve, reject) => {
    const socket = new WebSocket(url)
    const state = { seqs: [], deltas: 0, text: '', starts: [], inputs: [] }
    stats.push(state)
    socket.on('open', () => socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session.subscribe', params: { sessionId } })))
    socket.on('message', (data) => {
      const message = JSON.parse(String(data))
      if (message.id === 1) return message.error ? reject(new Error(message.error.message)) : resolve()
      if (message.method === 'session.event') state.seqs.push(message.params.event.seq)
      if (message.method === 'session.delta') {
        // A call's start is its own notification (never merged); a call's input streams apart
        // from another call's; text runs are merged.
        if (message.params.kind === 'tool-start') state.starts.push(message.params.toolCallId)
        if (message.params.kind === 'tool-input') state.inputs.push(message.params.toolCallId)
        if (message.params.kind === 'text') {
          state.deltas++
          state.text += message.params.text
        }
      }
    })
    socket.on('error', reject)
  })))
  process.stdout.write('ready\\n')
  process.stdin.resume()
  process.stdin.on('end', () => process.stdout.write(JSON.stringify(stats) + '\\n'))
`

const proberScript = `
  const times = []
  let stop = false
  process.stdin.resume()
  process.stdin.on('end', () => { stop = true })
  while (!stop) {
    const start = performance.now()
    const get = () => fetch(process.env.URL).then((response) => response.text())
    await get().catch(get)
    times.push(performance.now() - start)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  process.stdout.write(JSON.stringify(times) + '\\n')
`

describe('fan-out to many subscribers', () => {
  it('200 subscribers of a 300-tool turn: every event in order, deltas merged, /healthz answered meanwhile', async () => {
    t = await startTestHost()
    fs.writeFileSync(path.join(t.work, 'f.txt'), 'a line of the file\n')
    const session = await t.call('session.create', { cwd: t.work })
    const subscribers = helper(subscribersScript, {
      URL: rpcSocketUrl(t.host.url, t.host.token),
      SESSION: session.id,
      COUNT: '200',
    })
    expect(await subscribers.line()).toBe('ready')
    const prober = helper(proberScript, { URL: `${t.host.url}/healthz` })
    await new Promise((resolve) => setTimeout(resolve, 100))

    const text = Array.from({ length: 300 }, () => 'read f.txt').join('\n')
    const turn = await t.call('session.prompt', { sessionId: session.id, text })
    prober.child.stdin!.end()
    const probes = JSON.parse(await prober.line()) as number[]

    const { events } = await t.call('session.get', { sessionId: session.id })
    const turnSeqs = events.filter((e) => e.seq >= turn.turnStartSeq).map((e) => e.seq)
    const last = events.findLast((e) => e.type === 'assistant/message') as SessionEvent & {
      data: { content: { type: string; text?: string }[] }
    }
    const finalText = last.data.content.map((part) => part.text ?? '').join('')
    await new Promise((resolve) => setTimeout(resolve, 300)) // the last window of notifications
    subscribers.child.stdin!.end()
    const stats = JSON.parse(await subscribers.line()) as {
      seqs: number[]
      deltas: number
      text: string
      starts: string[]
      inputs: (string | undefined)[]
    }[]
    expect(stats).toHaveLength(200)
    const callIds = events
      .filter((e) => e.seq >= turn.turnStartSeq && e.type === 'tool/result')
      .map((e) => (e.data as { callId: string }).callId)
    expect(callIds).toHaveLength(300)
    for (const received of stats) {
      // Every call's start, once each, in order (ACP's in_progress is made of these).
      expect(received.starts).toEqual(callIds)
      expect(received.inputs.every((id) => id !== undefined && callIds.includes(id))).toBe(true)
      expect(received.seqs).toEqual(turnSeqs)
      // Thousands of 4-character chunks arrive as a few notifications, the text whole.
      expect(received.text).toBe(finalText)
      expect(received.deltas).toBeLessThan(100)
    }
    // The Host answered meanwhile (before: stalls of seconds while it sent every chunk to every socket).
    expect(probes.length).toBeGreaterThan(5)
    expect(Math.max(...probes)).toBeLessThan(1500)
  }, 120_000)

  it('a subscriber that stops reading is not cut off and gets every event once it reads again', async () => {
    t = await startTestHost()
    // 60 reads of 100 KB: ~6 MB of tool/result events, more than a socket may hold queued.
    fs.writeFileSync(path.join(t.work, 'big.txt'), `${'x'.repeat(99)}\n`.repeat(1000))
    const session = await t.call('session.create', { cwd: t.work })
    const socket = new WebSocket(rpcSocketUrl(t.host.url, t.host.token))
    const seqs: number[] = []
    let closedWith: number | null = null
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { method?: string; params?: { event: SessionEvent } }
      if (message.method === 'session.event') seqs.push(message.params!.event.seq)
    })
    socket.on('close', (code) => {
      closedWith = code
    })
    await new Promise((resolve, reject) => {
      socket.once('open', resolve)
      socket.once('error', reject)
    })
    socket.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'session.subscribe',
        params: { sessionId: session.id },
      }),
    )
    await waitFor(() => true)
    const watcher = await t.connect()
    const watched: number[] = []
    watcher.onNotification('session.event', ({ event }) => watched.push(event.seq))
    await watcher.call('session.subscribe', { sessionId: session.id })
    await new Promise((resolve) => setTimeout(resolve, 100))
    // The client stops reading its socket.
    const raw = (socket as unknown as { _socket: import('node:net').Socket })._socket
    raw.pause()
    const text = Array.from({ length: 60 }, () => 'read big.txt').join('\n')
    const turn = await t.call('session.prompt', { sessionId: session.id, text })
    await waitFor(() => watched.at(-1) === turn.turnEndSeq, 'the reading subscriber has the whole turn')
    raw.resume()
    await waitFor(() => seqs.at(-1) === turn.turnEndSeq, 'the paused subscriber caught up')
    const expected = Array.from(
      { length: turn.turnEndSeq - turn.turnStartSeq + 1 },
      (_, i) => turn.turnStartSeq + i,
    )
    expect(seqs.filter((seq) => seq >= turn.turnStartSeq)).toEqual(expected)
    expect(closedWith).toBeNull()
    socket.close()
  }, 120_000)
})
