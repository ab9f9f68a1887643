// `grep`: a regular-expression search over the text files under a path (pure Node).
import fs from 'node:fs/promises'
import { TangentError } from '@tangent/core'
import { z } from 'zod'
import { confinePath } from '../confine-path.js'
import { defineTool } from './agent-tool.js'
import { walkDirectory } from './walk-directory.js'

export const GrepInput = z.object({
  pattern: z.string().describe('JavaScript regular expression'),
  path: z.string().optional().describe('File or directory to search (default ".")'),
  include: z.string().optional().describe('Only files whose name matches this glob, e.g. "*.ts"'),
  ignoreCase: z.boolean().optional(),
})
export type GrepInput = z.infer<typeof GrepInput>

const maxMatches = 200
const maxLineChars = 300
const maxFileBytes = 2 * 1024 * 1024

export const grepTool = defineTool<GrepInput>({
  description:
    'Search file contents with a regular expression; prints path:line: text for each match (.git and node_modules skipped).',
  inputSchema: GrepInput,
  async run(input, { cwd, signal }) {
    let regex: RegExp
    try {
      regex = new RegExp(input.pattern, input.ignoreCase ? 'i' : '')
    } catch (error) {
      throw new TangentError('tool-failed', `Invalid regular expression: ${(error as Error).message}`)
    }
    const include = input.include === undefined ? null : globToRegExp(input.include)
    const target = await confinePath(cwd, input.path ?? '.')
    const files = (await fs.stat(target.absolute)).isDirectory()
      ? walkFiles(target.absolute, target.relative)
      : single(target.absolute, target.relative)
    const matches: string[] = []
    let total = 0
    for await (const file of files) {
      if (include && !include.test(file.relative.split('/').pop()!)) continue
      const stat = await fs.stat(file.absolute)
      if (stat.size > maxFileBytes) continue
      const bytes = await fs.readFile(file.absolute)
      if (bytes.subarray(0, 8192).includes(0)) continue
      const lines = bytes.toString('utf8').split('\n')
      for (let i = 0; i < lines.length; i++) {
        if (!regex.test(lines[i]!)) continue
        total++
        if (matches.length < maxMatches)
          matches.push(`${file.relative}:${i + 1}: ${lines[i]!.slice(0, maxLineChars)}`)
      }
      signal.throwIfAborted()
    }
    if (total === 0) return { output: `No matches for /${input.pattern}/ in ${target.relative}.` }
    if (total > matches.length)
      matches.push(`[${total - matches.length} more matches not shown; narrow the search]`)
    return { output: matches.join('\n') }
  },
})

async function* walkFiles(
  root: string,
  prefix: string,
): AsyncGenerator<{ absolute: string; relative: string }> {
  for await (const entry of walkDirectory(root, true)) {
    if (entry.kind !== 'file') continue
    yield {
      absolute: entry.absolute,
      relative: prefix === '.' ? entry.relative : `${prefix}/${entry.relative}`,
    }
  }
}

async function* single(
  absolute: string,
  relative: string,
): AsyncGenerator<{ absolute: string; relative: string }> {
  yield { absolute, relative }
}

function globToRegExp(glob: string): RegExp {
  const source = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.')
  return new RegExp(`^${source}$`)
}
