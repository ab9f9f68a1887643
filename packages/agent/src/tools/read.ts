// `read`: a text file's content, optionally a range of lines, capped for the model.
import fs from 'node:fs/promises'
import { TangentError } from '@tangent/core'
import { z } from 'zod'
import { confinePath } from '../confine-path.js'
import { defineTool } from './agent-tool.js'

export const ReadInput = z.object({
  path: z.string().describe('File path relative to the working directory'),
  offset: z.number().int().min(1).optional().describe('First line to return (1-based)'),
  limit: z.number().int().min(1).optional().describe('How many lines to return'),
})
export type ReadInput = z.infer<typeof ReadInput>

const maxChars = 100_000
const maxFileBytes = 10 * 1024 * 1024

export const readTool = defineTool<ReadInput>({
  description: 'Read a text file in the working directory. Use offset/limit (lines) for large files.',
  inputSchema: ReadInput,
  async run(input, { cwd }) {
    const target = await confinePath(cwd, input.path)
    const stat = await fs.stat(target.absolute)
    if (stat.isDirectory()) {
      throw new TangentError('tool-failed', `${target.relative} is a directory: use the list tool.`)
    }
    if (stat.size > maxFileBytes) {
      throw new TangentError(
        'tool-failed',
        `${target.relative} is ${stat.size} bytes, too large to read (limit ${maxFileBytes}): use grep or bash (head, sed -n) to look at parts of it.`,
      )
    }
    const bytes = await fs.readFile(target.absolute)
    if (bytes.subarray(0, 8192).includes(0)) {
      return { output: `${target.relative} is a binary file (${bytes.length} bytes); not shown.` }
    }
    let text = bytes.toString('utf8')
    if (input.offset !== undefined || input.limit !== undefined) {
      const lines = text.split('\n')
      const start = (input.offset ?? 1) - 1
      text = lines.slice(start, input.limit === undefined ? undefined : start + input.limit).join('\n')
    }
    if (text.length > maxChars) {
      return {
        output: `${text.slice(0, maxChars)}\n[truncated: showing ${maxChars} of ${text.length} characters; use offset/limit to read the rest]`,
      }
    }
    return { output: text }
  },
})
