// The editor's file system end to end in one process: an ACP client app (the editor) answers
// `fs/read_text_file`, the agent side's file source is attached through the CLI's Backend to a
// real runtime, and a demo turn's `read` gets the editor's buffer.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import * as acp from '@agentclientprotocol/sdk/unstable'
import { inProcessApi, Runtime } from '@tangent/runtime'
import { afterEach, describe, expect, it } from 'vitest'
import { ApiBackend } from '../api-backend.js'
import { EditorFileSources, editorFileSource } from './acp-fs.js'

const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

function tempDir(prefix: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** An editor holding `buffers` (absolute path → text) and reading other files from disk, connected to an agent app. */
function connectEditor(buffers: Map<string, string>) {
  const asked: acp.ReadTextFileRequest[] = []
  const editor = acp.client({ name: 'test-editor' })
  editor.onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
    asked.push(params)
    const held = buffers.get(params.path)
    if (held !== undefined) return { content: held }
    if (params.path.endsWith('broken.txt')) throw acp.RequestError.internalError(undefined, 'editor failed')
    return { content: fs.readFileSync(params.path, 'utf8') }
  })
  const connection = acp.agent({ name: 'agent-side' }).connect(editor)
  cleanups.push(() => connection.close())
  return { client: connection.client, asked }
}

async function openBackend() {
  const runtime = await Runtime.open({
    home: tempDir('tangent-acp-fs-home-'),
    startFolder: tempDir('tangent-acp-fs-start-'),
    homeDir: tempDir('tangent-acp-fs-user-'),
    env: {},
    report: () => {},
  })
  const backend = new ApiBackend(inProcessApi(runtime))
  cleanups.push(() => backend.close())
  return backend
}

const ignore = { onEvent: () => {}, onDelta: () => {} }

describe('editorFileSource', () => {
  it('is null unless the client offers fs.readTextFile', () => {
    const { client } = connectEditor(new Map())
    expect(editorFileSource(client, 's', undefined)).toBeNull()
    expect(editorFileSource(client, 's', {})).toBeNull()
    expect(editorFileSource(client, 's', { fs: { readTextFile: false, writeTextFile: true } })).toBeNull()
    expect(editorFileSource(client, 's', { fs: { readTextFile: true } })).toBeTypeOf('function')
  })

  it('a turn reads the editor’s unsaved buffer; an editor error falls back to the disk', async () => {
    const work = tempDir('tangent-acp-fs-work-')
    fs.writeFileSync(path.join(work, 'open.txt'), 'saved\n')
    fs.writeFileSync(path.join(work, 'broken.txt'), 'broken on disk\n')
    const backend = await openBackend()
    const session = await backend.createSession({ cwd: work })
    const { client, asked } = connectEditor(new Map([[path.join(work, 'open.txt'), 'unsaved edit\n']]))
    const read = editorFileSource(client, session.id, { fs: { readTextFile: true } })
    expect(read).not.toBeNull()
    await backend.attachFileSource(session.id, read!)

    await backend.prompt(session.id, 'read open.txt\nread broken.txt', ignore)
    const results = (await backend.getSession(session.id)).events
      .filter((event) => event.type === 'tool/result')
      .map((event) => (event.data as { output: string }).output)
    expect(results[0]).toBe('unsaved edit\n')
    expect(results[1]).toMatch(/^broken on disk\n\n\[the editor could not give its copy \(.*editor failed\)/)
    expect(asked).toEqual([
      { sessionId: session.id, path: path.join(work, 'open.txt') },
      { sessionId: session.id, path: path.join(work, 'broken.txt') },
    ])
  })

  it('EditorFileSources: attaches once per session when the client offers fs, detaches on close', async () => {
    const work = tempDir('tangent-acp-fs-work-')
    fs.writeFileSync(path.join(work, 'open.txt'), 'saved\n')
    const backend = await openBackend()
    const session = await backend.createSession({ cwd: work })
    const { client, asked } = connectEditor(new Map([[path.join(work, 'open.txt'), 'unsaved edit\n']]))
    const outputs = async () =>
      (await backend.getSession(session.id)).events
        .filter((event) => event.type === 'tool/result')
        .map((event) => (event.data as { output: string }).output)

    // A client that offers no fs: nothing is attached.
    const without = new EditorFileSources(backend)
    without.initialize({ terminal: true })
    await without.open(client, session.id)
    await backend.prompt(session.id, 'read open.txt', ignore)
    expect(await outputs()).toEqual(['saved\n'])

    const sources = new EditorFileSources(backend)
    sources.initialize({ fs: { readTextFile: true, writeTextFile: true } })
    await sources.open(client, session.id)
    await sources.open(client, session.id)
    await backend.prompt(session.id, 'read open.txt', ignore)
    expect((await outputs()).at(-1)).toBe('unsaved edit\n')
    expect(asked).toHaveLength(1)

    await sources.close(session.id)
    await backend.prompt(session.id, 'read open.txt', ignore)
    expect((await outputs()).at(-1)).toBe('saved\n')
    expect(asked).toHaveLength(1)
    await expect(sources.open(client, 'NOSUCHSESSION')).rejects.toMatchObject({ code: 'session-not-found' })
    await sources.closeAll()
  })
})
