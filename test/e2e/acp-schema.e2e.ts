// The ACP checker (test/e2e/acp-schema.ts) on messages outside the scripted session of
// acp-conformance.e2e.ts (extension methods, `$/cancel_request` from the client's side), and the
// scripted editor's own answers to the client
// methods (fs, terminal, permission) against the pinned schema, before any agent relies on them.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createClientHandlers } from './acp-raw-editor.js'
import { AcpConversation, loadPinnedAcpSchemas } from './acp-schema.js'

const schemas = loadPinnedAcpSchemas()
type Message = Record<string, unknown>

describe('the checker on messages outside the scripted session', () => {
  const line = (message: Message) => JSON.stringify({ jsonrpc: '2.0', ...message })

  it('accepts $/cancel_request both ways and extension methods; refuses a result for an unknown method', () => {
    const conversation = new AcpConversation(schemas)
    const ok = (from: 'agent' | 'client', message: Message) => {
      const verdict = conversation.check(from, line(message))
      expect(verdict.problems, verdict.line).toEqual([])
      return verdict
    }
    ok('agent', {
      id: 5,
      method: 'session/request_permission',
      params: { sessionId: 's', toolCall: { toolCallId: 'c' }, options: [] },
    })
    ok('agent', { method: '$/cancel_request', params: { requestId: 5 } })
    ok('client', { id: 5, error: { code: -32800, message: 'Request cancelled' } })
    expect(ok('client', { id: 'x', method: '_tangent/ping', params: { any: ['thing'] } }).stable).toBe('n/a')
    ok('agent', { id: 'x', result: { pong: true } })
    ok('client', { id: 6, method: 'session/close', params: { sessionId: 's' } })
    expect(ok('agent', { id: 6, result: {} }).stable).toBe('pass')
    conversation.check('client', line({ id: 7, method: 'session/frobnicate', params: {} }))
    expect(conversation.check('agent', line({ id: 7, result: {} })).problems.join('\n')).toMatch(
      /only an error/,
    )
    expect(
      conversation.check('agent', line({ id: null, error: { code: -32603, message: 'x' } })).problems,
    ).not.toEqual([])
    expect(conversation.unanswered()).toEqual([])
  })
})

describe('the scripted editor answers the client methods as the schema says (for when the agent uses them)', () => {
  let folder: string
  const clientSide = createClientHandlers()
  beforeAll(() => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-acp-client-'))
  })
  afterAll(() => {
    clientSide.dispose()
    fs.rmSync(folder, { recursive: true, force: true })
  })

  /** Calls the editor's handler with params the schema accepts; returns a result it accepts. */
  async function answer(method: string, params: Message): Promise<Message> {
    const full = { sessionId: 'session-1', ...params }
    expect(
      schemas.unstable.check(schemas.unstable.definitionFor('client', method, 'Request')!, full),
    ).toEqual([])
    const call = { id: 1, method, params: full, at: 0, answered: false }
    const result = (await clientSide.handlers[method]!(full, call)) as Message
    expect(
      schemas.unstable.check(schemas.unstable.definitionFor('client', method, 'Response')!, result),
    ).toEqual([])
    return result
  }

  it('fs: writes, reads a slice of lines, refuses a relative path', async () => {
    const file = path.join(folder, 'a.txt')
    await answer('fs/write_text_file', { path: file, content: 'one\ntwo\nthree\n' })
    expect(fs.readFileSync(file, 'utf8')).toBe('one\ntwo\nthree\n')
    expect((await answer('fs/read_text_file', { path: file })).content).toBe('one\ntwo\nthree\n')
    expect((await answer('fs/read_text_file', { path: file, line: 2, limit: 1 })).content).toBe('two')
    await expect(answer('fs/read_text_file', { path: 'a.txt' })).rejects.toMatchObject({ code: -32602 })
  })

  it('terminal: runs a real process, reports its output and exit, kills and releases', async () => {
    const { terminalId } = await answer('terminal/create', {
      command: process.execPath,
      args: ['-e', 'console.log("hi"); process.exit(3)'],
      cwd: folder,
      env: [{ name: 'X', value: '1' }],
      outputByteLimit: 1000,
    })
    expect(await answer('terminal/wait_for_exit', { terminalId })).toMatchObject({ exitCode: 3 })
    expect(await answer('terminal/output', { terminalId })).toMatchObject({
      output: 'hi\n',
      truncated: false,
      exitStatus: { exitCode: 3 },
    })
    const long = await answer('terminal/create', {
      command: process.execPath,
      args: ['-e', 'process.stdout.write("x".repeat(100)); setInterval(() => {}, 1000)'],
      outputByteLimit: 10,
    })
    // Waits for a new node process's first write: vitest's 1 s default poll ran out on a loaded
    // machine (load 7 on 2 cores), so the wait is the test's own timeout's business.
    await expect
      .poll(async () => (await answer('terminal/output', long)).truncated, { timeout: 20_000 })
      .toBe(true)
    expect((await answer('terminal/output', long)).output).toBe('x'.repeat(10))
    await answer('terminal/kill', long)
    expect(await answer('terminal/wait_for_exit', long)).toMatchObject({ signal: 'SIGKILL' })
    await answer('terminal/release', long)
    await expect(answer('terminal/output', long)).rejects.toMatchObject({ code: -32002 })
  })

  it('permission: the allow-once option', async () => {
    const options = [
      { optionId: 'yes', name: 'Allow', kind: 'allow_once' },
      { optionId: 'no', name: 'Reject', kind: 'reject_once' },
    ]
    expect(
      await answer('session/request_permission', { toolCall: { toolCallId: 'call-1' }, options }),
    ).toEqual({ outcome: { outcome: 'selected', optionId: 'yes' } })
  })
})
