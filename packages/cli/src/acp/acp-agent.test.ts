// The ACP agent in one process: an SDK client app (the editor) connected to `createAcpAgent` over a
// real runtime. What the conformance test (test/e2e/acp-conformance.e2e.ts) cannot reach with a
// handful of sessions: list paging across pages.
import * as acp from '@agentclientprotocol/sdk/unstable'
import { afterEach, describe, expect, it } from 'vitest'
import { type LocalBackend, openLocalBackend } from '../local-backend.test-helper.js'
import { createAcpAgent } from './acp-agent.js'

let local: LocalBackend | undefined
afterEach(async () => {
  await local?.close()
  local = undefined
})

async function connect(pageSize: number) {
  local = await openLocalBackend()
  const agent = createAcpAgent(local.backend, { version: 'test', log: () => {}, pageSize })
  const connection = acp.client({ name: 'test-editor' }).connect(agent.app)
  await connection.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION })
  return { editor: connection.agent, project: local.project }
}

describe('session/list paging', () => {
  it('pages newest first with real cursors: every session once, none skipped when one is made between pages', async () => {
    const { editor, project } = await connect(2)
    const made: string[] = []
    for (let i = 0; i < 5; i++) {
      made.push(
        (await editor.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [] })).sessionId,
      )
      await new Promise((resolve) => setTimeout(resolve, 5)) // distinct updatedAt, newest last
    }
    const first = await editor.request(acp.methods.agent.session.list, { cwd: project })
    expect(first.sessions.map((session) => session.sessionId)).toEqual([made[4], made[3]])
    expect(first.nextCursor).toEqual(expect.any(String))
    // A session made now is newer than the cursor: later pages neither repeat nor skip the rest.
    await editor.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [] })
    const second = await editor.request(acp.methods.agent.session.list, {
      cwd: project,
      cursor: first.nextCursor,
    })
    expect(second.sessions.map((session) => session.sessionId)).toEqual([made[2], made[1]])
    const third = await editor.request(acp.methods.agent.session.list, {
      cwd: project,
      cursor: second.nextCursor,
    })
    expect(third.sessions.map((session) => session.sessionId)).toEqual([made[0]])
    expect(third.nextCursor ?? undefined).toBeUndefined()
  })

  it('refuses a cursor it did not make, and a relative cwd filter (-32602)', async () => {
    const { editor } = await connect(2)
    for (const cursor of ['nope', Buffer.from('{"u":"x"}').toString('base64url')]) {
      await expect(editor.request(acp.methods.agent.session.list, { cursor })).rejects.toMatchObject({
        code: -32602,
      })
    }
    await expect(
      editor.request(acp.methods.agent.session.list, { cwd: 'relative/dir' }),
    ).rejects.toMatchObject({
      code: -32602,
    })
  })

  it('archived: exclude (the default), include, only', async () => {
    const { editor, project } = await connect(10)
    const kept = (await editor.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [] }))
      .sessionId
    const hidden = (await editor.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [] }))
      .sessionId
    await editor.request(acp.methods.agent.session.archive, { sessionId: hidden })
    const ids = async (archived?: 'exclude' | 'include' | 'only') =>
      (await editor.request(acp.methods.agent.session.list, archived ? { archived } : {})).sessions
        .map((session) => session.sessionId)
        .sort()
    expect(await ids()).toEqual([kept])
    expect(await ids('include')).toEqual([kept, hidden].sort())
    expect(await ids('only')).toEqual([hidden])
  })
})
