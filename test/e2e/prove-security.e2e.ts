// Security (issue 6): the built `tangent serve` refuses requests without the token, with a
// wrong one, and WebSockets from a foreign Origin; every request whose Host is not its own (DNS
// rebinding) or whose Origin is foreign (issue 25); it binds loopback unless `--host` is given
// explicitly; tools in a real demo turn cannot leave the session's cwd (`..`, absolute, symlink).
import fs from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { connectRpc, spawnServe, tempDir } from '../soak/lib.mjs'

let root: string
let home: string
let work: string
let served: Awaited<ReturnType<typeof spawnServe>>

beforeAll(async () => {
  root = tempDir('tangent-security-')
  home = path.join(root, 'home')
  work = path.join(root, 'work')
  fs.mkdirSync(work)
  served = await spawnServe({ home, cwd: work })
}, 60_000)

afterAll(async () => {
  await served?.kill('SIGTERM')
  fs.rmSync(root, { recursive: true, force: true })
})

/** The status of a WebSocket upgrade: 101 when it opened, else the HTTP status of the refusal. */
function upgradeStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers })
    socket.once('open', () => {
      socket.close()
      resolve(101)
    })
    socket.once('unexpected-response', (_request, response) => {
      resolve(response.statusCode ?? 0)
      socket.terminate()
    })
    socket.once('error', (error) => reject(error))
  })
}

/** One HTTP request with exactly these headers (fetch would not let a test set `Host`). */
function rawRequest(
  port: number,
  options: { method: string; path: string; headers: Record<string, string>; body?: string },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port, method: options.method, path: options.path, headers: options.headers },
      (response) => {
        let body = ''
        response.setEncoding('utf8')
        response.on('data', (chunk) => {
          body += chunk
        })
        response.once('end', () => resolve({ status: response.statusCode ?? 0, body }))
      },
    )
    request.once('error', reject)
    request.end(options.body)
  })
}

function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port })
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

const externalAddress = Object.values(os.networkInterfaces())
  .flat()
  .find((address) => address && address.family === 'IPv4' && !address.internal)?.address

describe('prove: security', { timeout: 120_000 }, () => {
  it('HTTP /rpc: no token, a wrong token, the token elsewhere → 401; the right one → 200; /healthz is open', async () => {
    const url = `${served.info.url}/rpc`
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'host.info', params: {} })
    const statusWith = async (headers: Record<string, string>, target = url) =>
      (
        await fetch(target, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body,
        })
      ).status
    expect(await statusWith({})).toBe(401)
    expect(await statusWith({ authorization: 'Bearer wrong-token' })).toBe(401)
    expect(await statusWith({ authorization: `Bearer ${served.info.token}x` })).toBe(401)
    expect(await statusWith({ authorization: `Basic ${served.info.token}` })).toBe(401)
    expect(await statusWith({ authorization: 'Bearer ' })).toBe(401)
    expect(await statusWith({}, `${url}?token=${served.info.token}`)).toBe(401)
    const denied = await fetch(url, { method: 'POST', body })
    expect(await denied.json()).toMatchObject({ error: { data: { code: 'unauthorized' } } })
    expect(await statusWith({ authorization: `Bearer ${served.info.token}` })).toBe(200)
    const health = await fetch(`${served.info.url}/healthz`)
    expect([health.status, await health.text()]).toEqual([200, 'ok'])
  })

  it('WebSocket: no token, a wrong token → 401; a foreign Origin → 403; own origin and no origin open', async () => {
    const base = `ws://127.0.0.1:${served.info.port}/rpc`
    const good = `${base}?token=${encodeURIComponent(served.info.token)}`
    expect(await upgradeStatus(base)).toBe(401)
    expect(await upgradeStatus(`${base}?token=wrong`)).toBe(401)
    expect(await upgradeStatus(`${base}?token=`)).toBe(401)
    for (const origin of [
      'http://evil.example',
      `http://127.0.0.1:${served.info.port}.evil.example`,
      `http://127.0.0.1:${served.info.port + 1}`,
      `https://127.0.0.1:${served.info.port}`,
      'null',
      'file://',
    ])
      expect(await upgradeStatus(good, { origin }), origin).toBe(403)
    expect(await upgradeStatus(good, { origin: `http://127.0.0.1:${served.info.port}` })).toBe(101)
    expect(await upgradeStatus(good)).toBe(101)
  })

  it('DNS rebinding: a foreign Host or Origin with the right token → 403 on /rpc, the UI and the WebSocket; no session is made', async () => {
    const port = served.info.port
    const token = served.info.token
    const create = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session.create', params: {} })
    const rpc = (headers: Record<string, string>) =>
      rawRequest(port, {
        method: 'POST',
        path: '/rpc',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
        body: create,
      })
    const countSessions = async () => {
      const answer = await rawRequest(port, {
        method: 'POST',
        path: '/rpc',
        headers: { host: `127.0.0.1:${port}`, authorization: `Bearer ${token}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'session.list', params: {} }),
      })
      expect(answer.status).toBe(200)
      return (JSON.parse(answer.body).result as unknown[]).length
    }
    const before = await countSessions()
    for (const host of [
      `evil.example:${port}`,
      'evil.example',
      `127.0.0.1:${port + 1}`,
      `127.0.0.1.evil.example:${port}`,
    ]) {
      const refused = await rpc({ host })
      expect(refused.status, host).toBe(403)
      expect(JSON.parse(refused.body), host).toMatchObject({ error: { data: { code: 'foreign-origin' } } })
      expect(refused.body).toContain('DNS rebinding')
      // The page itself is refused too: a rebinding page gets no UI and no token from it.
      const page = await rawRequest(port, { method: 'GET', path: '/', headers: { host } })
      expect([page.status, page.body.includes('<html')], host).toEqual([403, false])
      const health = await rawRequest(port, { method: 'GET', path: '/healthz', headers: { host } })
      expect(health.status, host).toBe(403)
    }
    for (const origin of ['http://evil.example', `http://evil.example:${port}`, 'null']) {
      const refused = await rpc({ host: `127.0.0.1:${port}`, origin })
      expect(refused.status, origin).toBe(403)
      expect(refused.body).toContain('Origin')
    }
    const ws = `ws://127.0.0.1:${port}/rpc?token=${encodeURIComponent(token)}`
    expect(await upgradeStatus(ws, { host: `evil.example:${port}` })).toBe(403)
    expect(await countSessions()).toBe(before)

    // The Host's own names and pages work: loopback names with the port, its own Origin.
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`]) {
      const page = await rawRequest(port, { method: 'GET', path: '/', headers: { host } })
      expect([page.status, page.body.includes('<html')], host).toEqual([200, true])
    }
    const own = await rpc({ host: `localhost:${port}`, origin: `http://localhost:${port}` })
    expect(own.status).toBe(200)
    expect(await countSessions()).toBe(before + 1)
  })

  it('GET outside the web UI directory: encoded and raw `..` paths never serve files from elsewhere', async () => {
    const paths = [
      '/../../../../../../etc/passwd',
      '/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
      '/..%2f..%2f..%2f..%2f..%2f..%2fetc%2fpasswd',
      '/assets/..%2f..%2f..%2f..%2f..%2f..%2f..%2fetc%2fpasswd',
      '/%2e%2e%5c%2e%2e%5cetc%5cpasswd',
      '/%00/etc/passwd',
      `/${encodeURIComponent(home)}/host.json`,
      '/..%2f..%2fhome%2fhost.json',
    ]
    for (const target of paths) {
      // A raw request line: fetch would normalise the `..` away before sending.
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = net.connect({ host: '127.0.0.1', port: served.info.port })
        let text = ''
        socket.setEncoding('utf8')
        socket.on('data', (chunk) => {
          text += chunk
        })
        socket.once('end', () => resolve(text))
        socket.once('error', reject)
        socket.write(
          `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${served.info.port}\r\nConnection: close\r\n\r\n`,
        )
      })
      expect(answer, target).not.toMatch(/root:x?:0:0/)
      expect(answer, target).not.toContain(served.info.token)
    }
  })

  it('binds 127.0.0.1 by default: not reachable on a non-loopback address without --host', async () => {
    expect(served.info.url).toBe(`http://127.0.0.1:${served.info.port}`)
    expect(await canConnect('127.0.0.1', served.info.port)).toBe(true)
    if (!externalAddress) {
      console.warn(
        '[prove] security: no non-loopback IPv4 address on this machine; bind check limited to the URL',
      )
      return
    }
    expect(await canConnect(externalAddress, served.info.port)).toBe(false)
  })

  it('an explicit non-loopback --host binds it and warns on stderr', async () => {
    const explicitHome = path.join(root, 'explicit-home')
    const exposed = await spawnServe({ home: explicitHome, cwd: work, args: ['--host', '0.0.0.0'] })
    try {
      expect(exposed.stderr()).toMatch(/warning: binding 0\.0\.0\.0, not loopback/)
      if (externalAddress) expect(await canConnect(externalAddress, exposed.info.port)).toBe(true)
    } finally {
      await exposed.kill('SIGTERM')
    }
  }, 60_000)

  it('tools in a real turn cannot leave cwd: .., absolute paths, symlinked files and directories', async () => {
    const inside = path.join(work, 'inside')
    fs.mkdirSync(inside)
    const secret = path.join(work, 'secret.txt')
    fs.writeFileSync(secret, 'TOPSECRET\n')
    fs.writeFileSync(path.join(inside, 'ok.txt'), 'fine\n')
    fs.symlinkSync(secret, path.join(inside, 'link.txt'))
    fs.symlinkSync(work, path.join(inside, 'up'))
    const escapes = ['escape-1.txt', 'escape-2.txt', 'escape-3.txt'].map((name) => path.join(work, name))
    const prompt = [
      'read ../secret.txt',
      `read ${secret}`,
      'read link.txt',
      'read up/secret.txt',
      'read ./../inside/../../secret.txt',
      'write ../escape-1.txt: pwned',
      `write ${escapes[1]}: pwned`,
      'write up/escape-3.txt: pwned',
      'write link.txt: pwned',
      'append ../secret.txt: pwned',
      'read ok.txt',
    ].join('\n')
    const client = await connectRpc(served.info)
    try {
      const session = await client.call('session.create', { cwd: inside })
      const result = await client.call('session.prompt', { sessionId: session.id, text: prompt })
      expect(result.reason).toBe('completed')
      const { events } = await client.call('session.get', { sessionId: session.id })
      const results = events
        .filter((e) => e.type === 'tool/result')
        .map((e) => e.data as { output: unknown; isError: boolean })
      expect(results).toHaveLength(11)
      for (const [i, r] of results.slice(0, 10).entries()) {
        expect(r.isError, `call ${i + 1} refused: ${String(r.output)}`).toBe(true)
      }
      expect(results[10]).toMatchObject({ isError: false })
      expect(String(results[10]!.output)).toContain('fine')
      expect(JSON.stringify(events)).not.toContain('TOPSECRET')
      expect(fs.readFileSync(secret, 'utf8')).toBe('TOPSECRET\n')
      for (const file of escapes) expect(fs.existsSync(file), file).toBe(false)
    } finally {
      client.close()
    }
  }, 60_000)
})
