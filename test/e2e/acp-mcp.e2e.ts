// `tangent acp` with an editor's stdio MCP server (docs/architecture.md §14.2, §14.3): on its own and
// through a running Host. The server (server-everything, writing its pid) runs under whoever holds
// the runtime, serves the session's turn with the editor's env and none of Tangent's, and ends when
// the editor's agent process goes; an SSE server is refused with invalid params.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { Readable, Writable } from 'node:stream'
import * as acp from '@agentclientprotocol/sdk/unstable'
import { expect, it } from 'vitest'
import { isRunning, pidIn } from '../../packages/agent/src/mcp/stuck-server.test-helper.js'
import { cliMain, createSandbox, removeSandbox, startProcess, stopProcess } from './cli-harness.js'

const everything = path.join(
  path.dirname(
    createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json'),
  ),
  'dist',
  'index.js',
)

for (const viaHost of [false, true])
  it(`an editor's stdio MCP server serves the session and ends with the editor${viaHost ? ', through a Host' : ''}`, async () => {
    const sandbox = createSandbox()
    const serve = viaHost
      ? (
          await startProcess(process.execPath, [cliMain, 'serve', '--port', '0', '--json'], {
            cwd: sandbox.cwd,
            env: sandbox.env,
            ready: /token/,
          })
        ).child
      : null
    const child = spawn(process.execPath, [cliMain, 'acp'], {
      cwd: sandbox.cwd,
      env: { ...sandbox.env, SOME_API_KEY: 'tangent-side' } as NodeJS.ProcessEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    const updates: acp.SessionNotification[] = []
    const app = acp
      .client({ name: 'tangent-test' })
      .onNotification(acp.methods.client.session.update, ({ params }) => void updates.push(params))
      .onRequest(acp.methods.client.session.requestPermission, () => ({
        outcome: { outcome: 'selected', optionId: 'once' },
      }))
    const connection = app.connect(
      acp.ndJsonStream(
        Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
        Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
      ),
    )
    const agent = connection.agent
    const init = await agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {},
    })
    expect(init.agentCapabilities?.mcpCapabilities).toEqual({ http: true, sse: false })
    const pidFile = path.join(sandbox.home, '..', 'pid')
    const wrapper = `require('node:fs').writeFileSync(process.env.PID_FILE, String(process.pid)); import(process.env.EVERYTHING)`
    const created = await agent.request(acp.methods.agent.session.new, {
      cwd: sandbox.cwd,
      mcpServers: [
        {
          name: 'Zed Everything',
          command: process.execPath,
          args: ['-e', wrapper],
          env: [
            { name: 'PID_FILE', value: pidFile },
            { name: 'EVERYTHING', value: everything },
          ],
        },
      ],
    })
    const bad = await agent
      .request(acp.methods.agent.session.new, {
        cwd: sandbox.cwd,
        mcpServers: [{ type: 'sse', name: 'old', url: 'http://127.0.0.1:1/sse', headers: [] }],
      })
      .catch((error) => error)
    expect(bad.code).toBe(-32602)
    const prompt = await agent.request(acp.methods.agent.session.prompt, {
      sessionId: created.sessionId,
      prompt: [{ type: 'text', text: 'call mcp__Zed-Everything__get-env: {}' }],
    })
    expect(prompt.stopReason).toBe('end_turn')
    const done = updates.find(
      (n) =>
        n.update.sessionUpdate === 'tool_call_update' &&
        (n.update as { status?: string }).status === 'completed',
    )
    const text = JSON.stringify(done)
    expect(text).toContain('PID_FILE')
    expect(text).not.toContain('SOME_API_KEY')
    const pid = pidIn(pidFile)!
    expect(isRunning(pid)).toBe(true)
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
    expect(ppid).toBe(viaHost ? serve!.pid : child.pid)
    connection.close()
    child.stdin!.end()
    await new Promise((resolve) => child.once('exit', resolve))
    // Through a Host the server ends when the Host sees the connection close: a moment later.
    for (let i = 0; i < 100 && isRunning(pid); i++) await new Promise((resolve) => setTimeout(resolve, 50))
    expect(isRunning(pid)).toBe(false)
    if (serve) {
      expect(serve.exitCode).toBe(null)
      await stopProcess(serve)
    }
    removeSandbox(sandbox)
  }, 60_000)
