// The disk-full soak (issue 11): a real `tangent serve` whose TANGENT_HOME is on a small tmpfs
// runs turns and forks until its writes fail with a full disk; then space is freed and it must
// recover by itself; a second time the Host is killed while the disk is full. Checked: every
// acknowledged event and every event served (session.get) is
// in the logs a fresh process loads, the sessions whose writes failed take prompts again, and
// no half-written record (0-byte worktree record, torn log line, temp file) is left behind.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { connectRpc, seededRandom, sleep, spawnServe, tempDir } from './lib.mjs'
import { fillDisk, mountSmallDisk, unmountSmallDisk } from './small-disk.mjs'

/**
 * @typedef {{ seq: number, time: number, type: string, data: unknown }} WireEvent
 * @typedef {{ id: string, acknowledged: WireEvent[], served: Map<number, string>, failed: boolean }} Tracked
 */

/**
 * @param {{ seed: number, sizeMb?: number, slackKb?: number, opsWhileFull?: number, log?: (line: string) => void }} options
 * @returns {Promise<{ skipped: string } | Record<string, unknown> & { problems: string[] }>}
 */
export async function runDiskFullTest(options) {
  const random = seededRandom(options.seed)
  const log = options.log ?? (() => {})
  const root = tempDir('tangent-disk-full-')
  const mountPoint = path.join(root, 'disk')
  fs.mkdirSync(mountPoint)
  if (!mountSmallDisk(mountPoint, `${options.sizeMb ?? 16}m`)) {
    fs.rmSync(root, { recursive: true, force: true })
    return { skipped: 'mounting a tmpfs needs root on Linux (mount -t tmpfs was refused)' }
  }
  const home = path.join(mountPoint, 'home')
  const work = path.join(mountPoint, 'work')
  const filler = path.join(mountPoint, 'filler')
  fs.mkdirSync(home, { mode: 0o700 })
  fs.mkdirSync(work)
  // A git project with a commit, so worktree forks are real `git worktree`s.
  fs.writeFileSync(path.join(work, 'README.md'), 'disk-full soak\n')
  const git = (/** @type {string[]} */ ...args) =>
    execFileSync('git', ['-c', 'user.name=soak', '-c', 'user.email=soak@example.invalid', ...args], {
      cwd: work,
      stdio: 'ignore',
    })
  git('init', '-q')
  git('add', '.')
  git('commit', '-qm', 'start')
  const env = { TANGENT_DEMO_DELAY_MS: '0' }
  /** @type {string[]} */
  const problems = []
  const problem = (/** @type {string} */ text) => {
    problems.push(text)
    log(`PROBLEM ${text}`)
  }
  /** @type {Map<string, Tracked>} */
  const sessions = new Map()
  /** @type {Record<string, number>} */
  const failures = {}
  const stats = {
    acknowledgedTurns: 0,
    acknowledgedForks: 0,
    failedCalls: 0,
    servedEvents: 0,
    servedNotDurable: 0,
    recovered: 0,
  }
  let counter = 0
  const bigPrompt = () => `write big-${counter % 9}.txt: ${`line ${counter++} `.repeat(random.int(50, 400))}`

  let host = await spawnServe({ home, cwd: work, env })
  try {
    let client = await connectRpc(host.info)
    for (let i = 0; i < 3; i++) {
      const summary = await client.call('session.create', { cwd: work })
      const tracked = { id: summary.id, acknowledged: [], served: new Map(), failed: false }
      sessions.set(summary.id, tracked)
      await prompt(client, tracked)
    }
    await whileFull(client, 'first')

    // Space returns: the Host must recover by itself (no restart), within the writer's backoff.
    fs.rmSync(filler)
    for (const tracked of sessions.values()) {
      if (!tracked.failed) continue
      const deadline = Date.now() + 15_000
      let ok = false
      while (!ok && Date.now() < deadline) {
        ok = await prompt(client, tracked, true)
        if (!ok) await sleep(500)
      }
      if (ok) stats.recovered++
      else
        problem(
          `${tracked.id}: its write failed while full, and it still refuses prompts 15 s after space returned`,
        )
    }
    // Full again, and this time the Host is killed while full: what it served must have been durable.
    await whileFull(client, 'second')
    for (const tracked of sessions.values()) await get(client, tracked)
    client.close()
    await host.kill('SIGKILL')
    fs.rmSync(filler)

    // A fresh process: what clients were told and served is what it loads.
    host = await spawnServe({ home, cwd: work, env })
    const startWarnings = host.stderr().trim()
    if (startWarnings) log(`start said: ${startWarnings.split('\n').join(' | ')}`)
    client = await connectRpc(host.info)
    for (const tracked of sessions.values()) {
      // Loading repairs a turn the kill left open, so the list is read after it.
      const { events } = await client.call('session.get', { sessionId: tracked.id })
      const listed = await client.call('session.list', { includeArchived: true })
      const summary = listed.find((entry) => entry.id === tracked.id)
      if (summary?.eventCount !== events.length)
        problem(`${tracked.id}: listed with ${summary?.eventCount} events, loads ${events.length}`)
      const acknowledged = JSON.stringify(tracked.acknowledged)
      if (JSON.stringify(events.slice(0, tracked.acknowledged.length)) !== acknowledged)
        problem(`${tracked.id}: the ${tracked.acknowledged.length} acknowledged events are not what loads`)
      let lost = 0
      for (const [seq, text] of tracked.served) if (JSON.stringify(events[seq]) !== text) lost++
      if (lost > 0) {
        stats.servedNotDurable += lost
        problem(
          `${tracked.id}: ${lost} of ${tracked.served.size} events served (session.get) before the kill are not in its log`,
        )
      }
      if (tracked.failed && !(await prompt(client, tracked, true)))
        problem(`${tracked.id}: refuses prompts after the restart`)
    }
    client.close()
    await host.kill('SIGTERM')
  } finally {
    await host.kill('SIGKILL')
  }
  const leftovers = halfWritten(home)
  for (const leftover of leftovers) problem(`half-written record left: ${leftover}`)
  // Tails cut by crash repair and kept (the kill came while a write was half done): as designed.
  const tornFiles = fs
    .readdirSync(path.join(home, 'sessions'))
    .filter((name) => name.endsWith('.torn')).length
  unmountSmallDisk(mountPoint)
  fs.rmSync(root, { recursive: true, force: true })
  return { ...stats, tornFiles, failures, sessions: sessions.size, problems }

  /**
   * Fills the disk but for a little room (the next turns fill it in the middle of their writes)
   * and runs turns, forks and reads on it.
   * @param {import('@tangent/protocol').RpcClient} client
   * @param {string} round
   */
  async function whileFull(client, round) {
    const filled = fillDisk(filler)
    fs.truncateSync(filler, Math.max(0, filled - (options.slackKb ?? 256) * 1024))
    const failedBefore = stats.failedCalls
    for (let op = 0; op < (options.opsWhileFull ?? 80); op++) {
      const tracked = random.pick([...sessions.values()])
      const roll = random.next()
      if (roll < 0.6) await prompt(client, tracked)
      else if (roll < 0.8) await fork(client, tracked, random.chance(0.5) ? 'worktree' : 'shared')
      else await get(client, tracked)
    }
    log(
      `${round} time full (${Math.round(filled / 1024)} KB filler): ${stats.failedCalls - failedBefore} calls failed`,
    )
    if (stats.failedCalls === failedBefore)
      problem(`${round} time full: no call failed (the disk never filled)`)
  }

  /**
   * One turn; on success its events are acknowledged. `quiet`: a failure is the answer, not a problem.
   * @param {import('@tangent/protocol').RpcClient} client
   * @param {Tracked} tracked
   */
  async function prompt(client, tracked, quiet = false) {
    try {
      const result = await client.call('session.prompt', { sessionId: tracked.id, text: bigPrompt() })
      const { events } = await client.call('session.get', { sessionId: tracked.id })
      serve(tracked, events)
      if (result.reason === 'completed') {
        tracked.acknowledged = events.slice(0, result.turnEndSeq + 1)
        stats.acknowledgedTurns++
      } else failed(tracked, `turn ${result.reason}`, quiet)
      return result.reason === 'completed'
    } catch (error) {
      failed(tracked, error, quiet)
      return false
    }
  }

  /**
   * @param {import('@tangent/protocol').RpcClient} client
   * @param {Tracked} tracked
   * @param {'shared' | 'worktree'} files
   */
  async function fork(client, tracked, files) {
    try {
      const result = await client.call('session.fork', { sessionId: tracked.id, files })
      const { events } = await client.call('session.get', { sessionId: result.session.id })
      const child = { id: result.session.id, acknowledged: events, served: new Map(), failed: false }
      sessions.set(child.id, child)
      serve(child, events)
      stats.acknowledgedForks++
    } catch (error) {
      failed(tracked, error, false, `fork (${files})`)
    }
  }

  /**
   * @param {import('@tangent/protocol').RpcClient} client
   * @param {Tracked} tracked
   */
  async function get(client, tracked) {
    try {
      serve(tracked, (await client.call('session.get', { sessionId: tracked.id })).events)
    } catch (error) {
      failed(tracked, error, false, 'get')
    }
  }

  /** @param {Tracked} tracked @param {WireEvent[]} events */
  function serve(tracked, events) {
    for (const event of events) {
      if (!tracked.served.has(event.seq)) stats.servedEvents++
      tracked.served.set(event.seq, JSON.stringify(event))
    }
  }

  /** @param {Tracked} tracked @param {unknown} error @param {boolean} quiet */
  function failed(tracked, error, quiet, what = 'prompt') {
    const data = /** @type {{ data?: { code?: string } }} */ (error).data
    const code = typeof error === 'string' ? error : (data?.code ?? String(error))
    if (quiet) return
    tracked.failed = true
    stats.failedCalls++
    const key = `${what}: ${code}`
    failures[key] = (failures[key] ?? 0) + 1
    const expected = ['store-write-failed', 'disk-full', 'turn error', 'session-busy']
    if (!expected.includes(code)) problem(`${tracked.id}: ${what} failed with ${code} (${String(error)})`)
  }
}

/**
 * Records a full disk must not leave: empty or unparsable worktree records, logs whose last
 * line is cut or does not parse (after the restart repaired them), temp files.
 * @param {string} home
 */
function halfWritten(home) {
  /** @type {string[]} */
  const found = []
  const worktrees = path.join(home, 'worktrees')
  for (const name of fs.existsSync(worktrees) ? fs.readdirSync(worktrees) : []) {
    if (!name.endsWith('.json')) continue
    const text = fs.readFileSync(path.join(worktrees, name), 'utf8')
    try {
      JSON.parse(text)
    } catch {
      found.push(`worktrees/${name} (${text.length} bytes, not JSON)`)
    }
  }
  const sessionsDir = path.join(home, 'sessions')
  for (const name of fs.readdirSync(sessionsDir)) {
    if (name.includes('.tmp')) found.push(`sessions/${name}`)
    if (!name.endsWith('.jsonl')) continue
    const text = fs.readFileSync(path.join(sessionsDir, name), 'utf8')
    if (!text.endsWith('\n')) found.push(`sessions/${name} (last line cut)`)
    else
      for (const line of text.slice(0, -1).split('\n'))
        try {
          JSON.parse(line)
        } catch {
          found.push(`sessions/${name} (a line does not parse)`)
          break
        }
  }
  return found
}
