// `tangent acp` and a message over its 32 MiB limit (issue 25): the message is answered with a
// JSON-RPC error naming the limit (its id when it can be read, else null) and the agent keeps
// serving: the next message works. It used to exit silently with status 0.
import { type ChildProcess, spawn } from 'node:child_process'
import { afterEach, describe, expect, it } from 'vitest'
import { cliMain, createSandbox, removeSandbox, type Sandbox } from './cli-harness.js'

const limit = 32 * 1024 * 1024

interface RawAcp {
  child: ChildProcess
  /** The next JSON line the agent writes. */
  next(): Promise<Record<string, unknown>>
  write(text: string): Promise<void>
  stderr(): string
}

function startRawAcp(sandbox: Sandbox): RawAcp {
  const child = spawn(process.execPath, [cliMain, 'acp'], {
    cwd: sandbox.cwd,
    env: sandbox.env as NodeJS.ProcessEnv,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
  })
  const lines: string[] = []
  const waiters: ((line: string) => void)[] = []
  let buffered = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const line = buffered.slice(0, end)
      buffered = buffered.slice(end + 1)
      const waiter = waiters.shift()
      if (waiter) waiter(line)
      else lines.push(line)
    }
  })
  const exited = new Promise<string>((resolve) =>
    child.once('exit', (code) => resolve(`tangent acp exited (${code}); stderr: ${stderr}`)),
  )
  return {
    child,
    next: async () => {
      const line =
        lines.shift() ??
        (await Promise.race([
          new Promise<string>((resolve) => waiters.push(resolve)),
          exited.then((why) => Promise.reject(new Error(why))),
        ]))
      return JSON.parse(line) as Record<string, unknown>
    },
    write: (text) =>
      new Promise<void>((resolve, reject) =>
        child.stdin!.write(text, (error) => (error ? reject(error) : resolve())),
      ),
    stderr: () => stderr,
  }
}

const initialize = (id: number) =>
  `${JSON.stringify({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: {} } })}\n`

describe('tangent acp: a message over the size limit', { timeout: 120_000 }, () => {
  let sandbox: Sandbox | undefined
  let agent: RawAcp | undefined
  afterEach(async () => {
    const child = agent?.child
    agent = undefined
    if (child) {
      child.stdin?.end()
      if (child.exitCode === null) await new Promise<void>((resolve) => child.once('exit', () => resolve()))
    }
    if (sandbox) removeSandbox(sandbox)
    sandbox = undefined
  })

  it('answers it with an error naming the limit (its id, or null) and keeps serving', async () => {
    sandbox = createSandbox()
    agent = startRawAcp(sandbox)
    await agent.write(initialize(1))
    expect(await agent.next()).toMatchObject({ id: 1, result: { protocolVersion: 1 } })

    // The id before the huge params: read from the stream and answered.
    const padding = 'x'.repeat(limit + 16)
    await agent.write(
      `{"jsonrpc":"2.0","id":7,"method":"session/new","params":{"cwd":"/","mcpServers":[],"pad":"${padding}"}}\n`,
    )
    const tooLarge = await agent.next()
    expect(tooLarge).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32600, data: { limit } } })
    expect((tooLarge.error as { message: string }).message).toContain(`${limit} bytes (32 MiB)`)

    // An id after the padding, in many small writes, is found too; a nested "id" is not taken for it.
    const chunk = 'y'.repeat(1024 * 1024)
    await agent.write('{"jsonrpc":"2.0","method":"session/new","params":{"id":99,"pad":"')
    for (let i = 0; i < 33; i++) await agent.write(chunk)
    await agent.write('"},"id":"late-id"}\n')
    expect(await agent.next()).toMatchObject({ id: 'late-id', error: { code: -32600 } })

    // Not JSON at all: id null.
    await agent.write(`${'z'.repeat(limit + 1)}\n`)
    expect(await agent.next()).toMatchObject({ id: null, error: { code: -32600, data: { limit } } })

    // Still serving: the next message is answered normally.
    await agent.write(initialize(8))
    expect(await agent.next()).toMatchObject({ id: 8, result: { protocolVersion: 1 } })
    expect(agent.child.exitCode).toBeNull()
    expect(agent.stderr()).toContain(`dropped a message over ${limit} bytes`)
  })

  it('a message of exactly the limit still reaches the agent', async () => {
    sandbox = createSandbox()
    agent = startRawAcp(sandbox)
    const base = JSON.stringify({
      jsonrpc: '2.0',
      id: 3,
      method: 'initialize',
      params: { protocolVersion: 1, clientCapabilities: {}, _meta: { pad: '' } },
    })
    const line = base.replace('"pad":""', `"pad":"${'p'.repeat(limit - base.length)}"`)
    expect(Buffer.byteLength(line)).toBe(limit)
    await agent.write(`${line}\n`)
    expect(await agent.next()).toMatchObject({ id: 3, result: { protocolVersion: 1 } })
  })
})
