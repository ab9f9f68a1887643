import { describe, expect, it } from 'vitest'
import { TangentError } from './errors.js'
import { maxEventLineBytes } from './event-size.js'
import {
  base64Length,
  detectImageMediaType,
  maxPromptImageBytes,
  maxPromptImages,
  maxPromptImagesTotalBytes,
  promptImageParts,
} from './prompt-images.js'

// Real 1x1 images of each format.
const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='
const gif = 'R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7'
const webp = 'UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA=='
const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1]).toString('base64')

function refusal(images: { mediaType: string; data: string }[]): TangentError {
  try {
    promptImageParts(images)
  } catch (error) {
    if (error instanceof TangentError) return error
    throw error
  }
  throw new Error('accepted')
}

describe('promptImageParts', () => {
  it('takes each format whose bytes start with its magic number, as file parts in order', () => {
    const images = [
      { mediaType: 'image/png', data: png },
      { mediaType: 'image/jpeg', data: jpeg },
      { mediaType: 'image/gif', data: gif },
      { mediaType: 'image/webp', data: webp },
    ]
    expect(promptImageParts(images)).toEqual(images.map((image) => ({ type: 'file', ...image })))
    expect(promptImageParts([])).toEqual([])
  })

  it('detects the format of bytes', () => {
    expect(detectImageMediaType(Buffer.from(png, 'base64'))).toBe('image/png')
    expect(detectImageMediaType(Buffer.from(webp, 'base64'))).toBe('image/webp')
    expect(detectImageMediaType(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeUndefined()
    // RIFF without WEBP (a WAV file) is not a WebP image.
    expect(detectImageMediaType(Buffer.from('RIFF\x24\0\0\0WAVEfmt '))).toBeUndefined()
  })

  it('refuses a type outside the list (SVG can hold scripts), naming the image', () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>').toString('base64')
    const error = refusal([
      { mediaType: 'image/png', data: png },
      { mediaType: 'image/svg+xml', data: svg },
    ])
    expect(error.code).toBe('invalid-params')
    expect(error.message).toContain('Image 2 of 2')
    expect(error.message).toContain('image/svg+xml')
    expect(error.data).toMatchObject({ index: 1 })
  })

  it('refuses bytes that are not of the type named, saying what they are', () => {
    const error = refusal([{ mediaType: 'image/jpeg', data: png }])
    expect(error.message).toMatch(/says image\/jpeg but its bytes are image\/png/)
    expect(error.data).toMatchObject({ index: 0, detected: 'image/png' })
    const text = Buffer.from('just some text, not an image').toString('base64')
    expect(refusal([{ mediaType: 'image/png', data: text }]).message).toContain('not an image')
  })

  it.each([
    ['a data: URL', `data:image/png;base64,${png}`],
    ['line breaks', `${png.slice(0, 40)}\n${png.slice(40)}`],
    ['no padding', png.replace(/=+$/, '')],
    ['URL-safe characters', png.replace(/\+/g, '-').replace(/\//g, '_').replace('A', '-')],
    ['padding inside', `${png.slice(0, 8)}====${png.slice(12)}`],
    ['an empty string', ''],
  ])('refuses data that is not strict base64: %s', (_what, data) => {
    expect(refusal([{ mediaType: 'image/png', data }]).message).toContain('not valid base64')
  })

  it('bounds each image, the count and the total, before decoding them', () => {
    const tooBig = `iVBORw0KGgo${'A'.repeat(base64Length(maxPromptImageBytes + 3) - 11)}`
    const big = refusal([{ mediaType: 'image/png', data: tooBig }])
    expect(big.message).toMatch(/over the 3\.75 MiB one image may be/)
    expect(big.data).toMatchObject({ limit: maxPromptImageBytes })
    const many = Array.from({ length: maxPromptImages + 1 }, () => ({ mediaType: 'image/png', data: png }))
    expect(refusal(many).data).toMatchObject({ count: maxPromptImages + 1, limit: maxPromptImages })
    const justUnder = `iVBORw0KGgo${'A'.repeat(base64Length(maxPromptImageBytes) - 11)}`
    const three = Array.from({ length: 3 }, () => ({ mediaType: 'image/png', data: justUnder }))
    expect(refusal(three).data).toMatchObject({ limit: maxPromptImagesTotalBytes })
    expect(promptImageParts(three.slice(0, 2))).toHaveLength(2)
  })

  it('keeps the largest prompt inside one event, so the store never refuses it', () => {
    // Base64 of every image, plus the longest text JSON-escaped at 6 bytes a character.
    const largest = base64Length(maxPromptImagesTotalBytes) + maxPromptImages * 100 + 6 * 256 * 1024
    expect(largest).toBeLessThan(maxEventLineBytes / 4)
  })
})
