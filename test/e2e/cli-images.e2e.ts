// `tangent run --image FILE`: images read from files go with the message; the format is told by
// the bytes; a file that is no image a prompt takes, or an image to a model that takes none,
// is refused before a session is made. The built CLI, in-process, offline (demo model).
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SessionEvent, SessionSummary } from '../../packages/protocol/dist/index.js'
import { createSandbox, removeSandbox, type Sandbox, tangentInProcess, tangentJson } from './cli-harness.js'

let sandbox: Sandbox
beforeAll(() => {
  sandbox = createSandbox()
})
afterAll(() => removeSandbox(sandbox))

const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='
const sessions = () => tangentJson<SessionSummary[]>(sandbox, ['sessions', '--all'])

describe('tangent run --image', () => {
  it('sends the images with the message, or alone, and logs them', async () => {
    // Named .jpg but a PNG: the bytes decide.
    fs.writeFileSync(path.join(sandbox.cwd, 'shot.jpg'), Buffer.from(png, 'base64'))
    const run = await tangentJson<{ sessionId: string; text: string }>(sandbox, [
      'run',
      '--image',
      'shot.jpg',
      '--image',
      'shot.jpg',
      'what is this?',
    ])
    expect(run.text).toBe(
      'Turn 1: you said "what is this?". Received 2 images: image/png (70 bytes), image/png (70 bytes).',
    )
    const alone = await tangentJson<{ text: string }>(sandbox, [
      'run',
      '--session',
      run.sessionId,
      '--image',
      'shot.jpg',
    ])
    expect(alone.text).toBe('Turn 2: Received 1 image: image/png (70 bytes).')
    const { events } = await tangentJson<{ events: SessionEvent[] }>(sandbox, ['show', run.sessionId])
    const messages = events.filter((event) => event.type === 'user/message').map((event) => event.data)
    expect(messages).toEqual([
      {
        content: [
          { type: 'text', text: 'what is this?' },
          { type: 'file', mediaType: 'image/png', data: png },
          { type: 'file', mediaType: 'image/png', data: png },
        ],
      },
      { content: [{ type: 'file', mediaType: 'image/png', data: png }] },
    ])
  })

  it('refuses a file that is no image, a missing one, and nothing at all, making no session', async () => {
    const before = (await sessions()).length
    fs.writeFileSync(path.join(sandbox.cwd, 'fake.png'), '<svg xmlns="http://www.w3.org/2000/svg"/>')
    const notImage = await tangentInProcess(sandbox, ['run', '--image', 'fake.png', 'look'])
    expect([notImage.code, notImage.stderr]).toEqual([
      2,
      'error[usage]: --image fake.png: not an image a prompt takes (image/png, image/jpeg, image/gif, image/webp, told by its bytes).\n',
    ])
    const missing = await tangentInProcess(sandbox, ['run', '--image', 'nope.png', 'look'])
    expect([missing.code, missing.stderr]).toEqual([2, 'error[usage]: --image nope.png: no such file.\n'])
    // A model that takes no images: refused before the turn, the session made for it forgotten.
    const withKey = {
      ...sandbox,
      env: { ...sandbox.env, DEEPSEEK_API_KEY: 'sk-never-sent', DEEPSEEK_BASE_URL: 'http://127.0.0.1:9/v1' },
    }
    fs.writeFileSync(path.join(sandbox.cwd, 'dot.png'), Buffer.from(png, 'base64'))
    const unsupported = await tangentInProcess(withKey, [
      'run',
      '--model',
      'deepseek:deepseek-chat',
      '--image',
      'dot.png',
      'look',
    ])
    expect(unsupported.code).toBe(1)
    expect(unsupported.stderr).toMatch(
      /^error\[images-unsupported\]: The prompt carries 1 image but deepseek:deepseek-chat does not take images: switch the session to a model that does/,
    )
    const nothing = await tangentInProcess(sandbox, ['run'])
    expect(nothing.code).toBe(2)
    expect(nothing.stderr).toMatch(/^error\[usage\]: run needs a non-empty message or an --image/)
    expect((await sessions()).length).toBe(before)
  })

  it('chat: /image attaches an image to the next message only; a file that is no image is refused', async () => {
    fs.writeFileSync(path.join(sandbox.cwd, 'dot.png'), Buffer.from(png, 'base64'))
    fs.writeFileSync(path.join(sandbox.cwd, 'notes.txt'), 'not an image')
    const chat = await tangentInProcess(sandbox, ['chat'], {
      input: '/image notes.txt\n/image dot.png\nwhat is it?\nand now?\n',
    })
    expect(chat.code).toBe(0)
    expect(chat.stderr).toContain('/image notes.txt: not an image a prompt takes')
    expect(chat.stdout).toContain('image/png attached: 1 image goes with your next message.')
    expect(chat.stdout).toContain('Turn 1: you said "what is it?". Received 1 image: image/png (70 bytes).')
    expect(chat.stdout).toContain('Turn 2: you said "and now?".')
    expect(chat.stdout).not.toContain('Turn 2: you said "and now?". Received')
  })
})
