// `list`: the entries of a directory (optionally recursive), directories marked with `/`.
import fs from 'node:fs/promises'
import { TangentError } from '@tangent/core'
import { z } from 'zod'
import { confinePath } from '../confine-path.js'
import { defineTool } from './agent-tool.js'
import { skippedDirectoryNames, walkDirectory } from './walk-directory.js'

export const ListInput = z.object({
  path: z.string().optional().describe('Directory relative to the working directory (default ".")'),
  recursive: z.boolean().optional().describe('Also list subdirectories (.git and node_modules are skipped)'),
})
export type ListInput = z.infer<typeof ListInput>

const maxEntries = 1000

export const listTool = defineTool<ListInput>({
  description: 'List the files and directories in a directory of the working directory.',
  inputSchema: ListInput,
  async run(input, { cwd, signal }) {
    const target = await confinePath(cwd, input.path ?? '.')
    if (!(await fs.stat(target.absolute)).isDirectory()) {
      throw new TangentError('tool-failed', `${target.relative} is not a directory: use the read tool.`)
    }
    const lines: string[] = []
    let total = 0
    for await (const entry of walkDirectory(target.absolute, input.recursive ?? false, signal)) {
      total++
      if (lines.length >= maxEntries) continue
      const skipped =
        entry.kind === 'directory' && skippedDirectoryNames.has(entry.relative.split('/').pop()!)
      const suffix = entry.kind === 'directory' ? '/' : entry.kind === 'symlink' ? ' -> (symlink)' : ''
      lines.push(`${entry.relative}${suffix}${skipped && input.recursive ? ' (not descended)' : ''}`)
    }
    if (total === 0) return { output: `${target.relative} is empty.` }
    if (total > lines.length) lines.push(`[${total - lines.length} more entries not shown]`)
    return { output: lines.join('\n') }
  },
})
