// The session commands as chat runs them (its words, its colours, its switch to a new session);
// acp/acp-commands.test.ts runs them as an editor does, in depth.
import picocolors from 'picocolors'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { Backend } from './backend.js'
import { type LocalBackend, openLocalBackend } from './local-backend.test-helper.js'
import { runSessionCommand, type SessionCommand } from './session-commands.js'

let local: LocalBackend
beforeEach(async () => {
  local = await openLocalBackend()
})
afterEach(async () => {
  await local.close()
})

describe('runSessionCommand', () => {
  it("forks in chat's words and says to switch to the new session", async () => {
    const session = await local.backend.createSession({ cwd: local.project })
    const turn = await local.turn(session.id, 'hello')
    const result = await runSessionCommand(local.backend, session.id, { name: 'fork' }, { frontEnd: 'chat' })
    expect(result).toEqual({
      text: `Forked ${session.id} through seq ${turn.turnEndSeq}: now in ${result.newSessionId} (/switch ${session.id} to go back)`,
      outcome: 'done',
      newSessionId: expect.any(String),
      switchTo: result.newSessionId,
      title: (await local.backend.getSession(result.newSessionId!)).session.title,
    })
  })

  it('colours with the style given, and is plain without one', async () => {
    const session = await local.backend.createSession({ cwd: local.project })
    await local.turn(session.id, 'hello')
    const coloured = await runSessionCommand(
      local.backend,
      session.id,
      { name: 'fork' },
      { frontEnd: 'chat', style: picocolors.createColors(true) },
    )
    expect(coloured.text).toContain(`\u001b[36m${coloured.newSessionId}\u001b[39m`)
    const failed = await runSessionCommand(
      local.backend,
      session.id,
      { name: 'restore', seq: 9999 },
      { frontEnd: 'chat', style: picocolors.createColors(true) },
    )
    expect(failed.outcome).toBe('failed')
    expect(failed.text.startsWith('\u001b[31merror[invalid-params]: ')).toBe(true)
    const plain = await runSessionCommand(local.backend, session.id, { name: 'fork' }, { frontEnd: 'chat' })
    expect(plain.text).not.toContain('\u001b')
  })

  it('refuses before the first message, except /keep which names its branch', async () => {
    for (const command of [
      { name: 'fork' },
      { name: 'compact' },
      { name: 'explore', prompts: ['a', 'b'] },
      { name: 'restore', seq: 1 },
      { name: 'undo' },
      { name: 'diff', id: 'x' },
    ] satisfies SessionCommand[]) {
      const result = await runSessionCommand(local.backend, null, command, { frontEnd: 'chat' })
      expect(result.outcome, command.name).toBe('refused')
      expect(result.text).toMatch(/^Nothing to \w+ (from )?yet: send a message first\.$/)
    }
    const keep = await runSessionCommand(
      local.backend,
      null,
      { name: 'keep', id: 'nope' },
      { frontEnd: 'chat' },
    )
    expect(keep).toEqual({
      text: expect.stringMatching(/^error\[session-not-found\]/),
      outcome: 'failed',
    })
  })

  it('throws a programming error instead of answering it as text', async () => {
    const broken = {
      ...local.backend,
      resolveSession: () => Promise.reject(new TypeError('x is not a function')),
    } as unknown as Backend
    await expect(
      runSessionCommand(broken, 'S', { name: 'keep', id: 'B' }, { frontEnd: 'editor' }),
    ).rejects.toThrow(TypeError)
  })
})
