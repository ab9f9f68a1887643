// A second terminal always works (docs/architecture.md §9): while `tangent chat` holds the
// data dir without a Host, it serves the store, so `tangent run --session …` from another
// process goes through it; and it does not exit while a turn it serves is running.
import { type ChildProcess, spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  cliMain,
  createSandbox,
  removeSandbox,
  type Sandbox,
  tangent,
  tangentJsonChild,
} from './cli-harness.js'

interface Chat {
  child: ChildProcess
  stdout: () => string
  stderr: () => string
  exited: Promise<number>
}

function startChat(sandbox: Sandbox, demoDelayMs = 5): Chat {
  const child = spawn(process.execPath, [cliMain, 'chat'], {
    cwd: sandbox.cwd,
    env: { ...sandbox.env, TANGENT_DEMO_DELAY_MS: String(demoDelayMs) } as NodeJS.ProcessEnv,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
  })
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk
  })
  const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)))
  return { child, stdout: () => stdout, stderr: () => stderr, exited }
}

async function waitFor<T>(
  probe: () => T | false | Promise<T | false>,
  what: string,
  limitMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + limitMs
  for (;;) {
    const value = await probe()
    if (value !== false) return value
    if (Date.now() > deadline) throw new Error(`never: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

interface Listed {
  id: string
  eventCount: number
  status: string
}

let sandbox: Sandbox
let chat: Chat | null = null
beforeEach(() => {
  sandbox = createSandbox()
})
afterEach(async () => {
  if (chat && chat.child.exitCode === null) {
    chat.child.kill('SIGKILL')
    await chat.exited
  }
  chat = null
  removeSandbox(sandbox)
})

describe('a second terminal beside tangent chat (no Host running)', () => {
  it('tangent run --session goes through the chat process, and both turns land in one log', async () => {
    chat = startChat(sandbox)
    chat.child.stdin!.write('hello from chat\n')
    const hostFile = path.join(sandbox.home, 'host.json')
    await waitFor(() => fs.existsSync(hostFile), 'the chat process serves the data dir (host.json)')
    const [session] = await waitFor(async () => {
      const listed = await tangentJsonChild<Listed[]>(sandbox, ['sessions'])
      return listed.length === 1 && listed[0]!.status === 'idle' && listed[0]!.eventCount > 2 && listed
    }, 'the chat turn ends')
    const second = await tangent(sandbox, ['run', '--session', session!.id, 'hello from another terminal'])
    expect(second.stderr).not.toMatch(/store-locked/)
    expect(second.code).toBe(0)
    const shown = await tangentJsonChild<{ events: { type: string; data: unknown }[] }>(sandbox, [
      'show',
      session!.id,
    ])
    const prompts = shown.events
      .filter((event) => event.type === 'user/message')
      .map((event) => (event.data as { content: { text: string }[] }).content[0]?.text)
    expect(prompts).toEqual(['hello from chat', 'hello from another terminal'])
    chat.child.stdin!.end()
    expect(await chat.exited).toBe(0)
    expect(fs.existsSync(hostFile)).toBe(false)
  })

  it('the chat process does not exit while a turn it serves for another terminal runs', async () => {
    // The chat process runs the other terminal's turn: its demo model streams slowly enough to be seen running.
    chat = startChat(sandbox, 40)
    chat.child.stdin!.write('first\n')
    await waitFor(() => fs.existsSync(path.join(sandbox.home, 'host.json')), 'host.json')
    const [session] = await waitFor(async () => {
      const listed = await tangentJsonChild<Listed[]>(sandbox, ['sessions'])
      return listed.length === 1 && listed[0]!.status === 'idle' && listed[0]!.eventCount > 2 && listed
    }, 'the chat turn ends')
    const story = `Tell me a long story about ${'forks and branches '.repeat(20)}`
    const other = tangent(sandbox, ['run', '--session', session!.id, story])
    await waitFor(async () => {
      const listed = await tangentJsonChild<Listed[]>(sandbox, ['sessions'])
      return listed[0]?.status === 'running'
    }, 'the other terminal’s turn runs')
    let chatEnded = false
    void chat.exited.then(() => {
      chatEnded = true
    })
    chat.child.stdin!.end()
    const result = await other
    expect(result.stderr, `chat said: ${chat.stderr()}`).not.toMatch(/error\[/)
    expect(result.code).toBe(0)
    expect(chatEnded).toBe(false)
    expect(await chat.exited).toBe(0)
    expect(chat.stderr()).toMatch(/waiting for a turn another terminal started/)
  })
})
