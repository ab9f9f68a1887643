// `list`: the entries of a directory (optionally recursive), directories marked with `/`.
import { constants } from 'node:fs'
import { TangentError } from '@tangent/core'
import { z } from 'zod'
import { openConfined } from '../confine-path.js'
import { defineTool } from './agent-tool.js'
import { realPathOfEntry, skippedDirectoryNames, type WalkEntry, walkDirectory } from './walk-directory.js'

export const ListInput = z.object({
  path: z.string().optional().describe('Directory relative to the working directory (default ".")'),
  recursive: z.boolean().optional().describe('Also list subdirectories (.git and node_modules are skipped)'),
})
export type ListInput = z.infer<typeof ListInput>

const maxEntries = 1000

export const listTool = defineTool<ListInput>({
  writes: 'nothing',
  description: 'List the files and directories in a directory of the working directory.',
  inputSchema: ListInput,
  async run(input, { cwd, signal, checkRealPath }) {
    // The folder is opened, and walked, without following a link out of cwd (confine-path.ts).
    const target = await openConfined(cwd, input.path ?? '.', {
      access: 'read',
      flags: constants.O_RDONLY,
      check: checkRealPath,
    })
    const relative = target.path.relative
    const recursive = input.recursive ?? false
    const lines: string[] = []
    let total = 0
    try {
      if (target.kind !== 'directory') {
        throw new TangentError('tool-failed', `${relative} is not a directory: use the read tool.`)
      }
      // A folder a deny rule covers is listed, not descended (docs/architecture.md §12.1).
      const denied = new Set<string>()
      const enter = async (entry: WalkEntry) => !denied.has(entry.relative)
      for await (const entry of walkDirectory(target.directory, recursive, signal, enter)) {
        total++
        let skipped = entry.kind === 'directory' && skippedDirectoryNames.has(entry.name)
        if (recursive && entry.kind === 'directory' && !skipped && checkRealPath) {
          const refused = await checkRealPath(realPathOfEntry(entry), 'read', true).then(
            () => false,
            () => true,
          )
          if (refused) denied.add(entry.relative)
          skipped = refused
        }
        if (lines.length >= maxEntries) continue
        const suffix = entry.kind === 'directory' ? '/' : entry.kind === 'symlink' ? ' -> (symlink)' : ''
        lines.push(`${entry.relative}${suffix}${skipped && recursive ? ' (not descended)' : ''}`)
      }
    } finally {
      await target.close()
    }
    if (total === 0) return { output: `${relative} is empty.` }
    if (total > lines.length) lines.push(`[${total - lines.length} more entries not shown]`)
    return { output: lines.join('\n') }
  },
})
