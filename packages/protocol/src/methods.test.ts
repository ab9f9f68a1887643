import { describe, expect, it } from 'vitest'
import {
  methods,
  SessionForkParams,
  SessionGetParams,
  SessionPromptParams,
  WorkspaceOpenParams,
} from './index.js'

describe('params schemas', () => {
  it('accept a valid fork request', () => {
    const parsed = SessionForkParams.parse({
      sessionId: '01HZX-abc_1',
      atSeq: 4,
      files: 'worktree',
      requestId: 'r1',
    })
    expect(parsed).toEqual({ sessionId: '01HZX-abc_1', atSeq: 4, files: 'worktree', requestId: 'r1' })
  })

  it('reject ids that could escape the sessions directory', () => {
    for (const sessionId of ['../etc', 'a/b', 'a\0b', '.hidden', '', 'x'.repeat(129)]) {
      expect(SessionGetParams.safeParse({ sessionId }).success, sessionId).toBe(false)
    }
  })

  it('reject a NUL byte in a path and oversized prompts', () => {
    expect(WorkspaceOpenParams.safeParse({ path: '/tmp/a\0b' }).success).toBe(false)
    expect(SessionPromptParams.safeParse({ sessionId: 'a', text: 'x'.repeat(300 * 1024) }).success).toBe(
      false,
    )
    expect(SessionForkParams.safeParse({ sessionId: 'a', atSeq: -1 }).success).toBe(false)
    expect(SessionForkParams.safeParse({ sessionId: 'a', files: 'copy' }).success).toBe(false)
  })

  it('cover every method of docs/protocol.md', () => {
    expect(Object.keys(methods).sort()).toEqual(
      [
        'host.info',
        'workspace.list',
        'workspace.open',
        'workspace.browse',
        'session.list',
        'session.create',
        'session.get',
        'session.resolve',
        'session.subscribe',
        'session.unsubscribe',
        'session.attachFileSource',
        'session.detachFileSource',
        'session.answerReadFile',
        'session.attachMcpServers',
        'session.prompt',
        'session.abort',
        'session.answerPermission',
        'session.fork',
        'session.rename',
        'session.archive',
        'session.delete',
        'session.export',
        'session.import',
        'session.importBegin',
        'session.importChunk',
        'session.importFrom',
        'session.setModel',
        'session.setMode',
        'session.compare',
        'session.compact',
        'session.explore',
        'session.board',
        'session.fileAcross',
        'session.keep',
        'snapshot.list',
        'snapshot.restore',
        'snapshot.undoRestore',
      ].sort(),
    )
  })
})
