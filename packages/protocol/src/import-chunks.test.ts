import { describe, expect, it } from 'vitest'
import { fitsOneImportMessage, importChunks } from './import-chunks.js'
import { maxMessageBytes } from './limits.js'

describe('importChunks', () => {
  it('cuts a text into pieces that join back to it, each within the message and character limits', () => {
    // ASCII, escapes (quotes, backslashes, control characters), 2- and 3-byte characters, emoji (pairs).
    const text = 'ab"\\\u0001é€🌳'.repeat(150_000)
    const pieces = [...importChunks(text)]
    expect(pieces.join('')).toBe(text)
    expect(pieces.length).toBeGreaterThan(2)
    for (const piece of pieces) {
      expect(Buffer.byteLength(JSON.stringify(piece))).toBeLessThanOrEqual(maxMessageBytes - 4 * 1024)
      expect(piece.length).toBeLessThanOrEqual(512 * 1024)
      // No surrogate pair is cut: no piece starts with a low or ends with a high surrogate.
      expect(piece.charCodeAt(0) >= 0xdc00 && piece.charCodeAt(0) <= 0xdfff).toBe(false)
      const last = piece.charCodeAt(piece.length - 1)
      expect(last >= 0xd800 && last <= 0xdbff).toBe(false)
    }
  })

  it('a small budget still makes progress; a lone surrogate is counted as its escape', () => {
    const pieces = [...importChunks('\ud800x\udc00y', 10, 3)]
    expect(pieces.join('')).toBe('\ud800x\udc00y')
    for (const piece of pieces) expect(Buffer.byteLength(JSON.stringify(piece))).toBeLessThanOrEqual(10)
  })

  it('says whether a text fits one session.import message', () => {
    expect(fitsOneImportMessage('x'.repeat(1000))).toBe(true)
    expect(fitsOneImportMessage('"'.repeat(600 * 1024))).toBe(false)
    expect(fitsOneImportMessage('x'.repeat(maxMessageBytes))).toBe(false)
  })
})
