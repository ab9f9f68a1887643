// The CLI when the Host dies under it (issue 6): `tangent run` going through a live Host gets a
// clear one-line error and exit 1 when the Host is SIGKILLed mid-turn; afterwards the stale
// host.json is ignored, the dead Host's lock taken over, and the interrupted turn is closed.
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { cliMain, hostEnv, sleep, spawnServe, tempDir } from '../soak/lib.mjs'

describe('prove: the CLI when the Host is killed', () => {
  it('tangent run through a Host killed mid-turn: one line, exit 1; then the CLI works on the data dir', async () => {
    const root = tempDir('tangent-cli-crash-')
    const home = path.join(root, 'home')
    const work = path.join(root, 'work')
    fs.mkdirSync(work)
    try {
      const host = await spawnServe({ home, cwd: work, env: { TANGENT_DEMO_DELAY_MS: '20' } })
      const run = spawn(process.execPath, [cliMain, 'run', '--json', 'run: sleep 3; echo done'], {
        cwd: work,
        env: hostEnv(home),
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let stderr = ''
      run.stderr.setEncoding('utf8')
      run.stderr.on('data', (chunk: string) => {
        stderr += chunk
      })
      // Kill once the turn is in the log (the bash call is running).
      const sessionsDir = path.join(home, 'sessions')
      for (let i = 0; i < 1000; i++) {
        const logs = fs.existsSync(sessionsDir)
          ? fs.readdirSync(sessionsDir).filter((n) => n.endsWith('.jsonl'))
          : []
        if (
          logs.some((name) => fs.readFileSync(path.join(sessionsDir, name), 'utf8').includes('"tool-call"'))
        )
          break
        await sleep(20)
      }
      await host.kill('SIGKILL')
      const [code] = (await once(run, 'exit')) as [number | null]
      expect(code).toBe(1)
      expect(stderr).toMatch(/^error\[[a-z-]+\]: [^\n]+\n$/)
      expect(fs.existsSync(path.join(home, 'host.json'))).toBe(true) // stale: the Host had no chance to remove it

      // The stale discovery file is ignored and the dead writer's lock taken over.
      const listed = spawnSync(process.execPath, [cliMain, 'sessions', '--json'], {
        cwd: work,
        env: hostEnv(home),
        encoding: 'utf8',
      })
      expect(listed.status, listed.stderr).toBe(0)
      const sessions = JSON.parse(listed.stdout) as { id: string }[]
      expect(sessions).toHaveLength(1)
      // A writer (run) repairs the log on load: the killed turn is closed as interrupted.
      const again = spawnSync(
        process.execPath,
        [cliMain, 'run', '--json', '--session', sessions[0]!.id, 'hello again'],
        {
          cwd: work,
          env: hostEnv(home),
          encoding: 'utf8',
        },
      )
      expect(again.status, again.stderr).toBe(0)
      expect(JSON.parse(again.stdout)).toMatchObject({ reason: 'completed' })
      const shown = spawnSync(process.execPath, [cliMain, 'show', '--json', sessions[0]!.id], {
        cwd: work,
        env: hostEnv(home),
        encoding: 'utf8',
      })
      expect(shown.status, shown.stderr).toBe(0)
      const { events } = JSON.parse(shown.stdout) as { events: { type: string; data: { reason?: string } }[] }
      const reasons = events.filter((e) => e.type === 'turn/end').map((e) => e.data.reason)
      expect(reasons).toEqual(['interrupted', 'completed'])
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  }, 120_000)
})
