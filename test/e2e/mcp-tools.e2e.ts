// MCP servers that fail (docs/architecture.md §14.3): a command that does not exist, a server that
// never answers, and project servers the user has not trusted. Each gives the model an error result
// and the user one line, and the turn completes.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { inProcessApi, Runtime } from '@tangent/runtime'
import { afterEach, describe, expect, it } from 'vitest'
import { isRunning, stuckServer, waitForPid } from '../../packages/agent/src/mcp/stuck-server.test-helper.js'
import { createSandbox, removeSandbox, tangent } from './cli-harness.js'

const everythingServer = path.join(
  path.dirname(
    createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json'),
  ),
  'dist',
  'index.js',
)

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

async function open(config: { user?: unknown; project?: unknown }) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-mcp-'))
  const start = path.join(root, 'project')
  const homeDir = path.join(root, 'home')
  fs.mkdirSync(path.join(start, '.git'), { recursive: true })
  const write = (file: string, value: unknown) => {
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, JSON.stringify(value))
  }
  if (config.user) write(path.join(homeDir, '.config', 'tangent', 'config.json'), config.user)
  if (config.project) write(path.join(start, '.tangent', 'config.json'), config.project)
  const reports: string[] = []
  const runtime = await Runtime.open({
    home: path.join(root, 'data'),
    startFolder: start,
    homeDir,
    env: {},
    report: (line) => reports.push(String(line)),
  })
  cleanups.push(async () => {
    await runtime.close()
    fs.rmSync(root, { recursive: true, force: true })
  })
  const api = inProcessApi(runtime)
  const turn = async (text: string) => {
    const session = await api.call('session.create', {})
    const result = await api.call('session.prompt', { sessionId: session.id, text })
    const { events } = await api.call('session.get', { sessionId: session.id })
    const results = events
      .filter((event) => event.type === 'tool/result')
      .map((event) => event.data as { toolName: string; output: string; isError: boolean })
    return { reason: result.reason, results }
  }
  return { runtime, reports, turn, start }
}

const echo = 'call mcp__everything__echo: {"message": "hi"}'

describe('MCP tools', () => {
  it('a server whose command does not exist: an error result, one line for the user, the turn completes', async () => {
    const { reports, turn } = await open({
      user: { mcp: { servers: { broken: { command: 'tangent-no-such-mcp-server' } } } },
    })
    const { reason, results } = await turn('call mcp__broken__echo: {"message": "hi"}')
    expect(reason).toBe('completed')
    expect(results).toHaveLength(1)
    expect(results[0]!.isError).toBe(true)
    expect(results[0]!.output).toMatch(/MCP server "broken" is not available: .*ENOENT.*The tool did not run/)
    expect(reports.filter((line) => line.includes('MCP'))).toHaveLength(1)
    expect(reports[0]).toMatch(/MCP server "broken" \(.*config\.json\) did not start: .*ENOENT/)
    // A later call soon after gets the same answer without starting it again, nor repeats the line.
    const again = await turn('call mcp__broken__echo: {"message": "again"}')
    expect(again.reason).toBe('completed')
    expect(again.results[0]!.output).toMatch(/MCP server "broken" is not available/)
    expect(reports.filter((line) => line.includes('MCP'))).toHaveLength(1)
  })

  it('a server that never answers times out on start; the other servers still work', async () => {
    const { reports, turn } = await open({
      user: {
        mcp: {
          servers: {
            silent: {
              command: process.execPath,
              args: ['-e', 'setInterval(() => {}, 1000)'],
              startTimeoutMs: 500,
            },
            everything: { command: process.execPath, args: [everythingServer, 'stdio'] },
          },
        },
      },
    })
    const { reason, results } = await turn(`call mcp__silent__anything: {}\n${echo}`)
    expect(reason).toBe('completed')
    expect(results.map((result) => [result.isError, result.output])).toEqual([
      [true, expect.stringMatching(/MCP server "silent" is not available: no answer within 500 ms/)],
      [false, 'Echo: hi'],
    ])
    expect(reports).toEqual([
      expect.stringMatching(/MCP server "silent" .* did not start: no answer within 500 ms/),
    ])
  })

  it('project servers start only when the user config trusts them', async () => {
    const project = {
      mcp: { servers: { everything: { command: process.execPath, args: [everythingServer, 'stdio'] } } },
    }
    const untrusted = await open({ project })
    const refused = await untrusted.turn(echo)
    expect(refused.results[0]!.isError).toBe(true)
    expect(refused.results[0]!.output).toMatch(
      /MCP server "everything" is not available: a project server: not started until the user config trusts/,
    )
    expect(untrusted.reports).toEqual([
      expect.stringMatching(/"everything" of .* are not started: add "mcp": \{"trustProjectServers"/),
    ])
    expect(await untrusted.runtime.mcp.list(untrusted.start)).toEqual([
      expect.objectContaining({ name: 'everything', transport: 'stdio', scope: 'project', enabled: false }),
    ])

    const trusted = await open({ project, user: { mcp: { trustProjectServers: true } } })
    const ran = await trusted.turn(echo)
    expect(ran.results).toEqual([
      { callId: expect.any(String), toolName: 'mcp__everything__echo', output: 'Echo: hi', isError: false },
    ])
    expect(trusted.reports).toEqual([])
  })

  it("a client's server that does not start: one line for the user, an error result, and a config server it hides is named once", async () => {
    const { runtime, reports } = await open({
      user: {
        mcp: { servers: { everything: { command: process.execPath, args: [everythingServer, 'stdio'] } } },
      },
    })
    const api = inProcessApi(runtime)
    const session = await api.call('session.create', {})
    const servers = [
      { name: 'broken', command: 'tangent-no-such-mcp-server' },
      { name: 'everything', url: 'http://127.0.0.1:9/mcp' },
    ]
    const attached = await api.call('session.attachMcpServers', { sessionId: session.id, servers })
    // Attached again (an editor loading the session again): the same answer, the line not repeated.
    expect(await api.call('session.attachMcpServers', { sessionId: session.id, servers })).toEqual(attached)
    expect(attached.shadowed).toEqual([
      { name: 'everything', source: expect.stringMatching(/config\.json$/) },
    ])
    expect(reports).toEqual([
      expect.stringMatching(
        /MCP server "everything" of .*config\.json is not used in session .*: a client attached/,
      ),
    ])
    const result = await api.call('session.prompt', {
      sessionId: session.id,
      text: 'call mcp__broken__echo: {"message": "hi"}\ncall mcp__everything__echo: {"message": "hi"}',
    })
    expect(result.reason).toBe('completed')
    const { events } = await api.call('session.get', { sessionId: session.id })
    const results = events
      .filter((event) => event.type === 'tool/result')
      .map((event) => event.data as { output: string; isError: boolean })
    // The config's "everything" did not run in its stead: the attached one (nothing listens on port 9) failed.
    expect(results.map((item) => [item.isError, item.output])).toEqual([
      [true, expect.stringMatching(/MCP server "broken" is not available: .*ENOENT.*The tool did not run/)],
      [true, expect.stringMatching(/MCP server "everything" is not available: .*The tool did not run/)],
    ])
    const lines = reports.filter((line) => line.includes('did not start')).sort()
    expect(lines).toEqual([
      expect.stringMatching(/^MCP server "broken" \(attached by a client\) did not start: .*ENOENT/),
      expect.stringMatching(/^MCP server "everything" \(attached by a client\) did not start: /),
    ])
  })

  it("a client's HTTP server (Streamable HTTP on loopback) serves the session (headers accepted)", async () => {
    const port = await freePort()
    const server = spawn(process.execPath, [everythingServer, 'streamableHttp'], {
      env: { PATH: process.env.PATH, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    cleanups.push(async () => {
      server.kill()
    })
    await new Promise<void>((resolve, reject) => {
      server.stderr.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('listening')) resolve()
      })
      server.once('exit', () => reject(new Error('the HTTP MCP server exited')))
    })
    const { runtime } = await open({})
    const api = inProcessApi(runtime)
    const session = await api.call('session.create', {})
    await api.call('session.attachMcpServers', {
      sessionId: session.id,
      servers: [{ name: 'web', url: `http://127.0.0.1:${port}/mcp`, headers: { 'X-Editor': 'zed' } }],
    })
    await api.call('session.prompt', {
      sessionId: session.id,
      text: 'call mcp__web__echo: {"message": "over http"}',
    })
    const { events } = await api.call('session.get', { sessionId: session.id })
    expect(events.find((event) => event.type === 'tool/result')?.data).toMatchObject({
      toolName: 'mcp__web__echo',
      output: 'Echo: over http',
      isError: false,
    })
  })

  it('a server still starting when the runtime closes is ended with it', async () => {
    const stuck = stuckServer({ stubborn: true })
    const { runtime, start } = await open({
      user: { mcp: { servers: { slow: { ...stuck.server, startTimeoutMs: 60_000 } } } },
    })
    // An aborted ask does not wait for the start: the server is left starting, as a turn would.
    const asked = new AbortController()
    const tools = runtime.mcp.tools(start, asked.signal)
    const pid = await waitForPid(stuck.pidFile)
    asked.abort()
    expect(await tools).toEqual({})
    await runtime.close()
    expect(isRunning(pid)).toBe(false)
  })

  it('`tangent run` leaves no server behind when one misses its start timeout', async () => {
    const sandbox = createSandbox()
    cleanups.push(async () => removeSandbox(sandbox))
    const stuck = stuckServer({ stubborn: true })
    const configFile = path.join(sandbox.env.XDG_CONFIG_HOME!, 'tangent', 'config.json')
    fs.mkdirSync(path.dirname(configFile), { recursive: true })
    fs.writeFileSync(
      configFile,
      JSON.stringify({ mcp: { servers: { slow: { ...stuck.server, startTimeoutMs: 500 } } } }),
    )
    const result = await tangent(sandbox, ['run', 'hello'])
    expect(result.code).toBe(0)
    expect(result.stderr).toMatch(/MCP server "slow" .* did not start: no answer within 500 ms/)
    const pid = await waitForPid(stuck.pidFile)
    expect(isRunning(pid)).toBe(false)
  })
})

/** A port nothing listens on now (taken from the kernel on loopback, then let go). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo
      probe.close(() => resolve(port))
    })
  })
}
