// The kill-during-restore soak (issue 11; docs/architecture.md §5, a restore survives a crash):
// a real `tangent serve` restores a session's many changed files and is SIGKILLed at a random
// moment, then restarted. The files must be all as before the restore (rolled back, and the
// start says so) or all as after (finished: the log records it), a second restore must work
// without force, and no scratch index may stay in the shadow repository.
import fs from 'node:fs'
import path from 'node:path'
import { connectRpc, seededRandom, spawnServe, tempDir } from './lib.mjs'

/** @param {{ seed: number, kills: number, files?: number, maxKillMs?: number, log?: (line: string) => void }} options */
export async function runRestoreKillTest(options) {
  const random = seededRandom(options.seed)
  const log = options.log ?? (() => {})
  const fileCount = options.files ?? 1500
  const names = Array.from({ length: fileCount }, (_, i) => `d${i % 20}/f${i}.txt`)
  const after = (/** @type {string} */ name) => `${name} at the turn restored to\n`
  const before = (/** @type {string} */ name) => `${name} before the restore\n`
  const root = tempDir('tangent-restore-kill-')
  const home = path.join(root, 'home')
  const work = path.join(root, 'work')
  fs.mkdirSync(home, { mode: 0o700 })
  fs.mkdirSync(work)
  const env = { TANGENT_DEMO_DELAY_MS: '0' }
  /** @type {string[]} */
  const problems = []
  const problem = (/** @type {string} */ text) => {
    problems.push(text)
    log(`PROBLEM ${text}`)
  }
  const outcomes = { rolledBack: 0, finished: 0, notStarted: 0, secondRestores: 0 }

  let host = await spawnServe({ home, cwd: work, env })
  try {
    for (let kill = 0; kill < options.kills; kill++) {
      const cwd = path.join(work, `attempt-${kill}`)
      for (const name of names) {
        fs.mkdirSync(path.dirname(path.join(cwd, name)), { recursive: true })
        fs.writeFileSync(path.join(cwd, name), after(name))
      }
      let client = await connectRpc(host.info)
      // Turn 1 records the files as found (baseline); then every file changes and turn 2 records it.
      const { id } = await client.call('session.create', { cwd })
      const first = await client.call('session.prompt', { sessionId: id, text: 'hello' })
      for (const name of names) fs.writeFileSync(path.join(cwd, name), before(name))
      await client.call('session.prompt', { sessionId: id, text: 'write marker.txt: changed' })
      const killAfter = random.int(0, options.maxKillMs ?? 4000)
      const started = Date.now()
      const restore = client.call('snapshot.restore', { sessionId: id, seq: first.turnEndSeq })
      restore.catch(() => {})
      await new Promise((resolve) => setTimeout(resolve, killAfter))
      await host.kill('SIGKILL')
      client.close()
      const answered = await Promise.race([restore.then(() => true), Promise.resolve(false)]).catch(
        () => false,
      )

      host = await spawnServe({ home, cwd: work, env })
      const said = host.stderr()
      client = await connectRpc(host.info)
      const found = census(cwd)
      const { events } = await client.call('session.get', { sessionId: id })
      const recorded = events.some((event) => event.type === 'files/restored')
      const rolledBackSaid = said.includes(`a restore in ${cwd} was interrupted by a crash: rolled back`)
      let outcome = 'mixed'
      if (found.after === fileCount) outcome = 'finished'
      else if (found.before === fileCount) outcome = rolledBackSaid ? 'rolled back' : 'not started'
      log(
        `kill ${kill + 1}/${options.kills} after ${killAfter} ms (${Date.now() - started} ms with the restart): ${outcome}, ${JSON.stringify(found)}${answered ? ', answered' : ''}`,
      )
      if (outcome === 'mixed')
        problem(`attempt ${kill}: files are a mix after the restart: ${JSON.stringify(found)}`)
      if (outcome === 'finished') {
        outcomes.finished++
        if (!recorded) problem(`attempt ${kill}: every file restored, but the log records no files/restored`)
      }
      if (outcome === 'rolled back') outcomes.rolledBack++
      if (outcome === 'not started') {
        outcomes.notStarted++
        if (recorded) problem(`attempt ${kill}: the log records a restore the files do not show`)
      }
      if (answered && outcome !== 'finished')
        problem(`attempt ${kill}: the restore answered, yet the files are ${outcome}`)
      const leftovers = scratchLeftovers(home)
      if (leftovers.length > 0)
        problem(`attempt ${kill}: scratch index left after the restart: ${leftovers.join(', ')}`)

      // Restoring again works without force: nothing blames "another writer".
      try {
        await client.call('snapshot.restore', { sessionId: id, seq: first.turnEndSeq })
        const again = census(cwd)
        if (again.after !== fileCount)
          problem(`attempt ${kill}: the second restore left ${JSON.stringify(again)}`)
        outcomes.secondRestores++
      } catch (error) {
        problem(`attempt ${kill}: the second restore failed: ${String(error)}`)
      }
      const afterSecond = scratchLeftovers(home)
      if (afterSecond.length > 0) problem(`attempt ${kill}: scratch index left after the second restore`)
      client.close()
      fs.rmSync(cwd, { recursive: true, force: true })
    }
    await host.kill('SIGTERM')
  } finally {
    await host.kill('SIGKILL')
  }
  fs.rmSync(root, { recursive: true, force: true })
  return { kills: options.kills, files: fileCount, ...outcomes, problems }

  /** Files as before the restore, as after it, something else, or gone. @param {string} cwd */
  function census(cwd) {
    const counts = { before: 0, after: 0, other: 0, missing: 0 }
    for (const name of names) {
      const file = path.join(cwd, name)
      const content = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null
      if (content === null) counts.missing++
      else if (content === before(name)) counts.before++
      else if (content === after(name)) counts.after++
      else counts.other++
    }
    return counts
  }
}

/** What a restore left in the shadow repository's scratch folder. @param {string} home */
export function scratchLeftovers(home) {
  const scratch = path.join(home, 'snapshots', 'objects.git', 'tangent', 'scratch')
  return fs.existsSync(scratch) ? fs.readdirSync(scratch) : []
}
