// `write`: creates or replaces a file (or appends to it), creating parent directories.
import { constants } from 'node:fs'
import { TangentError } from '@tangent/core'
import { z } from 'zod'
import { openConfined } from '../confine-path.js'
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
  async run(input, { cwd, protectedPaths, checkRealPath }) {
    // Parents are created and the file opened without following a link out of cwd (confine-path.ts).
    const target = await openConfined(cwd, input.path, {
      access: 'write',
      // Append reads the old content when it replaces a hard-linked file (write-file.ts).
      flags: input.append ? constants.O_RDWR | constants.O_APPEND : constants.O_WRONLY,
      create: true,
      protectedPaths,
      check: checkRealPath,
    })
    const relative = target.path.relative
    try {
      if (target.kind === 'directory') throw notAFile(relative)
      const bytes = Buffer.byteLength(input.content)
      // Never through a hard link to a file elsewhere (write-file.ts).
      const written = await writeFileInPlace(target, input.content, { append: input.append === true })
      const note = written.replacedLink ? replacedLinkNote(relative) : ''
      if (input.append) {
        return { output: `Appended ${bytes} bytes to ${relative} (now ${written.size} bytes).${note}` }
      }
      return { output: `Wrote ${relative} (${bytes} bytes).${note}` }
    } finally {
      await target.close()
    }
  },
})

function notAFile(relative: string): TangentError {
  return new TangentError('tool-failed', `${relative} is a directory: it cannot be written.`)
}
