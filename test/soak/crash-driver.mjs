// The crash test (issue 6): drive turns and forks through a real `tangent serve` child over
// WebSocket, SIGKILL it at seeded random moments, restart it each time, and check that nothing
// acknowledged was lost or changed. Used by test/e2e/prove-crash.e2e.ts (≥ 20 kills) and by
// `npm run soak` (hundreds). Returns what it saw; `problems` lists every broken promise.
import fs from 'node:fs'
import path from 'node:path'
import { connectRpc, seededRandom, sleep, spawnServe, tempDir } from './lib.mjs'

/**
 * @typedef {{ seq: number, time: number, type: string, data: unknown }} WireEvent
 * @typedef {{
 *   id: string,
 *   known: WireEvent[],          // events seen durable (after a restart, or acknowledged)
 *   inFlight: boolean,           // a session.prompt or session.rename was sent and had not resolved at the kill
 *   title?: string,              // the last acknowledged session.rename
 *   archived?: boolean,          // the last acknowledged session.archive
 *   pending?: { title?: string, archived?: boolean }, // sent, not acknowledged at the kill
 *   requestId?: string,          // the fork's requestId, checked once after the next restart
 *   parent: { id: string, boundary: number } | null,
 *   forkEventCount?: number,     // a fork: the events its answer acknowledged (prefix, model, title)
 * }} Tracked
 */

/**
 * @param {{
 *   seed: number,
 *   kills: number,
 *   activePerRound?: number,     // sessions prompting at once between two kills
 *   minKillMs?: number,
 *   maxKillMs?: number,
 *   demoDelayMs?: number,
 *   proveAll?: boolean,          // fork + prompt every interrupted session (default: one per restart)
 *   log?: (line: string) => void,
 * }} options
 */
export async function runCrashTest(options) {
  const random = seededRandom(options.seed)
  const log = options.log ?? (() => {})
  const activePerRound = options.activePerRound ?? 3
  const minKillMs = options.minKillMs ?? 100
  const maxKillMs = options.maxKillMs ?? 1500
  const root = tempDir('tangent-crash-')
  const home = path.join(root, 'home')
  const work = path.join(root, 'work')
  fs.mkdirSync(home)
  fs.mkdirSync(work)
  const env = { TANGENT_DEMO_DELAY_MS: String(options.demoDelayMs ?? 3) }

  /** @type {string[]} */
  const problems = []
  const problem = (/** @type {string} */ text) => {
    problems.push(text)
    log(`PROBLEM ${text}`)
  }
  /** @type {Map<string, Tracked>} */
  const sessions = new Map()
  const stats = {
    kills: 0,
    restarts: 0,
    acknowledgedTurns: 0,
    acknowledgedForks: 0,
    interruptedTurns: 0,
    completedUnacknowledged: 0,
    provenAfterInterrupt: 0,
    acknowledgedRenames: 0,
    forksOfOthers: 0,
    requestIdsChecked: 0,
    acknowledgedArchives: 0,
    verifiedSessions: 0,
  }
  let counter = 0
  const nextPrompt = () => {
    const n = counter++
    return random.pick([
      `run: sleep 0.05; echo hi-${n}`,
      `write notes-${n % 7}.txt: line ${n}`,
      `hello ${n}, how are you?`,
      `run: echo a-${n}\nwrite f-${n % 5}.txt: x${n}`,
    ])
  }

  // Setup: a few sessions with one acknowledged turn each, so every one can be forked.
  let host = await spawnServe({ home, cwd: work, env })
  try {
    let client = await connectRpc(host.info)
    for (let i = 0; i < 3; i++) {
      const summary = await client.call('session.create', { cwd: work })
      const tracked = { id: summary.id, known: [], inFlight: false, parent: null }
      sessions.set(summary.id, tracked)
      const result = await client.call('session.prompt', { sessionId: summary.id, text: nextPrompt() })
      const { events } = await client.call('session.get', { sessionId: summary.id })
      acknowledge(tracked, result, events)
    }
    client.close()

    for (let round = 0; round < options.kills; round++) {
      client = await connectRpc(host.info)
      const killAfter = random.int(minKillMs, maxKillMs)
      const chosen = pickSome([...sessions.values()], activePerRound)
      /** @type {Promise<void>[]} */
      const workers = []
      const stop = { now: false }
      for (const tracked of chosen) workers.push(worker(client, tracked, stop))
      await sleep(killAfter)
      stop.now = true
      await host.kill('SIGKILL')
      stats.kills++
      client.close()
      await Promise.all(workers)
      log(`kill ${stats.kills}/${options.kills} after ${killAfter} ms (${sessions.size} sessions)`)

      host = await spawnServe({ home, cwd: work, env })
      stats.restarts++
      client = await connectRpc(host.info)
      await verify(client)
      client.close()
    }
    // A clean stop at the end: the data dir stays consistent for the last check.
    client = await connectRpc(host.info)
    await verify(client)
    client.close()
    await host.kill('SIGTERM')
  } finally {
    await host.kill('SIGKILL')
  }
  // Torn tails the Host cut off and kept (a kill landed inside a write).
  const tornFiles = fs
    .readdirSync(path.join(home, 'sessions'))
    .filter((name) => name.endsWith('.torn')).length
  fs.rmSync(root, { recursive: true, force: true })
  return { ...stats, tornFiles, sessions: sessions.size, problems }

  /**
   * @param {Tracked} tracked
   * @param {{ turnStartSeq: number, turnEndSeq: number, reason: string }} result
   * @param {WireEvent[]} events
   */
  function acknowledge(tracked, result, events) {
    stats.acknowledgedTurns++
    if (result.reason !== 'completed') problem(`${tracked.id}: a turn ended ${result.reason}, not completed`)
    const end = events[result.turnEndSeq]
    if (end?.type !== 'turn/end' || events[result.turnStartSeq]?.type !== 'turn/start')
      problem(
        `${tracked.id}: prompt resolved with seqs ${result.turnStartSeq}..${result.turnEndSeq} not a turn`,
      )
    tracked.known = events.slice(0, result.turnEndSeq + 1)
  }

  /**
   * One client's work on one session until the kill: prompts (some run tools) and forks.
   * Events come from a subscription, so an acknowledged turn's bytes are known without another call.
   * @param {import('@tangent/protocol').RpcClient} client
   * @param {Tracked} tracked
   * @param {{ now: boolean }} stop
   */
  async function worker(client, tracked, stop) {
    /** @type {WireEvent[]} */
    const events = [...tracked.known]
    client.onNotification('session.event', (params) => {
      if (params.sessionId !== tracked.id) return
      if (params.event.seq !== events.length) {
        problem(`${tracked.id}: session.event seq ${params.event.seq} arrived when ${events.length} was next`)
      }
      events[params.event.seq] = params.event
    })
    try {
      await client.call('session.subscribe', { sessionId: tracked.id, fromSeq: events.length })
      while (!stop.now) {
        if (random.chance(0.05)) {
          // A fork of another session, which may be running a turn: at its last completed turn.
          const other = random.pick([...sessions.values()])
          const result = await client.call('session.fork', { sessionId: other.id })
          stats.acknowledgedForks++
          stats.forksOfOthers++
          sessions.set(result.session.id, {
            id: result.session.id,
            known: [],
            inFlight: false,
            parent: { id: other.id, boundary: result.boundary },
            forkEventCount: result.session.eventCount,
          })
          continue
        }
        if (random.chance(0.15)) {
          const requestId = `req-${options.seed}-${counter++}`
          const result = await client.call('session.fork', { sessionId: tracked.id, requestId })
          stats.acknowledgedForks++
          sessions.set(result.session.id, {
            id: result.session.id,
            known: [],
            inFlight: false,
            parent: { id: tracked.id, boundary: result.boundary },
            forkEventCount: result.session.eventCount,
            requestId,
          })
          continue
        }
        if (random.chance(0.1)) {
          const title = `title ${counter++} ${random.pick(['', 'é', '分支', '"quoted"'])}`
          tracked.inFlight = true
          tracked.pending = { title }
          const summary = await client.call('session.rename', { sessionId: tracked.id, title })
          if (events.length < summary.eventCount) problem(`${tracked.id}: rename answered before its event`)
          tracked.known = events.slice(0, summary.eventCount)
          tracked.title = title
          tracked.pending = undefined
          tracked.inFlight = false
          stats.acknowledgedRenames++
          continue
        }
        if (random.chance(0.06)) {
          const archived = !tracked.archived
          tracked.pending = { archived }
          await client.call('session.archive', { sessionId: tracked.id, archived })
          tracked.archived = archived
          tracked.pending = undefined
          stats.acknowledgedArchives++
          continue
        }
        tracked.inFlight = true
        const result = await client.call('session.prompt', { sessionId: tracked.id, text: nextPrompt() })
        tracked.inFlight = false
        if (events.length <= result.turnEndSeq) {
          problem(`${tracked.id}: prompt resolved at ${result.turnEndSeq} before its events were notified`)
          return
        }
        acknowledge(tracked, result, events)
      }
    } catch (error) {
      const code = /** @type {{ data?: { code?: string } }} */ (error).data?.code
      if (code !== 'connection-closed') problem(`${tracked.id}: unexpected error ${String(error)}`)
    }
  }

  /**
   * After a restart: every session is listed and loads, acknowledged events are byte-identical,
   * no turn is left open, an interrupted turn says so and its session can be forked and prompted.
   * @param {import('@tangent/protocol').RpcClient} client
   */
  async function verify(client) {
    let proved = false
    const summaries = new Map(
      (await client.call('session.list', { includeArchived: true })).map((summary) => [summary.id, summary]),
    )
    const listed = new Set(summaries.keys())
    // A snapshot: proving an interrupted session usable adds a fork to `sessions`.
    for (const tracked of [...sessions.values()]) {
      if (!listed.has(tracked.id)) problem(`${tracked.id}: missing from session.list after restart`)
      // Acknowledged titles and archive flags survive; one in flight at the kill may or may not.
      const summary = summaries.get(tracked.id)
      if (summary && tracked.title !== undefined) {
        const allowed = [tracked.title, tracked.pending?.title].filter((t) => t !== undefined)
        if (!allowed.includes(summary.title))
          problem(
            `${tracked.id}: title ${JSON.stringify(summary.title)} after restart, acknowledged ${JSON.stringify(tracked.title)}`,
          )
      }
      if (summary && tracked.archived !== undefined) {
        const allowed = [tracked.archived, tracked.pending?.archived].filter((a) => a !== undefined)
        if (!allowed.includes(summary.archived))
          problem(
            `${tracked.id}: archived ${summary.archived} after restart, acknowledged ${tracked.archived}`,
          )
      }
      if (summary) {
        if (tracked.title !== undefined) tracked.title = summary.title
        if (tracked.archived !== undefined || summary.archived) tracked.archived = summary.archived
      }
      tracked.pending = undefined
      if (tracked.requestId !== undefined && tracked.parent) {
        // An acknowledged fork's requestId still names the same child after a kill.
        const again = await client
          .call('session.fork', { sessionId: tracked.parent.id, requestId: tracked.requestId })
          .catch((/** @type {unknown} */ error) => ({
            session: { id: `error ${String(error)}` },
            boundary: -1,
          }))
        if (again.session.id !== tracked.id)
          problem(
            `${tracked.id}: requestId ${tracked.requestId} returned ${again.session.id} after a restart`,
          )
        stats.requestIdsChecked++
        tracked.requestId = undefined
      }
      let events
      try {
        events = (await client.call('session.get', { sessionId: tracked.id })).events
      } catch (error) {
        problem(`${tracked.id}: session.get failed after restart: ${String(error)}`)
        continue
      }
      stats.verifiedSessions++
      const before = JSON.stringify(tracked.known)
      const now = JSON.stringify(events.slice(0, tracked.known.length))
      if (before !== now)
        problem(`${tracked.id}: the first ${tracked.known.length} events changed after a kill`)
      if (tracked.parent) {
        const parent = sessions.get(tracked.parent.id)
        const inherited = events.slice(0, tracked.parent.boundary + 1)
        if (parent && parent.known.length > tracked.parent.boundary) {
          const expected = JSON.stringify(parent.known.slice(0, tracked.parent.boundary + 1))
          if (JSON.stringify(inherited) !== expected)
            problem(`${tracked.id}: its inherited prefix differs from its parent's`)
        }
      }
      // Turns after what was known: each closed, as completed (finished, answer lost) or interrupted.
      let open = false
      let interruptedEnd = -1
      const firstOwn = tracked.parent ? tracked.parent.boundary + 1 : 0
      for (const event of events.slice(Math.max(tracked.known.length, firstOwn))) {
        if (event.type === 'turn/start') open = true
        if (event.type !== 'turn/end') continue
        open = false
        const reason = /** @type {{ reason: string }} */ (event.data).reason
        if (reason === 'interrupted') {
          stats.interruptedTurns++
          interruptedEnd = event.seq
        } else if (reason === 'completed') stats.completedUnacknowledged++
        else problem(`${tracked.id}: turn ending at ${event.seq} has reason ${reason} after a kill`)
      }
      if (open || lastTurnMarker(events) === 'turn/start')
        problem(`${tracked.id}: a turn is still open after restart`)
      // Only the turn that was in flight at the kill may add events nobody acknowledged.
      // A fork's answer acknowledged its header and its own first events (model, title).
      const acknowledged = Math.max(tracked.known.length, firstOwn, tracked.forkEventCount ?? 0)
      if (!tracked.inFlight && events.length !== acknowledged)
        problem(
          `${tracked.id}: ${events.length - acknowledged} unacknowledged events, no prompt was in flight`,
        )
      tracked.known = events
      tracked.inFlight = false
      if (interruptedEnd >= 0 && (options.proveAll || !proved)) {
        await proveUsable(client, tracked, interruptedEnd)
        proved = true
      }
    }
  }

  /**
   * An interrupted session is forkable at the interrupted turn and takes a new prompt.
   * @param {import('@tangent/protocol').RpcClient} client
   * @param {Tracked} tracked
   * @param {number} interruptedEnd
   */
  async function proveUsable(client, tracked, interruptedEnd) {
    try {
      const fork = await client.call('session.fork', { sessionId: tracked.id, atSeq: interruptedEnd })
      if (fork.boundary < interruptedEnd)
        problem(`${tracked.id}: fork at ${interruptedEnd} gave boundary ${fork.boundary}`)
      stats.acknowledgedForks++
      sessions.set(fork.session.id, {
        id: fork.session.id,
        known: [],
        inFlight: false,
        parent: { id: tracked.id, boundary: fork.boundary },
        forkEventCount: fork.session.eventCount,
      })
      const result = await client.call('session.prompt', { sessionId: tracked.id, text: 'after the crash' })
      const { events } = await client.call('session.get', { sessionId: tracked.id })
      acknowledge(tracked, result, events)
      stats.provenAfterInterrupt++
    } catch (error) {
      problem(`${tracked.id}: after an interrupted turn, fork+prompt failed: ${String(error)}`)
    }
  }

  /** @template T @param {T[]} items @param {number} count @returns {T[]} */
  function pickSome(items, count) {
    const pool = [...items]
    const chosen = []
    while (chosen.length < count && pool.length > 0)
      chosen.push(pool.splice(random.int(0, pool.length - 1), 1)[0])
    return /** @type {T[]} */ (chosen)
  }
}

/** @param {{ type: string }[]} events */
function lastTurnMarker(events) {
  for (let i = events.length - 1; i >= 0; i--) {
    const type = events[i]?.type
    if (type === 'turn/start' || type === 'turn/end') return type
  }
  return null
}
