// A client's MCP servers (`session.attachMcpServers`, docs/architecture.md §14.3), part of the
// session contract: real stdio servers (server-everything from node_modules) started by the
// runtime behind each front-end, their tools called by the demo model, their processes checked.
import crypto from 'node:crypto'
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import type { AttachedMcpServer } from '@tangent/protocol'
import type { SessionApi } from '@tangent/runtime'
import { describe, expect, it } from 'vitest'
import { isRunning, pidIn } from '../../packages/agent/src/mcp/stuck-server.test-helper.js'
import { type ContractFixture, failure, tempDir, waitFor } from './session-contract.js'

const everythingServer = path.join(
  path.dirname(
    createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/package.json'),
  ),
  'dist',
  'index.js',
)

/** server-everything in a process that first writes its pid to `PID_FILE` (so a test can watch it). */
const withPidFile = `require('node:fs').writeFileSync(process.env.PID_FILE, String(process.pid)); import(process.env.EVERYTHING)`

/** An editor's stdio server: server-everything, with its pid in a file and `env` added. */
function editorServer(name: string, env: Record<string, string> = {}) {
  const pidFile = path.join(tempDir('tangent-mcp-pid-'), 'pid')
  const server: AttachedMcpServer = {
    name,
    command: process.execPath,
    args: ['-e', withPidFile],
    env: { PID_FILE: pidFile, EVERYTHING: everythingServer, ...env },
  }
  return { server, pidFile }
}

/** The minimal environment every stdio MCP server gets (the MCP SDK's), before its own `env`. */
const minimalEnvironment = ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER']

/** Every file under `dir`, its contents (for "written nowhere" checks). */
function filesUnder(dir: string): { file: string; text: string }[] {
  if (!fs.existsSync(dir)) return []
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => {
      const file = path.join(entry.parentPath, entry.name)
      return { file, text: fs.readFileSync(file, 'latin1') }
    })
}

export function runAttachedMcpContract(fixture: () => ContractFixture): void {
  const api = () => fixture().api
  const turn = (sessionId: string, text: string) => api().call('session.prompt', { sessionId, text })
  const toolResults = async (sessionId: string) =>
    (await api().call('session.get', { sessionId })).events
      .filter((event) => event.type === 'tool/result')
      .map((event) => event.data as { toolName: string; output: string; isError: boolean })
  const userConfig = (config: unknown) => {
    const dir = path.join(fixture().homeDir, '.config', 'tangent')
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config))
  }
  /** A second client, closed by the test (or at its end). */
  const withClient = async (work: (client: SessionApi) => Promise<void>) => {
    const client = await fixture().connect()
    try {
      await work(client)
    } finally {
      await client.close()
    }
  }

  describe("a client's MCP servers (session.attachMcpServers)", () => {
    it('join the session under the same permission policy and naming, are never written down, and stop when the client goes', async () => {
      const secret = `editor-secret-${crypto.randomUUID()}`
      const { server, pidFile } = editorServer('editor', { EDITOR_TOKEN: secret })
      userConfig({ permission: { 'mcp__editor__*': 'ask' } })
      const session = await api().call('session.create', {})
      let pid = 0
      const client = await fixture().connect()
      try {
        expect(
          await client.call('session.attachMcpServers', { sessionId: session.id, servers: [server] }),
        ).toEqual({ attached: ['editor'], shadowed: [] })
        // Lazy: nothing runs until a turn asks for tools.
        expect(pidIn(pidFile)).toBeNull()
        // The session's servers serve every turn of it, whoever prompts.
        const running = turn(session.id, 'call mcp__editor__echo: {"message": "from the editor"}')
        const asked = await waitFor(async () => {
          const { events } = await api().call('session.get', { sessionId: session.id })
          const requested = events.find((event) => event.type === 'permission/requested')
          return requested ? (requested.data as { callId: string; toolName: string }) : false
        }, 60_000)
        expect(asked.toolName).toBe('mcp__editor__echo')
        await api().call('session.answerPermission', {
          sessionId: session.id,
          callId: asked.callId,
          decision: 'once',
        })
        expect((await running).reason).toBe('completed')
        expect(await toolResults(session.id)).toEqual([
          {
            callId: expect.any(String),
            toolName: 'mcp__editor__echo',
            output: 'Echo: from the editor',
            isError: false,
          },
        ])
        pid = pidIn(pidFile)!
        expect(isRunning(pid)).toBe(true)
        // The config (its env holds a secret) is in no log and no file of the data directory.
        const log = JSON.stringify((await api().call('session.get', { sessionId: session.id })).events)
        expect(log).not.toContain(secret)
        expect(log).not.toContain('EDITOR_TOKEN')
        const written = filesUnder(fixture().home).filter(({ text }) => text.includes(secret))
        expect(written.map(({ file }) => file)).toEqual([])
        // The walk reads the log where it is a file (JSONL): it holds the turn, not the config.
        const logFile = path.join(fixture().home, 'sessions', `${session.id}.jsonl`)
        if (fs.existsSync(logFile)) {
          expect(filesUnder(fixture().home).find(({ file }) => file === logFile)?.text).toContain(
            'Echo: from the editor',
          )
        }
      } finally {
        await client.close()
      }
      // The client's connection closed: its server's process is ended.
      await waitFor(async () => !isRunning(pid), 10_000)
      // And its tools are gone from the session's next turn.
      await turn(session.id, 'call mcp__editor__echo: {"message": "again"}')
      const after = (await toolResults(session.id)).at(-1)!
      expect(after.isError).toBe(true)
      expect(after.output).toMatch(/Unknown tool "mcp__editor__echo"/)
    }, 90_000)

    it('a server gets the minimal environment and what the client gave, none of Tangent’s', async () => {
      const probe = 'TANGENT_PROBE_SECRET_KEY'
      process.env[probe] = 'tangent-side-secret'
      try {
        await withClient(async (client) => {
          const session = await api().call('session.create', {})
          await client.call('session.attachMcpServers', {
            sessionId: session.id,
            servers: [
              {
                name: 'everything',
                command: process.execPath,
                args: [everythingServer, 'stdio'],
                env: { GIVEN: 'by-the-editor' },
              },
            ],
          })
          await turn(session.id, 'call mcp__everything__get-env: {}')
          const [result] = await toolResults(session.id)
          expect(result).toMatchObject({ toolName: 'mcp__everything__get-env', isError: false })
          const env = JSON.parse(result!.output) as Record<string, string>
          expect(env.GIVEN).toBe('by-the-editor')
          expect(env[probe]).toBeUndefined()
          expect(
            Object.keys(env).filter((key) => key !== 'GIVEN' && !minimalEnvironment.includes(key)),
          ).toEqual([])
        })
      } finally {
        delete process.env[probe]
      }
    }, 90_000)

    it('an attached server hides a config server of its name in that session only, and says so', async () => {
      const configFile = path.join(fixture().homeDir, '.config', 'tangent', 'config.json')
      userConfig({
        mcp: {
          servers: {
            everything: {
              command: process.execPath,
              args: [everythingServer, 'stdio'],
              env: { WHO: 'config' },
            },
          },
        },
      })
      await withClient(async (client) => {
        const attachedTo = await api().call('session.create', {})
        const other = await api().call('session.create', {})
        expect(
          await client.call('session.attachMcpServers', {
            sessionId: attachedTo.id,
            servers: [
              {
                name: 'everything',
                command: process.execPath,
                args: [everythingServer, 'stdio'],
                env: { WHO: 'editor' },
              },
            ],
          }),
        ).toEqual({ attached: ['everything'], shadowed: [{ name: 'everything', source: configFile }] })
        const who = async (sessionId: string) => {
          await turn(sessionId, 'call mcp__everything__get-env: {}')
          return (JSON.parse((await toolResults(sessionId)).at(-1)!.output) as { WHO?: string }).WHO
        }
        expect(await who(attachedTo.id)).toBe('editor')
        expect(await who(other.id)).toBe('config')
      })
    }, 90_000)

    it('attaching again keeps unchanged servers, stops changed ones; [] detaches; a deleted session stops its servers', async () => {
      await withClient(async (client) => {
        const session = await api().call('session.create', {})
        const first = editorServer('editor')
        const attach = (servers: AttachedMcpServer[], sessionId = session.id) =>
          client.call('session.attachMcpServers', { sessionId, servers })
        await attach([first.server])
        await turn(session.id, 'call mcp__editor__echo: {"message": "one"}')
        const pid = pidIn(first.pidFile)!
        expect(isRunning(pid)).toBe(true)
        // The same set again (an editor loading the session again): the process stays.
        await attach([first.server])
        await turn(session.id, 'call mcp__editor__echo: {"message": "two"}')
        expect(pidIn(first.pidFile)).toBe(pid)
        expect(isRunning(pid)).toBe(true)
        // A changed spec is another server: the old one stops, the new one starts on the next turn.
        const second = editorServer('editor', { CHANGED: '1' })
        await attach([second.server])
        await waitFor(async () => !isRunning(pid), 10_000)
        await turn(session.id, 'call mcp__editor__echo: {"message": "three"}')
        const secondPid = pidIn(second.pidFile)!
        expect(isRunning(secondPid)).toBe(true)
        expect((await toolResults(session.id)).map((result) => result.output)).toEqual([
          'Echo: one',
          'Echo: two',
          'Echo: three',
        ])
        expect(await attach([])).toEqual({ attached: [], shadowed: [] })
        await waitFor(async () => !isRunning(secondPid), 10_000)
        // Deleting the session ends what was attached to it, whoever attached it.
        const doomed = await api().call('session.create', {})
        const third = editorServer('editor')
        await attach([third.server], doomed.id)
        await turn(doomed.id, 'call mcp__editor__echo: {"message": "four"}')
        const thirdPid = pidIn(third.pidFile)!
        expect(isRunning(thirdPid)).toBe(true)
        await api().call('session.delete', { sessionId: doomed.id })
        await waitFor(async () => !isRunning(thirdPid), 10_000)
      })
    }, 120_000)

    it('a subagent of the session has its servers (the same process); another session has not', async () => {
      await withClient(async (client) => {
        const session = await api().call('session.create', {})
        const { server, pidFile } = editorServer('editor')
        await client.call('session.attachMcpServers', { sessionId: session.id, servers: [server] })
        await turn(session.id, 'call mcp__editor__echo: {"message": "parent"}')
        const pid = pidIn(pidFile)!
        const result = await turn(session.id, 'task: call mcp__editor__echo: {"message": "from a subagent"}')
        expect(result.reason).toBe('completed')
        const child = (await api().call('session.list', {})).find(
          (summary) => summary.parentSession === session.id && summary.origin === 'subagent',
        )!
        // Its own turn's result (the parent's first turn is its inherited prefix).
        expect((await toolResults(child.id)).at(-1)).toMatchObject({
          toolName: 'mcp__editor__echo',
          output: 'Echo: from a subagent',
          isError: false,
        })
        // The parent's server answered: no second process was started for the subagent.
        expect(pidIn(pidFile)).toBe(pid)
        const other = await api().call('session.create', {})
        await turn(other.id, 'call mcp__editor__echo: {"message": "elsewhere"}')
        expect((await toolResults(other.id))[0]!.output).toMatch(/Unknown tool "mcp__editor__echo"/)
      })
    }, 90_000)

    it('a server that does not start: the model gets an error result naming it, the turn completes', async () => {
      await withClient(async (client) => {
        const session = await api().call('session.create', {})
        await client.call('session.attachMcpServers', {
          sessionId: session.id,
          servers: [{ name: 'broken', command: 'tangent-no-such-mcp-server' }],
        })
        expect((await turn(session.id, 'call mcp__broken__echo: {"message": "hi"}')).reason).toBe('completed')
        const [result] = await toolResults(session.id)
        expect(result!.isError).toBe(true)
        expect(result!.output).toMatch(/MCP server "broken" is not available: .*ENOENT.*The tool did not run/)
      })
    }, 60_000)

    it('refuses bad servers with invalid-params naming the problem, and attaches nothing', async () => {
      const session = await api().call('session.create', {})
      const stdio = { command: process.execPath }
      const refused = async (servers: unknown[], expected: RegExp) => {
        const error = await failure(
          api().call('session.attachMcpServers', { sessionId: session.id, servers: servers as never }),
        )
        expect(error.code).toBe('invalid-params')
        expect(JSON.stringify(error.data)).toMatch(expected)
      }
      await refused([{ name: 'a__b', ...stdio }], /no \\"__\\"/)
      await refused([{ name: '../etc', ...stdio }], /1–32 letters, digits/)
      await refused([{ name: 'a/b', ...stdio }], /1–32 letters, digits/)
      await refused([{ name: '', ...stdio }], /1–32 letters, digits/)
      await refused([{ name: 'x'.repeat(33), ...stdio }], /1–32 letters, digits/)
      await refused([{ name: 'a', command: '' }], /"servers","0","command"/)
      await refused([{ name: 'a', command: 'node\0evil' }], /NUL/)
      await refused([{ name: 'a', url: 'file:///etc/passwd' }], /http:\/\/ or https:\/\//)
      await refused([{ name: 'a', url: 'javascript:alert(1)' }], /http:\/\/ or https:\/\//)
      await refused(
        [{ name: 'a', url: 'http://127.0.0.1:1/mcp', headers: { 'X-A': 'b\r\nInjected: 1' } }],
        /line break/,
      )
      await refused([{ name: 'a', ...stdio, cwd: '/' }], /cwd/)
      await refused([{ name: 'a', ...stdio, url: 'http://127.0.0.1:1/mcp' }], /\(stdio\) or \{name, url/)
      await refused(
        [
          { name: 'a', ...stdio },
          { name: 'a', ...stdio },
        ],
        /same name/,
      )
      await refused(
        Array.from({ length: 33 }, (_, index) => ({ name: `s${index}`, ...stdio })),
        /<=32 items/,
      )
      await refused([{ name: 'a', ...stdio, env: { 'A=B': 'x' } }], /no \\"=\\" and no NUL/)
      const many = Object.fromEntries(Array.from({ length: 257 }, (_, index) => [`V${index}`, 'x']))
      await refused([{ name: 'a', ...stdio, env: many }], /at most 256 entries/)
      const huge = { A: 'x'.repeat(150_000), B: 'y'.repeat(150_000) }
      await refused([{ name: 'a', ...stdio, env: huge }], /at most 262144 characters/)
      await refused([{ name: 'a', ...stdio, args: ['x'.repeat(40_000)] }], /<=32768 characters/)
      await refused(
        [{ name: 'a', ...stdio, args: Array(9).fill('x'.repeat(30_000)) }],
        /characters of arguments/,
      )
      await refused([{ name: 'a', url: 'http://127.0.0.1:1/mcp', headers: { 'X A': 'b' } }], /HTTP token/)
      expect(
        (
          await failure(
            api().call('session.attachMcpServers', {
              sessionId: 'NOSUCHSESSION',
              servers: [{ name: 'a', ...stdio }],
            }),
          )
        ).code,
      ).toBe('session-not-found')
      // Nothing was attached: the session offers no such tool.
      await turn(session.id, 'call mcp__a__echo: {}')
      expect((await toolResults(session.id))[0]!.output).toMatch(/Unknown tool "mcp__a__echo"/)
    })
  })
}
