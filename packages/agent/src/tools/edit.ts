// `edit`: exact string replacement in one file; refuses when the text is missing or ambiguous.
import { constants } from 'node:fs'
import { TangentError } from '@tangent/core'
import { z } from 'zod'
import { openConfined } from '../confine-path.js'
import { defineTool, loggedDiff } from './agent-tool.js'
import { readAll, replacedLinkNote, writeFileInPlace } from './write-file.js'

export const EditInput = z.object({
  path: z.string().describe('File path relative to the working directory'),
  oldText: z.string().describe('The exact text to replace (whitespace included)'),
  newText: z.string().describe('The replacement text'),
  replaceAll: z.boolean().optional().describe('Replace every occurrence instead of requiring exactly one'),
})
export type EditInput = z.infer<typeof EditInput>

export const editTool = defineTool<EditInput>({
  writes: 'reported',
  description:
    'Replace an exact piece of text in a file. oldText must occur exactly once unless replaceAll is true.',
  inputSchema: EditInput,
  async run(input, { cwd, protectedPaths, checkRealPath }) {
    // Read and written through one descriptor, opened without following a link out of cwd (confine-path.ts).
    const target = await openConfined(cwd, input.path, {
      access: 'write',
      flags: constants.O_RDWR,
      protectedPaths,
      check: checkRealPath,
    })
    const relative = target.path.relative
    try {
      if (input.oldText === '') {
        throw new TangentError('tool-failed', 'oldText is empty: give the exact text to replace.')
      }
      const stat = target.kind === 'file' ? await target.handle.stat() : null
      if (target.kind !== 'file' || !stat?.isFile()) {
        throw new TangentError('tool-failed', `${relative} is not a regular file: it cannot be edited.`)
      }
      const text = (await readAll(target.handle, stat.size)).toString('utf8')
      const count = countOccurrences(text, input.oldText)
      if (count === 0) {
        throw new TangentError(
          'tool-failed',
          `oldText was not found in ${relative}: read the file and copy the exact text, whitespace included.`,
        )
      }
      if (count > 1 && !input.replaceAll) {
        throw new TangentError(
          'tool-failed',
          `oldText matches ${count} times in ${relative}: include more surrounding text to make it unique, or set replaceAll.`,
        )
      }
      // split/join, not String.replace: `$` in newText must stay literal. Never written through
      // a hard link to a file elsewhere (write-file.ts).
      const after = text.split(input.oldText).join(input.newText)
      const written = await writeFileInPlace(target, after)
      const note = written.replacedLink ? replacedLinkNote(relative) : ''
      const diff = loggedDiff(relative, text, after)
      return {
        output: `Edited ${relative}: replaced ${count} occurrence${count === 1 ? '' : 's'}.${note}`,
        ...(diff ? { diff } : {}),
        wrote: [relative],
      }
    } finally {
      await target.close()
    }
  },
})

function countOccurrences(text: string, needle: string): number {
  let count = 0
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) count++
  return count
}
