// `read`: a text file's content, optionally a range of lines, capped for the model. With a file
// source (an editor's buffers, docs/architecture.md §6.1) the text of a file is the source's when
// it has one: asked only once the path was confined and checked, bound by the same limits.
import { constants } from 'node:fs'
import path from 'node:path'
import { TangentError } from '@tangent/core'
import { z } from 'zod'
import { openConfined } from '../confine-path.js'
import { defineTool } from './agent-tool.js'
import { readAll } from './write-file.js'

export const ReadInput = z.object({
  path: z.string().describe('File path relative to the working directory'),
  offset: z.number().int().min(1).optional().describe('First line to return (1-based)'),
  limit: z.number().int().min(1).optional().describe('How many lines to return'),
})
export type ReadInput = z.infer<typeof ReadInput>

const maxChars = 100_000
const maxFileBytes = 10 * 1024 * 1024

export const readTool = defineTool<ReadInput>({
  writes: 'nothing',
  description: 'Read a text file in the working directory. Use offset/limit (lines) for large files.',
  inputSchema: ReadInput,
  async run(input, { cwd, signal, checkRealPath, fileSource }) {
    // Opened without following a link out of cwd; what is read is what was checked (confine-path.ts).
    const target = await openConfined(cwd, input.path, {
      access: 'read',
      flags: constants.O_RDONLY,
      check: checkRealPath,
    })
    const relative = target.path.relative
    let bytes: Buffer
    let note = ''
    try {
      if (target.kind === 'directory') {
        throw new TangentError('tool-failed', `${relative} is a directory: use the list tool.`)
      }
      const stat = await target.handle.stat()
      if (!stat.isFile()) throw new TangentError('tool-failed', `${relative} is not a regular file.`)
      // The source is named the file inside the session's folder as the client knows that folder.
      const held = fileSource ? await fileSource(path.join(cwd, relative), signal) : { text: null }
      if (held.text !== null) {
        const size = Buffer.byteLength(held.text, 'utf8')
        if (size > maxFileBytes) throw tooLarge(relative, size)
        bytes = Buffer.from(held.text, 'utf8')
      } else {
        if ('note' in held && held.note) note = `\n[${held.note}]`
        if (stat.size > maxFileBytes) throw tooLarge(relative, stat.size)
        bytes = await readAll(target.handle, stat.size)
      }
    } finally {
      await target.close()
    }
    if (bytes.subarray(0, 8192).includes(0)) {
      return { output: `${relative} is a binary file (${bytes.length} bytes); not shown.${note}` }
    }
    let text = bytes.toString('utf8')
    if (input.offset !== undefined || input.limit !== undefined) {
      const lines = text.split('\n')
      const start = (input.offset ?? 1) - 1
      text = lines.slice(start, input.limit === undefined ? undefined : start + input.limit).join('\n')
    }
    if (text.length > maxChars) {
      return {
        output: `${text.slice(0, maxChars)}\n[truncated: showing ${maxChars} of ${text.length} characters; use offset/limit to read the rest]${note}`,
      }
    }
    return { output: `${text}${note}` }
  },
})

function tooLarge(relative: string, size: number): TangentError {
  return new TangentError(
    'tool-failed',
    `${relative} is ${size} bytes, too large to read (limit ${maxFileBytes}): use grep or bash (head, sed -n) to look at parts of it.`,
  )
}
