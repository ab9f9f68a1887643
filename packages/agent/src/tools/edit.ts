// `edit`: exact string replacement in one file; refuses when the text is missing or ambiguous.
import fs from 'node:fs/promises'
import { TangentError } from '@tangent/core'
import { z } from 'zod'
import { assertWritable, confinePath } from '../confine-path.js'
import { defineTool } from './agent-tool.js'
import { replacedLinkNote, writeFileInPlace } from './write-file.js'

export const EditInput = z.object({
  path: z.string().describe('File path relative to the working directory'),
  oldText: z.string().describe('The exact text to replace (whitespace included)'),
  newText: z.string().describe('The replacement text'),
  replaceAll: z.boolean().optional().describe('Replace every occurrence instead of requiring exactly one'),
})
export type EditInput = z.infer<typeof EditInput>

export const editTool = defineTool<EditInput>({
  description:
    'Replace an exact piece of text in a file. oldText must occur exactly once unless replaceAll is true.',
  inputSchema: EditInput,
  async run(input, { cwd, protectedPaths }) {
    const target = await confinePath(cwd, input.path)
    assertWritable(target, protectedPaths)
    if (input.oldText === '') {
      throw new TangentError('tool-failed', 'oldText is empty: give the exact text to replace.')
    }
    const text = await fs.readFile(target.absolute, 'utf8')
    const count = countOccurrences(text, input.oldText)
    if (count === 0) {
      throw new TangentError(
        'tool-failed',
        `oldText was not found in ${target.relative}: read the file and copy the exact text, whitespace included.`,
      )
    }
    if (count > 1 && !input.replaceAll) {
      throw new TangentError(
        'tool-failed',
        `oldText matches ${count} times in ${target.relative}: include more surrounding text to make it unique, or set replaceAll.`,
      )
    }
    // split/join, not String.replace: `$` in newText must stay literal. Never written through
    // a hard link to a file elsewhere (write-file.ts).
    const written = await writeFileInPlace(target.absolute, text.split(input.oldText).join(input.newText), {
      relative: target.relative,
    })
    const note = written.replacedLink ? replacedLinkNote(target.relative) : ''
    return {
      output: `Edited ${target.relative}: replaced ${count} occurrence${count === 1 ? '' : 's'}.${note}`,
    }
  },
})

function countOccurrences(text: string, needle: string): number {
  let count = 0
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) count++
  return count
}
