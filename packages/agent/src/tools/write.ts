// `write`: creates or replaces a file (or appends to it), creating parent directories.
import fs from 'node:fs/promises'
import path from 'node:path'
import { z } from 'zod'
import { assertWritable, confinePath } from '../confine-path.js'
import { defineTool } from './agent-tool.js'
import { replacedLinkNote, writeFileInPlace } from './write-file.js'

export const WriteInput = z.object({
  path: z.string().describe('File path relative to the working directory'),
  content: z.string().describe('The text to write'),
  append: z.boolean().optional().describe('Append to the end of the file instead of replacing it'),
})
export type WriteInput = z.infer<typeof WriteInput>

export const writeTool = defineTool<WriteInput>({
  description:
    'Write a text file in the working directory (replacing it, or appending with append: true). Parent directories are created.',
  inputSchema: WriteInput,
  async run(input, { cwd, protectedPaths }) {
    const target = await confinePath(cwd, input.path)
    assertWritable(target, protectedPaths)
    await fs.mkdir(path.dirname(target.absolute), { recursive: true })
    const bytes = Buffer.byteLength(input.content)
    // Never through a hard link to a file elsewhere (write-file.ts).
    const written = await writeFileInPlace(target.absolute, input.content, {
      append: input.append === true,
      relative: target.relative,
    })
    const note = written.replacedLink ? replacedLinkNote(target.relative) : ''
    if (input.append) {
      return { output: `Appended ${bytes} bytes to ${target.relative} (now ${written.size} bytes).${note}` }
    }
    return { output: `Wrote ${target.relative} (${bytes} bytes).${note}` }
  },
})
