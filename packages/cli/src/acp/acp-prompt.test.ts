import * as acp from '@agentclientprotocol/sdk/unstable'
import { describe, expect, it } from 'vitest'
import { promptContent, sessionModelTakesImages } from './acp-prompt.js'

const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='

function refusal(run: () => unknown): acp.RequestError {
  try {
    run()
  } catch (error) {
    if (error instanceof acp.RequestError) return error
    throw error
  }
  throw new Error('accepted')
}

describe('promptContent', () => {
  it('joins text, links and embedded text files, and takes images for a model that takes them', () => {
    const blocks: acp.ContentBlock[] = [
      { type: 'text', text: 'look at' },
      { type: 'resource_link', name: 'a.ts', uri: 'file:///p/a.ts' },
      { type: 'resource', resource: { uri: 'file:///p/b.txt', text: 'bee' } },
      { type: 'image', mimeType: 'image/png', data: png, uri: 'file:///p/shot.png' },
      { type: 'resource', resource: { uri: 'file:///p/c.png', mimeType: 'image/png', blob: png } },
    ]
    expect(promptContent(blocks, true)).toEqual({
      text: 'look at\n[a.ts](file:///p/a.ts)\n<file uri="file:///p/b.txt">\nbee\n</file>',
      images: [
        { mediaType: 'image/png', data: png },
        { mediaType: 'image/png', data: png },
      ],
    })
    expect(promptContent([{ type: 'image', mimeType: 'image/png', data: png }], true)).toEqual({
      text: '',
      images: [{ mediaType: 'image/png', data: png }],
    })
  })

  it('refuses an image for a model that takes none, naming the model and how to switch', () => {
    const error = refusal(() =>
      promptContent(
        [
          { type: 'text', text: 'hi' },
          { type: 'image', mimeType: 'image/png', data: png },
        ],
        false,
        'deepseek:deepseek-chat',
      ),
    )
    expect(error.code).toBe(-32602)
    expect(error.data).toEqual({ code: 'images-unsupported', model: 'deepseek:deepseek-chat' })
    expect(error.message).toContain('deepseek:deepseek-chat')
    expect(error.message).toContain('Switch the model')
  })

  it('refuses audio, binary files that are no image, malformed images and an empty prompt', () => {
    const cases: [acp.ContentBlock[], RegExp][] = [
      [[{ type: 'audio', mimeType: 'audio/wav', data: 'UklGRg==' }], /audio .*does not take audio/],
      [
        [
          {
            type: 'resource',
            resource: { uri: 'file:///p/a.pdf', mimeType: 'application/pdf', blob: 'JVBERi0=' },
          },
        ],
        /a\.pdf as binary data \(application\/pdf\).*attach it as a link/,
      ],
      [[{ type: 'image', mimeType: 'image/svg+xml', data: 'PHN2Zy8+' }], /image\/svg\+xml/],
      [
        [{ type: 'image', mimeType: 'image/jpeg', data: png }],
        /says image\/jpeg but its bytes are image\/png/,
      ],
      [[{ type: 'image', mimeType: 'image/png', data: 'not base64!' }], /not valid base64/],
      [[], /empty/],
      [[{ type: 'text', text: '' }], /empty/],
    ]
    for (const [blocks, message] of cases) {
      const error = refusal(() => promptContent(blocks, true))
      expect(error.code).toBe(-32602)
      expect(error.message).toMatch(message)
      expect((error.data as { code: string }).code).toBe('invalid-params')
    }
  })
})

describe('sessionModelTakesImages', () => {
  const info = {
    defaultModel: 'demo:scripted',
    models: [
      { id: 'demo:scripted', available: true, images: true },
      { id: 'openai-compatible:llava', available: true, images: true },
      { id: 'deepseek:deepseek-chat', available: true, images: false },
    ],
  }
  it('takes the runtime’s word from host.info, the default model for a log without one', () => {
    expect(sessionModelTakesImages({ model: null }, info, {})).toBe(true)
    expect(
      sessionModelTakesImages({ model: null }, { ...info, defaultModel: 'deepseek:deepseek-chat' }, {}),
    ).toBe(false)
    // Declared where the runtime runs, not here: the listing wins.
    expect(
      sessionModelTakesImages({ model: { provider: 'openai-compatible', model: 'llava' } }, info, {}),
    ).toBe(true)
  })

  it('asks the registry of this environment for a model outside the listing', () => {
    expect(sessionModelTakesImages({ model: { provider: 'openai', model: 'gpt-4o' } }, info, {})).toBe(true)
    const local = { model: { provider: 'openai-compatible', model: 'qwen-vl' } }
    expect(sessionModelTakesImages(local, info, {})).toBe(false)
    expect(sessionModelTakesImages(local, info, { TANGENT_IMAGE_MODELS: 'openai-compatible:qwen-vl' })).toBe(
      true,
    )
  })
})
