import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createRequire } from 'node:module'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { McpConnection } from './mcp-connection.js'
import { isGoneSoon, isRunning, pidIn, stuckServer, waitForPid } from './stuck-server.test-helper.js'

// The real server from npm (a devDependency), started over stdio from node_modules.
const packageJson = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-everything/package.json',
)
const everything = path.join(path.dirname(packageJson), 'dist', 'index.js')
const server = { command: process.execPath, args: [everything, 'stdio'] }
const signal = new AbortController().signal

describe('McpConnection', () => {
  it('lists the tools of server-everything and calls echo', async () => {
    const connection = new McpConnection({ name: 'everything', server, workingDirectory: os.tmpdir() })
    try {
      const tools = await connection.start()
      expect(Object.keys(tools)).toContain('mcp__everything__echo')
      const echo = tools.mcp__everything__echo!
      expect(echo.inputJsonSchema).toMatchObject({ type: 'object' })
      const result = await echo.run({ message: 'hello mcp' }, { cwd: os.tmpdir(), signal })
      expect(result).toEqual({ output: 'Echo: hello mcp', isError: false })
      // The server validates the arguments: a bad call is an error result, not an exception.
      const bad = await echo.run({ nope: 1 }, { cwd: os.tmpdir(), signal })
      expect(bad.isError).toBe(true)
      // An abort stops the wait for a long call at once; a short call limit is an error result.
      const long = Object.entries(tools).find(([name]) => name.includes('long'))![1]
      const started = Date.now()
      await expect(
        long.run({ duration: 30, steps: 30 }, { cwd: os.tmpdir(), signal: AbortSignal.timeout(300) }),
      ).rejects.toThrow()
      expect(Date.now() - started).toBeLessThan(5_000)
    } finally {
      await connection.close()
    }
  })

  it('speaks Streamable HTTP to a running server-everything', async () => {
    const probe = net.createServer().listen(0, '127.0.0.1')
    await once(probe, 'listening')
    const port = (probe.address() as net.AddressInfo).port
    probe.close()
    const child = spawn(process.execPath, [everything, 'streamableHttp'], {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    const connection = new McpConnection({
      name: 'remote',
      server: { url: `http://127.0.0.1:${port}/mcp` },
      workingDirectory: os.tmpdir(),
    })
    try {
      let said = ''
      for await (const chunk of child.stderr) {
        said += String(chunk)
        if (said.includes('listening')) break
      }
      const tools = await connection.start()
      const result = await tools.mcp__remote__echo!.run(
        { message: 'over http' },
        { cwd: os.tmpdir(), signal },
      )
      expect(result).toEqual({ output: 'Echo: over http', isError: false })
    } finally {
      await connection.close()
      child.kill()
    }
  })

  it('a command that does not exist fails to start with a clear message', async () => {
    const connection = new McpConnection({
      name: 'missing',
      server: { command: 'tangent-no-such-mcp-server' },
      workingDirectory: os.tmpdir(),
    })
    await expect(connection.start()).rejects.toThrow(/ENOENT/)
  })

  it('a server that never answers times out on start, and its process is gone when start() fails', async () => {
    const stuck = stuckServer()
    const connection = new McpConnection({
      name: 'silent',
      server: stuck.server,
      workingDirectory: os.tmpdir(),
      startTimeoutMs: 500,
    })
    await expect(connection.start()).rejects.toThrow(/no answer within 500 ms/)
    const pid = pidIn(stuck.pidFile)
    // It may not have written its pid before it was stopped; if it did, it must be gone.
    if (pid !== null) expect(isRunning(pid)).toBe(false)
    expect(connection.pid).toBeGreaterThan(0)
    expect(isRunning(connection.pid!)).toBe(false)
  })

  it('close() ends a server that ignores SIGTERM, and the process group it made', async () => {
    const stuck = stuckServer({ stubborn: true, group: true })
    const connection = new McpConnection({
      name: 'stubborn',
      server: stuck.server,
      workingDirectory: os.tmpdir(),
      startTimeoutMs: 60_000,
    })
    const starting = connection.start()
    const [pid, child] = await Promise.all([waitForPid(stuck.pidFile), waitForPid(`${stuck.pidFile}.child`)])
    expect(isRunning(pid) && isRunning(child)).toBe(true)
    // Closed while it is still starting: start() fails, and nothing of it is left.
    await connection.close()
    await expect(starting).rejects.toThrow(/closed by Tangent/)
    expect(isRunning(pid)).toBe(false)
    // Its child holds none of Tangent's pipes: it goes with the group, not waited for.
    expect(await isGoneSoon(child)).toBe(true)
  })

  it('a server that dies mid-call gives an error result and reports once', async () => {
    const stopped: string[] = []
    // Answers initialize and tools/list, then exits on the first tools/call.
    const script = `
      const rl = require('node:readline').createInterface({ input: process.stdin })
      const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n')
      rl.on('line', (line) => {
        const m = JSON.parse(line)
        if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'dies', version: '1' } } })
        else if (m.method === 'tools/list') send({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'boom', inputSchema: { type: 'object' } }] } })
        else if (m.method === 'tools/call') { console.error('crashing now'); process.exit(3) }
      })`
    const connection = new McpConnection({
      name: 'dies',
      server: { command: process.execPath, args: ['-e', script] },
      workingDirectory: os.tmpdir(),
      onStopped: (message) => stopped.push(message),
    })
    try {
      const tools = await connection.start()
      const result = await tools.mcp__dies__boom!.run({}, { cwd: os.tmpdir(), signal })
      expect(result.isError).toBe(true)
      expect(result.output).toMatch(/MCP server "dies"/)
      expect(stopped).toHaveLength(1)
      expect(stopped[0]).toMatch(/the server stopped.*crashing now/)
      const again = await tools.mcp__dies__boom!.run({}, { cwd: os.tmpdir(), signal })
      expect(again.output).toMatch(/is not available/)
    } finally {
      await connection.close()
    }
  })
})
