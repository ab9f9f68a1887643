import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  fileLines,
  firstLineOf,
  type ImportLine,
  OversizedLine,
  openSessionFile,
  sessionFileFirstLine,
  textLines,
} from './import-lines.js'

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-import-lines-'))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

let files = 0
function fileOf(content: string | Buffer): string {
  const file = path.join(dir, `f${files++}.jsonl`)
  fs.writeFileSync(file, content)
  return file
}

function linesOfFile(file: string, maxLineBytes: number, chunk?: number): ImportLine[] {
  const fd = openSessionFile(file)
  try {
    return [...fileLines(fd, maxLineBytes, chunk)]
  } finally {
    fs.closeSync(fd)
  }
}

describe('import lines', () => {
  it('splits text as the readers did: empty lines kept, none after a final newline', () => {
    expect([...textLines('a\n\nb')]).toEqual(['a', '', 'b'])
    expect([...textLines('a\n')]).toEqual(['a'])
    expect([...textLines('')]).toEqual([])
    expect([...textLines('a\r\nb')]).toEqual(['a\r', 'b'])
  })

  it('reads a file into the same lines at every chunk size, characters split across chunks included', () => {
    const text = '{"a":"é—"}\n\n{"b":"🤖x"}\r\nlast line without newline ü'
    const file = fileOf(text)
    for (let chunk = 1; chunk <= 12; chunk++)
      expect(linesOfFile(file, 1024, chunk), `chunk ${chunk}`).toEqual([...textLines(text)])
    expect(linesOfFile(file, 1024)).toEqual([...textLines(text)])
  })

  it('passes over a line longer than the limit (its bytes, never held) and reads the rest', () => {
    const long = 'x'.repeat(40)
    const file = fileOf(`short\n${long}\nafter\n${long}`)
    for (const chunk of [3, 7, 64, 4096]) {
      const lines = linesOfFile(file, 10, chunk)
      expect(lines, `chunk ${chunk}`).toEqual([
        'short',
        new OversizedLine(40),
        'after',
        new OversizedLine(40),
      ])
    }
    // A line of exactly the limit is read.
    expect(linesOfFile(fileOf('0123456789\n'), 10, 4)).toEqual(['0123456789'])
  })

  it('reads the first line whole (long, multibyte), and only it', () => {
    const file = fileOf(`${'é'.repeat(5000)}\nsecond`)
    const fd = openSessionFile(file)
    try {
      expect(firstLineOf(fd)).toBe('é'.repeat(5000))
    } finally {
      fs.closeSync(fd)
    }
    expect(sessionFileFirstLine(fileOf('only'))).toBe('only')
  })

  it('opens only a regular file: a FIFO (without blocking), a folder, a device and a missing file are refused', () => {
    const fifo = path.join(dir, 'fifo')
    execFileSync('mkfifo', [fifo])
    const refused = (file: string) => {
      try {
        openSessionFile(file)
      } catch (error) {
        return (error as { code?: string }).code
      }
      return 'opened'
    }
    expect(refused(fifo)).toBe('invalid-path')
    expect(refused(dir)).toBe('invalid-path')
    expect(refused('/dev/zero')).toBe('invalid-path')
    expect(refused(path.join(dir, 'missing.jsonl'))).toBe('invalid-path')
    // A link to a regular file is that file.
    const target = fileOf('linked\n')
    const link = path.join(dir, 'link.jsonl')
    fs.symlinkSync(target, link)
    expect(sessionFileFirstLine(link)).toBe('linked')
  })
})
