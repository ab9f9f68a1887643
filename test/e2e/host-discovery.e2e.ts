// The discovery file and process-level behaviour of a Host: host.json (0600, removed on
// close, stale ones ignored), the writer lock, connectHost.
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import fs from 'node:fs'
import path from 'node:path'
import { connectHost, discoveryFile, readHostDiscovery, startHost } from '@tangent/host'
import { afterEach, describe, expect, it } from 'vitest'
import { removeTempDirs, startTestHost, type TestHost, tempDir, waitFor } from './host-harness.js'

const hosts: TestHost[] = []
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close()
  removeTempDirs()
})

describe('host discovery', () => {
  it('writes host.json readable only by the user and removes it on close', async () => {
    const t = await startTestHost()
    hosts.push(t)
    const file = discoveryFile(t.home)
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    const found = await readHostDiscovery(t.home)
    expect(found).toEqual({ pid: process.pid, port: t.host.port, token: t.host.token, url: t.host.url })
    await t.stop()
    expect(fs.existsSync(file)).toBe(false)
    expect(await readHostDiscovery(t.home)).toBeNull()
  })

  it('ignores a stale file: dead pid, or a live pid whose port does not answer', async () => {
    const home = tempDir()
    const dead = spawnSync(process.execPath, ['-e', '0']).pid ?? 999999
    const write = (pid: number, port: number) =>
      fs.writeFileSync(
        discoveryFile(home),
        JSON.stringify({ pid, port, token: 'stale', url: `http://127.0.0.1:${port}` }),
        { mode: 0o600 },
      )
    write(dead, 4317)
    expect(await readHostDiscovery(home)).toBeNull()
    // A live pid but nothing listening: port of a Host that has gone.
    const gone = await startTestHost()
    const port = gone.host.port
    await gone.close()
    write(process.pid, port)
    expect(await readHostDiscovery(home)).toBeNull()
    fs.writeFileSync(discoveryFile(home), 'not json')
    expect(await readHostDiscovery(home)).toBeNull()
    fs.rmSync(home, { recursive: true, force: true })
  })

  it('removes host.json when the process gets SIGTERM or SIGINT', async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const home = tempDir()
      const script = `import('@tangent/host').then(async ({ startHost }) => {
        const host = await startHost({ home: ${JSON.stringify(home)}, port: 0, env: {} })
        process.stdout.write(JSON.stringify({ url: host.url }) + '\\n')
      })`
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
        cwd: path.resolve(import.meta.dirname, '../..'),
        stdio: ['ignore', 'pipe', 'inherit'],
      })
      const [line] = (await once(child.stdout, 'data')) as [Buffer]
      expect(JSON.parse(String(line)).url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      expect((await readHostDiscovery(home))?.pid).toBe(child.pid)
      child.kill(signal)
      const [code] = (await once(child, 'exit')) as [number | null]
      expect(code).toBe(signal === 'SIGINT' ? 130 : 143)
      expect(fs.existsSync(discoveryFile(home))).toBe(false)
      fs.rmSync(home, { recursive: true, force: true })
    }
  })

  it('after a crash mid-turn: the stale host.json is ignored and the next Host closes the turn as interrupted', async () => {
    const home = tempDir()
    const work = fs.realpathSync(tempDir('tangent-work-'))
    const script = `import('@tangent/host').then(async ({ startHost }) => {
      const host = await startHost({ home: ${JSON.stringify(home)}, port: 0, env: {}, demoDelayMs: 50, defaultCwd: ${JSON.stringify(work)} })
      process.stdout.write(JSON.stringify({ url: host.url, token: host.token }) + '\\n')
    })`
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      cwd: path.resolve(import.meta.dirname, '../..'),
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    const [line] = (await once(child.stdout, 'data')) as [Buffer]
    const client = await connectHost(JSON.parse(String(line)) as { url: string; token: string })
    const session = await client.call('session.create', {})
    // The first delta means the model call began, so the turn's opening events were flushed.
    let streaming = false
    client.onNotification('session.delta', () => {
      streaming = true
    })
    await client.call('session.subscribe', { sessionId: session.id })
    const turn = client
      .call('session.prompt', { sessionId: session.id, text: 'a long story '.repeat(20) })
      .then(
        () => 'ended',
        (error: { data?: { code?: string } }) => error.data?.code,
      )
    await waitFor(() => streaming, 'the first delta')
    child.kill('SIGKILL')
    await once(child, 'exit')
    expect(await turn).toBe('connection-closed')
    expect(fs.existsSync(discoveryFile(home))).toBe(true)
    expect(await readHostDiscovery(home)).toBeNull()

    const next = await startTestHost({ home })
    hosts.push(next)
    const log = await next.call('session.get', { sessionId: session.id })
    expect(log.session.status).toBe('idle')
    expect(log.events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'interrupted' } })
    // The repaired session takes a new turn.
    expect((await next.call('session.prompt', { sessionId: session.id, text: 'again' })).reason).toBe(
      'completed',
    )
    fs.rmSync(work, { recursive: true, force: true })
  })

  it('holds the writer lock: a second Host on the same home is refused with store-locked', async () => {
    const t = await startTestHost()
    hosts.push(t)
    const second = await startHost({ home: t.home, port: 0, handleSignals: false }).catch(
      (error: unknown) => error,
    )
    expect(second).toMatchObject({ code: 'store-locked' })
    // The first Host's discovery file is untouched.
    expect((await readHostDiscovery(t.home))?.token).toBe(t.host.token)
  })

  it('says port-in-use when the port is taken', async () => {
    const t = await startTestHost()
    hosts.push(t)
    const home = tempDir()
    const error = await startHost({ home, port: t.host.port, handleSignals: false }).catch(
      (caught: unknown) => caught,
    )
    expect(error).toMatchObject({ code: 'port-in-use' })
    // The data dir was released: a Host on a free port opens it.
    const next = await startHost({ home, port: 0, handleSignals: false })
    await next.close()
    fs.rmSync(home, { recursive: true, force: true })
  })

  it('uses TANGENT_TOKEN when set, a fresh random token otherwise', async () => {
    const fixed = await startTestHost({ env: { TANGENT_TOKEN: 'fixed-token-for-test' } })
    hosts.push(fixed)
    expect(fixed.host.token).toBe('fixed-token-for-test')
    const random = await startTestHost()
    hosts.push(random)
    expect(random.host.token).toMatch(/^[A-Za-z0-9_-]{32}$/)
  })

  it('connectHost talks to a Host and fails clearly with a wrong token', async () => {
    const t = await startTestHost()
    hosts.push(t)
    const client = await connectHost({ url: t.host.url, token: t.host.token })
    expect((await client.call('host.info')).dataDir).toBe(t.home)
    client.close()
    const refused = await connectHost({ url: t.host.url, token: 'wrong' }).catch((error: unknown) => error)
    expect(refused).toMatchObject({ code: 'host-unreachable' })
    expect(String((refused as Error).message)).toContain('401')
  })

  it('keeps workspaces across restarts in workspaces.json', async () => {
    const t = await startTestHost()
    hosts.push(t)
    const workspace = await t.call('workspace.open', { path: t.work })
    await t.restart()
    expect(await t.call('workspace.list')).toEqual([workspace])
    expect(JSON.parse(fs.readFileSync(path.join(t.home, 'workspaces.json'), 'utf8')).workspaces).toEqual([
      workspace,
    ])
  })
})
