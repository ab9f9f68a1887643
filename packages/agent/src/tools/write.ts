// `write`: creates or replaces a file (or appends to it), creating parent directories.
import { constants } from 'node:fs'
import { TangentError } from '@tangent/core'
import { z } from 'zod'
import { type OpenedPath, openConfined } from '../confine-path.js'
import { defineTool, loggedDiff, maxLoggedDiffChars } from './agent-tool.js'
import { readAll, replacedLinkNote, writeFileInPlace } from './write-file.js'

export const WriteInput = z.object({
  path: z.string().describe('File path relative to the working directory'),
  content: z.string().describe('The text to write'),
  append: z.boolean().optional().describe('Append to the end of the file instead of replacing it'),
})
export type WriteInput = z.infer<typeof WriteInput>

export const writeTool = defineTool<WriteInput>({
  writes: 'reported',
  description:
    'Write a text file in the working directory (replacing it, or appending with append: true). Parent directories are created.',
  inputSchema: WriteInput,
  async run(input, { cwd, protectedPaths, checkRealPath }) {
    // Parents are created and the file opened without following a link out of cwd (confine-path.ts).
    const open = (flags: number) =>
      openConfined(cwd, input.path, {
        access: 'write',
        flags,
        create: true,
        protectedPaths,
        check: checkRealPath,
      })
    // Opened for reading too, through the same descriptor, to keep the text it replaces for the
    // diff clients show (`ToolOutcome.diff`); a file the user may write but not read is still
    // written, without a diff. Append reads the old content when it replaces a hard-linked file
    // (write-file.ts).
    const append = input.append ? constants.O_APPEND : 0
    const target = await open(constants.O_RDWR | append).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code !== 'EACCES' || input.append) throw error
      return open(constants.O_WRONLY)
    })
    const relative = target.path.relative
    try {
      if (target.kind === 'directory') throw notAFile(relative)
      const bytes = Buffer.byteLength(input.content)
      const before = await textBefore(target)
      // Never through a hard link to a file elsewhere (write-file.ts).
      const written = await writeFileInPlace(target, input.content, { append: input.append === true })
      const note = written.replacedLink ? replacedLinkNote(relative) : ''
      const after =
        before === undefined ? undefined : input.append ? `${before ?? ''}${input.content}` : input.content
      const diff =
        before === undefined || after === undefined ? undefined : loggedDiff(relative, before, after)
      const shown = diff ? { diff } : {}
      if (input.append) {
        return {
          output: `Appended ${bytes} bytes to ${relative} (now ${written.size} bytes).${note}`,
          ...shown,
          wrote: [relative],
        }
      }
      return { output: `Wrote ${relative} (${bytes} bytes).${note}`, ...shown, wrote: [relative] }
    } finally {
      await target.close()
    }
  },
})

/**
 * The text a write replaces: null for a file it creates (empty, just made), undefined when it
 * cannot be shown (too large, unreadable, not a regular file).
 */
async function textBefore(target: OpenedPath): Promise<string | null | undefined> {
  if (target.kind !== 'file') return undefined
  try {
    const stat = await target.handle.stat()
    if (!stat.isFile() || stat.size > maxLoggedDiffChars) return undefined
    if (target.created) return null
    return (await readAll(target.handle, stat.size)).toString('utf8')
  } catch {
    return undefined
  }
}

function notAFile(relative: string): TangentError {
  return new TangentError('tool-failed', `${relative} is a directory: it cannot be written.`)
}
