// `tangent acp` driven as a child process by ACP clients that are not ours: the SDK's client
// (@agentclientprotocol/sdk) and acpx from npm (docs/architecture.md §14.2).
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Readable, Writable } from 'node:stream'
import { promisify } from 'node:util'
import * as acp from '@agentclientprotocol/sdk/unstable'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeProviderServer } from '../../packages/agent/src/testing/fake-provider-server.js'
import {
  cliMain,
  createSandbox,
  removeSandbox,
  type Sandbox,
  startProcess,
  stopProcess,
  tangentJson,
} from './cli-harness.js'

interface SessionRow {
  id: string
  parentSession: string | null
  forkedAt: number | null
  cwd: string
}

interface AcpAgentProcess {
  child: ChildProcess
  agent: acp.ClientContext
  updates: acp.SessionNotification[]
  permissionAnswer: string
  /** The session/request_permission requests the agent made. */
  permissionRequests: acp.RequestPermissionRequest[]
  stderr: () => string
  close(): Promise<void>
}

/** Starts `tangent acp` and connects the SDK's client to its stdio. */
async function startAcp(sandbox: Sandbox, env: Record<string, string> = {}): Promise<AcpAgentProcess> {
  const child = spawn(process.execPath, [cliMain, 'acp'], {
    cwd: sandbox.cwd,
    env: { ...sandbox.env, ...env } as NodeJS.ProcessEnv,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
  })
  const updates: acp.SessionNotification[] = []
  const handle: AcpAgentProcess = {
    child,
    agent: undefined as unknown as acp.ClientContext,
    updates,
    permissionAnswer: 'once',
    permissionRequests: [],
    stderr: () => stderr,
    async close() {
      connection.close()
      child.stdin!.end()
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
      const timer = setTimeout(() => void stopProcess(child), 10_000)
      if (child.exitCode === null) await exited
      clearTimeout(timer)
    },
  }
  const app = acp
    .client({ name: 'tangent-test' })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params)
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      expect(params.options.map((option) => option.optionId)).toEqual(['once', 'always', 'deny'])
      handle.permissionRequests.push(params)
      if (handle.permissionAnswer === 'never') return new Promise<never>(() => {})
      return { outcome: { outcome: 'selected', optionId: handle.permissionAnswer } }
    })
  const stream = acp.ndJsonStream(
    Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
  )
  const connection = app.connect(stream)
  handle.agent = connection.agent
  const init = await handle.agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: {},
  })
  expect(init.agentCapabilities?.loadSession).toBe(true)
  expect(init.agentCapabilities?.sessionCapabilities?.fork).toBeDefined()
  return handle
}

function texts(updates: readonly acp.SessionNotification[], kind: string): string {
  return updates
    .filter((n) => n.update.sessionUpdate === kind)
    .map((n) => {
      const update = n.update as { content: { type: string; text?: string } }
      return update.content.text ?? ''
    })
    .join('')
}

describe('tangent acp with the SDK client', () => {
  let sandbox: Sandbox
  let sessionId = ''
  let firstTurn = { turnStartSeq: -1, turnEndSeq: -1 }
  let secondTurn = { turnStartSeq: -1, turnEndSeq: -1 }

  beforeAll(() => {
    sandbox = createSandbox()
  })
  afterAll(() => removeSandbox(sandbox))

  it('creates a session, streams a prompt, shows tool calls, bridges a permission and cancels', async () => {
    const agent = await startAcp(sandbox, { TANGENT_DEMO_DELAY_MS: '60' })
    try {
      const created = await agent.agent.request(acp.methods.agent.session.new, {
        cwd: sandbox.cwd,
        mcpServers: [],
      })
      sessionId = created.sessionId
      const model = created.configOptions?.find((option) => option.id === 'model')
      expect(model && 'currentValue' in model ? model.currentValue : null).toBe('demo:scripted')

      // A prompt: the reply streams as several chunks, then end_turn.
      const hello = await agent.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'hello' }],
      })
      expect(hello.stopReason).toBe('end_turn')
      firstTurn = hello._meta?.tangent as typeof firstTurn
      const chunks = agent.updates.filter((n) => n.update.sessionUpdate === 'agent_message_chunk')
      expect(chunks.length).toBeGreaterThan(1)
      expect(texts(agent.updates, 'agent_message_chunk')).toBe('Turn 1: you said "hello".')

      // A tool call: tool_call (pending), then tool_call_update (completed) with its result.
      agent.updates.length = 0
      const write = await agent.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'write notes.txt: hi' }],
      })
      expect(write.stopReason).toBe('end_turn')
      secondTurn = write._meta?.tangent as typeof secondTurn
      const call = agent.updates.find((n) => n.update.sessionUpdate === 'tool_call')?.update
      expect(call).toMatchObject({
        toolCallId: 'demo-2-1',
        kind: 'edit',
        status: 'pending',
        title: 'write: notes.txt',
      })
      // It runs unasked (in_progress: the demo model's defaults allow it), then completes with the
      // change it made as a diff of the whole file, and where (for an editor's follow-along).
      const progress = agent.updates
        .filter((n) => n.update.sessionUpdate === 'tool_call_update')
        .map((n) => n.update as acp.ToolCallUpdate & { sessionUpdate: string })
      expect(progress.map((update) => update.status)).toEqual(['in_progress', 'completed'])
      const notes = path.join(sandbox.cwd, 'notes.txt')
      expect(progress[1]).toMatchObject({
        toolCallId: 'demo-2-1',
        status: 'completed',
        content: [{ type: 'diff', path: notes, oldText: null, newText: 'hi\n' }, { type: 'content' }],
        locations: [{ path: notes }],
      })
      expect(call).toMatchObject({ locations: [{ path: notes }] })
      expect(fs.readFileSync(notes, 'utf8')).toBe('hi\n')

      // The policy asks (a user rule): the editor's answer goes to session.answerPermission.
      const configDir = path.join(path.dirname(sandbox.home), 'config', 'tangent')
      fs.mkdirSync(configDir, { recursive: true })
      fs.writeFileSync(path.join(configDir, 'config.json'), JSON.stringify({ permission: { write: 'ask' } }))
      agent.updates.length = 0
      agent.permissionAnswer = 'deny'
      const denied = await agent.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'write denied.txt: no' }],
      })
      expect(denied.stopReason).toBe('end_turn')
      expect(fs.existsSync(path.join(sandbox.cwd, 'denied.txt'))).toBe(false)
      // Denied: it never ran (no in_progress), and the editor's prompt showed the file it would make.
      expect(
        agent.updates
          .filter((n) => n.update.sessionUpdate === 'tool_call_update')
          .map((n) => (n.update as { status?: string }).status),
      ).toEqual(['failed'])
      expect(agent.permissionRequests.at(-1)?.toolCall).toMatchObject({
        content: [
          { type: 'diff', path: path.join(sandbox.cwd, 'denied.txt'), oldText: null, newText: 'no\n' },
        ],
        locations: [{ path: path.join(sandbox.cwd, 'denied.txt') }],
      })
      agent.permissionAnswer = 'once'
      agent.updates.length = 0
      const allowed = await agent.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'write allowed.txt: yes' }],
      })
      expect(allowed.stopReason).toBe('end_turn')
      expect(fs.readFileSync(path.join(sandbox.cwd, 'allowed.txt'), 'utf8')).toBe('yes\n')
      const statuses = agent.updates
        .filter((n) => n.update.sessionUpdate === 'tool_call_update')
        .map((n) => (n.update as { status?: string }).status)
      expect(statuses).toEqual(['in_progress', 'completed'])
      fs.rmSync(path.join(configDir, 'config.json'))

      // A long reply, cancelled once it streams: the prompt answers `cancelled`.
      agent.updates.length = 0
      const long = agent.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'lorem ipsum '.repeat(40) }],
      })
      await waitFor(() => agent.updates.some((n) => n.update.sessionUpdate === 'agent_message_chunk'))
      await agent.agent.notify(acp.methods.agent.session.cancel, { sessionId })
      expect((await long).stopReason).toBe('cancelled')
      expect(texts(agent.updates, 'agent_message_chunk').length).toBeLessThan(200)

      // Model selection is a config option (category model) over session.setModel.
      const set = await agent.agent.request(acp.methods.agent.session.setConfigOption, {
        sessionId,
        configId: 'model',
        value: 'demo:scripted',
      })
      expect(set.configOptions.map((option) => option.id)).toEqual(['model', 'mode'])
      await expect(
        agent.agent.request(acp.methods.agent.session.setConfigOption, {
          sessionId,
          configId: 'mode',
          value: 'x',
        }),
      ).rejects.toMatchObject({ code: -32602, data: { code: 'invalid-params' } })

      // Modes (the runtime's permission modes): plan refuses a write; the editor hears the switch.
      expect(created.modes?.currentModeId).toBe('edit')
      expect(created.modes?.availableModes.map((mode) => mode.id)).toEqual(['ask', 'edit', 'plan'])
      agent.updates.length = 0
      await agent.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'plan' })
      expect(agent.updates.map((n) => n.update)).toContainEqual({
        sessionUpdate: 'current_mode_update',
        currentModeId: 'plan',
      })
      const planned = await agent.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'write plan.txt: no' }],
      })
      expect(planned.stopReason).toBe('end_turn')
      expect(fs.existsSync(path.join(sandbox.cwd, 'plan.txt'))).toBe(false)
      const refused = agent.updates.find(
        (n) =>
          n.update.sessionUpdate === 'tool_call_update' &&
          (n.update as { status?: string }).status === 'failed',
      )
      expect(JSON.stringify(refused?.update)).toMatch(/plan/)
      await expect(
        agent.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'yolo' }),
      ).rejects.toMatchObject({ code: -32602 })
      await agent.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: 'edit' })

      // session/list names it.
      const listed = await agent.agent.request(acp.methods.agent.session.list, { cwd: sandbox.cwd })
      expect(listed.sessions.map((session) => session.sessionId)).toContain(sessionId)
    } finally {
      await agent.close()
    }
    expect(agent.child.exitCode).toBe(0)
  }, 60_000)

  it('an editor that goes away mid-turn leaves no turn running: it ends aborted', async () => {
    const agent = await startAcp(sandbox, { TANGENT_DEMO_DELAY_MS: '100' })
    const created = await agent.agent.request(acp.methods.agent.session.new, {
      cwd: sandbox.cwd,
      mcpServers: [],
    })
    const long = agent.agent
      .request(acp.methods.agent.session.prompt, {
        sessionId: created.sessionId,
        prompt: [{ type: 'text', text: 'lorem ipsum '.repeat(40) }],
      })
      .catch(() => null)
    await waitFor(() => agent.updates.some((n) => n.update.sessionUpdate === 'agent_message_chunk'))
    await agent.close()
    await long
    expect(agent.child.exitCode).toBe(0)
    const shown = await tangentJson<{ events: { type: string; data: { reason?: string } }[] }>(sandbox, [
      'show',
      created.sessionId,
    ])
    expect(shown.events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'aborted' } })
  }, 60_000)

  it('a turn the provider fails answers one JSON-RPC error (-32603, data.code turn-error) and streams no text of its own', async () => {
    const provider = await startFakeProviderServer([
      {
        status: 400,
        json: { error: { message: 'the fake provider refuses this', type: 'invalid_request_error' } },
      },
    ])
    const agent = await startAcp(sandbox, { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: provider.baseUrl })
    try {
      const created = await agent.agent.request(acp.methods.agent.session.new, {
        cwd: sandbox.cwd,
        mcpServers: [],
      })
      await agent.agent.request(acp.methods.agent.session.setConfigOption, {
        sessionId: created.sessionId,
        configId: 'model',
        value: 'openai:gpt-4.1',
      })
      agent.updates.length = 0
      await expect(
        agent.agent.request(acp.methods.agent.session.prompt, {
          sessionId: created.sessionId,
          prompt: [{ type: 'text', text: 'hello' }],
        }),
      ).rejects.toMatchObject({
        code: -32603,
        data: { code: 'turn-error' },
        message: expect.stringMatching(/the fake provider refuses this/),
      })
      // Reported once: no agent text made up from the error, live or when the session loads.
      expect(texts(agent.updates, 'agent_message_chunk')).toBe('')
      expect(provider.requests.length).toBeGreaterThan(0)
    } finally {
      await agent.close()
      await provider.close()
    }
  })

  it('loads the session in a new process: the history comes back as updates', async () => {
    const agent = await startAcp(sandbox)
    try {
      await agent.agent.request(acp.methods.agent.session.load, {
        sessionId,
        cwd: sandbox.cwd,
        mcpServers: [],
      })
      const kinds = agent.updates.map((n) => n.update.sessionUpdate)
      expect(kinds).toContain('user_message_chunk')
      expect(texts(agent.updates, 'user_message_chunk')).toContain('hello')
      expect(texts(agent.updates, 'agent_message_chunk')).toContain('Turn 1: you said "hello".')
      const call = agent.updates.findIndex((n) => n.update.sessionUpdate === 'tool_call')
      const result = agent.updates.findIndex(
        (n) =>
          n.update.sessionUpdate === 'tool_call_update' &&
          (n.update as { status?: string }).status === 'completed',
      )
      expect(call).toBeGreaterThanOrEqual(0)
      expect(result).toBeGreaterThan(call)
      // A prompt after the load continues the same session (turn numbering goes on).
      agent.updates.length = 0
      const next = await agent.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'again' }],
      })
      expect(next.stopReason).toBe('end_turn')
      expect(texts(agent.updates, 'agent_message_chunk')).toMatch(/^Turn 7: you said "again"\.$/)
    } finally {
      await agent.close()
    }
  }, 60_000)

  it('forks at a message anchor (_meta.tangent.atSeq) with the runtime anchor rules; tangent sessions shows it', async () => {
    const agent = await startAcp(sandbox)
    try {
      await agent.agent.request(acp.methods.agent.session.load, {
        sessionId,
        cwd: sandbox.cwd,
        mcpServers: [],
      })
      // The anchor: the seq of the first user message, as the replay tagged it.
      const hello = agent.updates.find((n) => n.update.sessionUpdate === 'user_message_chunk')!
      const atSeq = (hello.update._meta as { tangent: { seq: number } }).tangent.seq
      expect(atSeq).toBeGreaterThan(firstTurn.turnStartSeq)
      expect(atSeq).toBeLessThan(firstTurn.turnEndSeq)
      const fork = await agent.agent.request(acp.methods.agent.session.fork, {
        sessionId,
        cwd: sandbox.cwd,
        mcpServers: [],
        _meta: { tangent: { atSeq } },
      })
      // After the turn holding the anchor, over what follows it up to the next turn/start.
      const boundary = secondTurn.turnStartSeq - 1
      expect(boundary).toBeGreaterThanOrEqual(firstTurn.turnEndSeq)
      expect(fork._meta?.tangent).toMatchObject({ parentSession: sessionId, forkedAt: boundary, boundary })

      // `before: true` at the second message: just before its turn (the same boundary here).
      const before = await agent.agent.request(acp.methods.agent.session.fork, {
        sessionId,
        cwd: sandbox.cwd,
        mcpServers: [],
        _meta: { tangent: { atSeq: secondTurn.turnStartSeq + 1, before: true } },
      })
      expect(before._meta?.tangent).toMatchObject({ forkedAt: secondTurn.turnStartSeq - 1 })

      // A bad anchor is refused with invalid params, nothing forked.
      await expect(
        agent.agent.request(acp.methods.agent.session.fork, {
          sessionId,
          cwd: sandbox.cwd,
          _meta: { tangent: { atSeq: -3 } },
        }),
      ).rejects.toMatchObject({ code: -32602 })
      // An anchor past the end of the session too, naming its last seq: never the last turn instead.
      await expect(
        agent.agent.request(acp.methods.agent.session.fork, {
          sessionId,
          cwd: sandbox.cwd,
          _meta: { tangent: { atSeq: 9999 } },
        }),
      ).rejects.toMatchObject({
        code: -32602,
        data: { code: 'invalid-boundary', atSeq: 9999, lastSeq: expect.any(Number) },
      })

      // The fork is an ordinary session: the CLI lists it (through this process, which serves the data dir).
      const rows = await tangentJson<SessionRow[]>(sandbox, ['sessions'])
      const row = rows.find((candidate) => candidate.id === fork.sessionId)
      expect(row).toMatchObject({ parentSession: sessionId, forkedAt: boundary })

      // And it is promptable over ACP: it knows the first turn only.
      agent.updates.length = 0
      const next = await agent.agent.request(acp.methods.agent.session.prompt, {
        sessionId: fork.sessionId,
        prompt: [{ type: 'text', text: 'in the fork' }],
      })
      expect(next.stopReason).toBe('end_turn')
      expect(texts(agent.updates, 'agent_message_chunk')).toBe('Turn 2: you said "in the fork".')
    } finally {
      await agent.close()
    }
    // With the agent gone, the CLI opens the store itself: the same row.
    const rows = await tangentJson<SessionRow[]>(sandbox, ['sessions'])
    expect(rows.filter((row) => row.parentSession === sessionId)).toHaveLength(2)
  }, 60_000)

  it('a worktree fork (_meta.tangent.files) names in its answer the files it could not bring', async () => {
    // A FIFO: git never lists one, so no snapshot holds it and no worktree can.
    execFileSync('mkfifo', [path.join(sandbox.cwd, 'pipe')])
    const agent = await startAcp(sandbox)
    try {
      const fork = await agent.agent.request(acp.methods.agent.session.fork, {
        sessionId,
        cwd: sandbox.cwd,
        mcpServers: [],
        _meta: { tangent: { files: 'worktree' } },
      })
      const tangentMeta = (fork._meta?.tangent ?? {}) as { worktree?: { path: string; leftOut: string[] } }
      const worktree = tangentMeta.worktree
      expect(worktree?.leftOut).toEqual(['pipe'])
      expect(fs.existsSync(path.join(worktree!.path, 'pipe'))).toBe(false)
    } finally {
      await agent.close()
    }
  }, 60_000)
})

describe('tangent acp while tangent serve runs', () => {
  let sandbox: Sandbox
  let serve: ChildProcess | undefined
  beforeAll(() => {
    sandbox = createSandbox()
  })
  afterAll(async () => {
    if (serve) await stopProcess(serve)
    removeSandbox(sandbox)
  })

  it('goes through the Host: the session is live in the Host the web UI talks to', async () => {
    const started = await startProcess(process.execPath, [cliMain, 'serve', '--port', '0', '--json'], {
      cwd: sandbox.cwd,
      env: sandbox.env,
      ready: /^\{.*"token"/,
    })
    serve = started.child
    const { url, token } = JSON.parse(started.line) as { url: string; token: string }
    const agent = await startAcp(sandbox, { TANGENT_DEMO_DELAY_MS: '20' })
    try {
      const created = await agent.agent.request(acp.methods.agent.session.new, {
        cwd: sandbox.cwd,
        mcpServers: [],
      })
      const hello = await agent.agent.request(acp.methods.agent.session.prompt, {
        sessionId: created.sessionId,
        prompt: [{ type: 'text', text: 'hello' }],
      })
      expect(hello.stopReason).toBe('end_turn')
      expect(texts(agent.updates, 'agent_message_chunk')).toBe('Turn 1: you said "hello".')
      const response = await fetch(new URL('/rpc', url), {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session.list', params: {} }),
      })
      const listed = (await response.json()) as { result: { id: string; eventCount: number }[] }
      const row = listed.result.find((session) => session.id === created.sessionId)
      const { turnEndSeq } = hello._meta!.tangent as { turnEndSeq: number }
      expect(row?.eventCount).toBe(turnEndSeq + 1)
    } finally {
      await agent.close()
    }
    // serve holds the writer lock: opening the store in-process would have failed (store-locked).
    expect(agent.stderr()).not.toMatch(/store-locked/)
  }, 60_000)
})

describe('two editors, each with its own tangent acp', () => {
  let sandbox: Sandbox
  beforeAll(() => {
    sandbox = createSandbox()
  })
  afterAll(() => removeSandbox(sandbox))

  it('the second goes on when the first (which served the data dir) is closed: it serves it itself', async () => {
    const first = await startAcp(sandbox, { TANGENT_DEMO_DELAY_MS: '20' })
    const hostFile = path.join(sandbox.home, 'host.json')
    const servedBy = () => (JSON.parse(fs.readFileSync(hostFile, 'utf8')) as { pid: number }).pid
    expect(servedBy()).toBe(first.child.pid)
    const second = await startAcp(sandbox, { TANGENT_DEMO_DELAY_MS: '20' })
    try {
      const made = await second.agent.request(acp.methods.agent.session.new, {
        cwd: sandbox.cwd,
        mcpServers: [],
      })
      // The first editor window closes; its agent (and the Host it served) ends.
      await first.close()
      expect(fs.existsSync(hostFile)).toBe(false)
      // Not "Connection to the Tangent Host is closed" from now on: the second opens the data dir again.
      const listed = await second.agent.request(acp.methods.agent.session.list, {})
      expect(listed.sessions.map((session) => session.sessionId)).toEqual([made.sessionId])
      const hello = await second.agent.request(acp.methods.agent.session.prompt, {
        sessionId: made.sessionId,
        prompt: [{ type: 'text', text: 'hello' }],
      })
      expect(hello.stopReason).toBe('end_turn')
      expect(texts(second.updates, 'agent_message_chunk')).toBe('Turn 1: you said "hello".')
      // It serves the data dir now: the CLI goes through it and sees the turn.
      expect(servedBy()).toBe(second.child.pid)
      const rows = await tangentJson<(SessionRow & { eventCount: number })[]>(sandbox, ['sessions'])
      expect(rows.map((row) => row.id)).toEqual([made.sessionId])
    } finally {
      await second.close()
      await first.close()
    }
    expect(second.stderr()).not.toMatch(/connection-closed|store-locked/)
    expect(fs.existsSync(hostFile)).toBe(false)
  }, 60_000)

  for (const how of ['closes stdin', 'cancels, then closes stdin at once'] as const)
    it(`leaves promptly when the editor ${how} while a permission question is open`, async () => {
      const configDir = path.join(sandbox.env.XDG_CONFIG_HOME!, 'tangent')
      fs.mkdirSync(configDir, { recursive: true })
      fs.writeFileSync(path.join(configDir, 'config.json'), JSON.stringify({ permission: { write: 'ask' } }))
      const agent = await startAcp(sandbox, { TANGENT_DEMO_DELAY_MS: '20' })
      const hostFile = path.join(sandbox.home, 'host.json')
      try {
        agent.permissionAnswer = 'never'
        const made = await agent.agent.request(acp.methods.agent.session.new, {
          cwd: sandbox.cwd,
          mcpServers: [],
        })
        const prompt = agent.agent
          .request(acp.methods.agent.session.prompt, {
            sessionId: made.sessionId,
            prompt: [{ type: 'text', text: 'write held.txt: no' }],
          })
          .catch(() => undefined)
        await waitFor(() => agent.permissionRequests.length === 1, 20_000)
        if (how !== 'closes stdin')
          await agent.agent.notify(acp.methods.agent.session.cancel, { sessionId: made.sessionId })
        const exited = new Promise<void>((resolve) => agent.child.once('exit', () => resolve()))
        agent.child.stdin!.end()
        // It leaves by itself (a hang fails the test at its timeout): no turn left running.
        await exited
        void prompt
        expect(fs.existsSync(hostFile)).toBe(false)
        expect(fs.existsSync(path.join(sandbox.cwd, 'held.txt'))).toBe(false)
      } finally {
        fs.rmSync(path.join(configDir, 'config.json'), { force: true })
        await agent.close()
      }
    }, 60_000)

  it('ignores a Ctrl-C meant for its client; SIGTERM (a client ending it) lets the data dir go before it exits', async () => {
    const agent = await startAcp(sandbox, { TANGENT_DEMO_DELAY_MS: '20' })
    const hostFile = path.join(sandbox.home, 'host.json')
    try {
      const made = await agent.agent.request(acp.methods.agent.session.new, {
        cwd: sandbox.cwd,
        mcpServers: [],
      })
      expect(JSON.parse(fs.readFileSync(hostFile, 'utf8')).pid).toBe(agent.child.pid)
      // A terminal's Ctrl-C reaches the client's whole process group; the client cancels through ACP.
      agent.child.kill('SIGINT')
      const hello = await agent.agent.request(acp.methods.agent.session.prompt, {
        sessionId: made.sessionId,
        prompt: [{ type: 'text', text: 'hello' }],
      })
      expect(hello.stopReason).toBe('end_turn')
      expect(agent.stderr()).toContain('SIGINT ignored')
      const exited = new Promise<number | null>((resolve) =>
        agent.child.once('exit', (code) => resolve(code)),
      )
      agent.child.kill('SIGTERM')
      expect(await exited).toBe(143)
      // Not left naming a dead process: the next command opens the data dir itself.
      expect(fs.existsSync(hostFile)).toBe(false)
    } finally {
      await agent.close()
    }
  }, 60_000)
})

// Installed outside the lockfile by scripts/install-acpx.sh (.ci/run runs it): see that file for why.
const acpxBin = path.join(
  process.env.TANGENT_ACPX_DIR ??
    path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'tangent', 'acpx-0.19.1'),
  'node_modules',
  '.bin',
  'acpx',
)
const haveAcpx = fs.existsSync(acpxBin)
if (!haveAcpx && process.env.CI)
  throw new Error(`acpx is not installed at ${acpxBin}: run scripts/install-acpx.sh`)
const execFileAsync = promisify(execFile)

// acpx keeps a queue owner (and with it `tangent acp`) alive for --ttl seconds after a command;
// the next command reconnects with session/resume (we advertise it), else it would session/load.
describe.skipIf(!haveAcpx)(
  'tangent acp with acpx (a third-party ACP client from npm; bash scripts/install-acpx.sh)',
  () => {
    let sandbox: Sandbox
    let env: Record<string, string | undefined>
    const agentCommand = `${process.execPath} ${cliMain} acp`
    let acpxSession = ''

    beforeAll(() => {
      sandbox = createSandbox()
      const home = path.join(path.dirname(sandbox.home), 'acpx-home')
      fs.mkdirSync(home)
      env = { ...sandbox.env, HOME: home, TANGENT_DEMO_DELAY_MS: '100' }
    })
    afterAll(async () => {
      await agentGone(sandbox, env.HOME!)
      removeSandbox(sandbox)
    })

    const acpx = async (args: readonly string[]) => {
      const result = await execFileAsync(acpxBin, ['--agent', agentCommand, '--ttl', '1', ...args], {
        cwd: sandbox.cwd,
        env: env as NodeJS.ProcessEnv,
        timeout: 30_000,
      })
      return result.stdout
    }

    it('creates a session and prompts; a new agent process resumes it; cancel stops a running turn', async () => {
      const created = await acpx(['sessions', 'new'])
      const sessionId = created.trim().split('\n').at(-1)!
      acpxSession = sessionId
      expect(sessionId).toMatch(/^[0-9A-Z]{26}$/)

      const first = await acpx(['--format', 'json', 'prompt', 'hello'])
      expect(first).toContain('"stopReason":"end_turn"')
      expect(jsonChunks(first)).toBe('Turn 1: you said "hello".')

      // The queue owner (and our agent) leave after the ttl; the next prompt starts a new agent.
      await agentGone(sandbox, env.HOME!)
      const second = await acpx(['--format', 'json', 'prompt', 'again'])
      expect(second).toContain('"method":"session/resume"')
      expect(jsonChunks(second)).toBe('Turn 2: you said "again".')

      // A long reply, cancelled by `acpx cancel` from another process while it streams (after
      // the last owner left: acpx refuses a connection while its owner shuts down).
      await agentGone(sandbox, env.HOME!)
      const long = spawn(
        acpxBin,
        ['--agent', agentCommand, '--ttl', '1', '--format', 'json', 'prompt', 'lorem ipsum '.repeat(40)],
        {
          cwd: sandbox.cwd,
          env: env as NodeJS.ProcessEnv,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      )
      let out = ''
      long.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk
      })
      const exited = new Promise<number | null>((resolve) => long.once('exit', (code) => resolve(code)))
      let err = ''
      long.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
        err += chunk
      })
      await waitFor(() => out.includes('agent_message_chunk'), 20_000).catch((error: unknown) => {
        throw new Error(`${String(error)}\nstdout: ${out}\nstderr: ${err}`)
      })
      expect(await acpx(['cancel'])).toContain('cancel requested')
      expect(await exited).toBe(0)
      expect(out).toContain('"method":"session/cancel"')
      expect(out).toContain('"stopReason":"cancelled"')

      // session/list through acpx; and the CLI sees the same session, three turns, the last aborted.
      const listed = await acpx(['sessions', 'list'])
      expect(listed).toContain(sessionId)
      await agentGone(sandbox, env.HOME!)
      const rows = await tangentJson<SessionRow[]>(sandbox, ['sessions'])
      expect(rows.map((row) => row.id)).toEqual([sessionId])
      const shown = await tangentJson<{ events: { type: string; data: { reason?: string } }[] }>(sandbox, [
        'show',
        sessionId,
      ])
      const ends = shown.events.filter((event) => event.type === 'turn/end').map((event) => event.data.reason)
      expect(ends).toEqual(['completed', 'completed', 'aborted'])
    }, 120_000)

    it('a slash command: /fork answers with the new session, which the CLI lists as a fork', async () => {
      await agentGone(sandbox, env.HOME!)
      const forked = await acpx(['--format', 'json', 'prompt', '/fork'])
      const answer = forked
        .split('\n')
        .filter((line) => line.includes('"stopReason"'))
        .map(
          (line) =>
            JSON.parse(line) as { result: { _meta: { tangent: { command: boolean; sessionId: string } } } },
        )
        .at(-1)
      expect(answer?.result._meta.tangent.command).toBe(true)
      const child = answer!.result._meta.tangent.sessionId
      expect(jsonChunks(forked)).toContain(`into ${child}`)
      await agentGone(sandbox, env.HOME!)
      const rows = await tangentJson<SessionRow[]>(sandbox, ['sessions'])
      expect(rows.find((row) => row.id === child)?.parentSession).toMatch(/^[0-9A-Z]{26}$/)
    }, 120_000)

    it('modes: acpx set-mode plan reaches the session; a write is then refused', async () => {
      await agentGone(sandbox, env.HOME!)
      // One queue owner for both commands (it idles 5 s): the prompt joins it.
      await acpx(['--ttl', '5', 'set-mode', 'plan'])
      const planned = await acpx(['--format', 'json', 'prompt', 'write planned.txt: no'])
      expect(planned).toContain('"stopReason":"end_turn"')
      expect(planned).toMatch(/plan mode/i)
      expect(fs.existsSync(path.join(sandbox.cwd, 'planned.txt'))).toBe(false)
      await agentGone(sandbox, env.HOME!)
      const shown = await tangentJson<{ session: { mode: string } }>(sandbox, ['show', acpxSession])
      expect(shown.session.mode).toBe('plan')
    }, 120_000)

    it('cancel while the editor is asking for permission: acpx withdraws its question, the prompt answers cancelled, nothing is written', async () => {
      await agentGone(sandbox, env.HOME!)
      const configDir = path.join(env.XDG_CONFIG_HOME!, 'tangent')
      fs.mkdirSync(configDir, { recursive: true })
      fs.writeFileSync(path.join(configDir, 'config.json'), JSON.stringify({ permission: { write: 'ask' } }))
      try {
        // acpx asks a person only on a terminal: `script` gives it one; `exec` keeps the question
        // in this process, so a Ctrl-C (SIGINT) reaches it while the question is open.
        const line = `${acpxBin} --agent '${agentCommand}' --format json exec 'write asked.txt: no'`
        const asking = spawn('script', ['-qec', line, '/dev/null'], {
          cwd: sandbox.cwd,
          env: env as NodeJS.ProcessEnv,
          stdio: ['pipe', 'pipe', 'pipe'],
        })
        let out = ''
        asking.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
          out += chunk
        })
        const exited = new Promise<number | null>((resolve) => asking.once('exit', (code) => resolve(code)))
        await waitFor(() => out.includes('(y/N)'), 30_000).catch((error: unknown) => {
          throw new Error(`${String(error)}\n${out}`)
        })
        expect(out).toContain('"method":"session/request_permission"')
        // `script` runs the line through $SHELL -c (sh when unset, as in CI): sh may stay between
        // `script` and acpx, so the process signalled is the one running acpx itself, found among
        // script's descendants (a Ctrl-C sent to sh instead never reaches acpx's handler).
        const acpxPid = acpxUnder(asking.pid!)
        const signals = () => {
          try {
            const status = fs.readFileSync(`/proc/${acpxPid}/status`, 'utf8')
            return status
              .split('\n')
              .filter((l) => /^(Name|State|SigQ|SigPnd|ShdPnd|SigBlk|SigIgn|SigCgt):/.test(l))
              .join(' ')
          } catch (error) {
            return String(error)
          }
        }
        // A person presses Ctrl-C (SIGINT), and again if nothing happens: CI once saw acpx print
        // nothing after one SIGINT for 30 s (no session/cancel sent; it did not leave). A second
        // SIGINT reaches acpx's handler if the first was lost, and ends acpx (Node's default) if
        // its handler ran and hung — then the checks below fail, with what the process showed.
        const seen: string[] = []
        let gone = false
        void exited.then(() => {
          gone = true
        })
        for (let press = 0; press < 3 && !gone; press++) {
          seen.push(`SIGINT ${press + 1}: ${signals()}`)
          process.kill(Number(acpxPid), 'SIGINT')
          // acpx cancels, then ends the agent (stdin, then SIGTERM after 100 ms): it leaves in seconds.
          await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))])
        }
        if (!gone)
          throw new Error(
            `acpx did not exit after 3 SIGINTs:\n${seen.join('\n')}\nnow: ${signals()}\nps: ${execFileSync('ps', ['-ef', '--forest']).toString()}\n${out}`,
          )
        if (seen.length > 1) console.warn(`acpx needed ${seen.length} SIGINTs:\n${seen.join('\n')}\n${out}`)
        expect(out).toContain('"method":"session/cancel"')
        expect(out).toMatch(/"stopReason":"cancelled"/)
        expect(fs.existsSync(path.join(sandbox.cwd, 'asked.txt'))).toBe(false)
        const cancelled = JSON.parse(
          out
            .split('\n')
            .find((l) => l.includes('"stopReason":"cancelled"'))!
            .trim(),
        ) as {
          result: { _meta: { tangent: { reason: string } } }
        }
        expect(cancelled.result._meta.tangent.reason).toBe('aborted')
      } finally {
        fs.rmSync(path.join(configDir, 'config.json'), { force: true })
      }
    }, 120_000)
  },
)

/** The pid of the process running acpx's own script (node …/.bin/acpx) below `root`. */
function acpxUnder(root: number): number {
  const children = new Map<number, number[]>()
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      // The parent pid is the 2nd field after the ")" closing the command name.
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)])
    } catch {
      // gone meanwhile
    }
  }
  const queue = [...(children.get(root) ?? [])]
  while (queue.length > 0) {
    const pid = queue.shift()!
    try {
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
      if (path.basename(argv[0] ?? '') === 'node' && argv[1]?.endsWith(path.join('.bin', 'acpx'))) return pid
    } catch {
      continue
    }
    queue.push(...(children.get(pid) ?? []))
  }
  throw new Error(`no acpx process below ${root}: ${execFileSync('ps', ['-ef', '--forest']).toString()}`)
}

/** The text of a `--format json` run's agent_message_chunk updates. */
function jsonChunks(output: string): string {
  return output
    .split('\n')
    .filter((line) => line.includes('"agent_message_chunk"'))
    .map(
      (line) =>
        (JSON.parse(line) as { params: { update: { content: { text: string } } } }).params.update.content
          .text,
    )
    .join('')
}

/**
 * Waits until acpx's queue owner has left (its queue files are gone: connecting while it shuts
 * down is refused) and no `tangent acp` serves the data dir any more: its host.json is gone, or
 * names a process that is no longer alive — what Tangent itself takes as no Host (discovery.ts).
 * A killed agent cannot remove its file (acpx sends SIGKILL to an agent that has not left 1.5 s
 * after SIGTERM); CI and a loaded machine here left such a stale file about once in ten runs.
 */
async function agentGone(sandbox: Sandbox, acpxHome: string): Promise<void> {
  const queues = path.join(acpxHome, '.acpx', 'queues')
  const hostFile = path.join(sandbox.home, 'host.json')
  const queued = () => (fs.existsSync(queues) ? fs.readdirSync(queues) : [])
  const served = () => {
    if (!fs.existsSync(hostFile)) return false
    try {
      process.kill((JSON.parse(fs.readFileSync(hostFile, 'utf8')) as { pid: number }).pid, 0)
      return true
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'EPERM'
    }
  }
  // 40 s: on a loaded CI machine (a Chromium file beside it) an agent's start and close are slow.
  await waitFor(() => !served() && queued().length === 0, 40_000).catch((error: unknown) => {
    // Say which one is still there, for the next time this fails.
    const host = fs.existsSync(hostFile) ? fs.readFileSync(hostFile, 'utf8') : 'gone'
    throw new Error(`${String(error)}: host.json ${host}; acpx queues ${JSON.stringify(queued())}`)
  })
}

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
