// printLines writes a long listing (a 1k-message transcript) in pieces of 128 lines: the bytes
// are exactly the lines, each ended by a newline, however they are cut.
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { captureContext } from './capture.test-helper.js'
import { printJson, printLines } from './output.js'

function capture() {
  const writes: string[] = []
  const { context, stdout } = captureContext({ env: {}, cwd: '/', home: '/', stdin: new PassThrough() })
  const write = context.stdout.write
  context.stdout.write = (chunk: string) => {
    writes.push(chunk)
    return write(chunk)
  }
  return { context, stdout, writes }
}

describe('printLines', () => {
  it('writes a long listing in pieces whose concatenation is the lines, each with its newline', () => {
    const { context, stdout, writes } = capture()
    const lines: string[] = []
    for (let i = 0; i < 3000; i++)
      lines.push(i % 7 === 0 ? '' : `${i}  result     ✓ ${'lorem ipsum '.repeat(i % 13)}…`)
    printLines(context, lines)
    expect(stdout()).toBe(`${lines.join('\n')}\n`)
    // Pieces of 128 lines, each ending a line.
    expect(writes).toHaveLength(Math.ceil(3000 / 128))
    for (const piece of writes) expect(piece.endsWith('\n')).toBe(true)
    expect(writes[0]).toBe(`${lines.slice(0, 128).join('\n')}\n`)
  })

  it('a very long line is written whole, between its neighbours', () => {
    const { context, stdout, writes } = capture()
    const long = `assistant  ${'x'.repeat(100_000)}`
    const lines = ['first', long, 'last']
    printLines(context, lines)
    expect(stdout()).toBe(`first\n${long}\nlast\n`)
    expect(writes.some((piece) => piece.includes(long))).toBe(true)
  })

  it('a short listing is one write; no lines write nothing', () => {
    const { context, stdout, writes } = capture()
    printLines(context, ['a', '', 'b'])
    expect(writes).toEqual(['a\n\nb\n'])
    printLines(context, [])
    expect(stdout()).toBe('a\n\nb\n')
    expect(writes).toHaveLength(1)
  })
})

describe('printJson', () => {
  it('writes a long array in pieces whose bytes are exactly JSON.stringify of it, and a newline', () => {
    const { context, stdout, writes } = capture()
    const value: unknown[] = []
    for (let i = 0; i < 1000; i++) {
      value.push(
        i % 97 === 0
          ? undefined
          : i % 89 === 0
            ? () => i
            : {
                id: `s${i}`,
                title: i % 5 === 0 ? 'quote " and ✓ and \n' : '',
                n: i,
                nested: [i, null, { a: true }],
              },
      )
    }
    printJson(context, value)
    expect(stdout()).toBe(`${JSON.stringify(value)}\n`)
    expect(writes).toHaveLength(Math.ceil(1000 / 256))
    expect(JSON.parse(stdout())).toHaveLength(1000)
  })

  it('a short array, an object, an empty array and undefined are written whole', () => {
    for (const value of [[1, 2, 3], { a: [1] }, [], undefined, 'text']) {
      const { context, stdout } = capture()
      printJson(context, value)
      expect(stdout()).toBe(`${JSON.stringify(value) ?? 'null'}\n`)
    }
  })
})
