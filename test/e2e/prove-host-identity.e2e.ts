// A stale host.json whose pid was reused, with another program on its port: the CLI must not
// send that program the token. It checks the Host's identity first (`GET /healthz` with a
// challenge only the Host that wrote host.json can answer), then ignores the file.
import { once } from 'node:events'
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { discoveryFile, readHostDiscovery } from '@tangent/host'
import { afterEach, describe, expect, it } from 'vitest'
import { createSandbox, removeSandbox, type Sandbox, tangent } from './cli-harness.js'
import { startTestHost } from './host-harness.js'

const token = 'the-old-hosts-secret-token'

/** Another program on a port: answers `ok` to everything, upgrades included, and records every request. */
async function impostor(): Promise<{ url: string; port: number; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = []
  const record = (request: http.IncomingMessage) =>
    seen.push(`${request.method} ${request.url} ${JSON.stringify(request.headers)}`)
  const server = http.createServer((request, response) => {
    record(request)
    response.end('ok')
  })
  server.on('upgrade', (request, socket) => {
    record(request)
    socket.end('HTTP/1.1 500 Nope\r\nConnection: close\r\n\r\n')
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

let sandbox: Sandbox | null = null
afterEach(() => {
  if (sandbox) removeSandbox(sandbox)
  sandbox = null
})

describe('host.json identity', () => {
  it('a live pid and an answering port are not enough: the token never reaches another program', async () => {
    sandbox = createSandbox()
    const other = await impostor()
    try {
      // This test process stands for the process that reused the dead Host's pid.
      for (const file of [
        { pid: process.pid, port: other.port, token, url: other.url, instanceId: 'a'.repeat(32) },
        { pid: process.pid, port: other.port, token, url: other.url }, // written before instance ids
      ]) {
        fs.writeFileSync(discoveryFile(sandbox.home), JSON.stringify(file), { mode: 0o600 })
        for (const args of [
          ['sessions', '--json'],
          ['run', 'hello', '--json'],
        ]) {
          const result = await tangent(sandbox, args)
          expect(other.seen.join('\n')).not.toContain(token)
          expect(result.stderr).toBe('')
          expect(result.code).toBe(0)
          fs.writeFileSync(discoveryFile(sandbox.home), JSON.stringify(file), { mode: 0o600 })
        }
        expect(await readHostDiscovery(sandbox.home)).toBeNull()
      }
    } finally {
      await other.close()
    }
    // Four CLI processes, each waiting for the impostor's answer: generous on a loaded machine.
  }, 90_000)

  it('the Host that wrote host.json proves it, and commands go through it', async () => {
    const t = await startTestHost()
    try {
      const file = JSON.parse(fs.readFileSync(discoveryFile(t.home), 'utf8')) as { instanceId: string }
      expect(file.instanceId.length).toBeGreaterThanOrEqual(16)
      expect(await readHostDiscovery(t.home)).toEqual({
        pid: process.pid,
        port: t.host.port,
        token: t.host.token,
        url: t.host.url,
      })
      // Another instance id in the file (a Host that has gone, same port reused by a new one): ignored.
      fs.writeFileSync(discoveryFile(t.home), JSON.stringify({ ...file, instanceId: 'b'.repeat(32) }))
      expect(await readHostDiscovery(t.home)).toBeNull()
      fs.writeFileSync(discoveryFile(t.home), JSON.stringify(file))
      // A command that writes goes through it (without it, this Host's writer lock would refuse it).
      const run = await tangent(
        { home: t.home, cwd: t.work, env: { ...process.env, TANGENT_HOME: t.home } },
        ['run', 'hello', '--json'],
      )
      expect(run.stderr).toBe('')
      const { sessionId } = JSON.parse(run.stdout) as { sessionId: string }
      expect((await t.call('session.get', { sessionId })).session.id).toBe(sessionId)
    } finally {
      await t.close()
    }
  })
})
