// `grep`: a regular-expression search over the text files under a path (pure Node).
import { constants } from 'node:fs'
import fs, { type FileHandle } from 'node:fs/promises'
import { TangentError } from '@tangent/core'
import { z } from 'zod'
import { openConfined } from '../confine-path.js'
import type { ConfinedDirectory } from '../confined-directory.js'
import { defineTool } from './agent-tool.js'
import { realPathOfEntry, type WalkEntry, walkDirectory } from './walk-directory.js'
import { readAll } from './write-file.js'

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
  writes: 'nothing',
  description:
    'Search file contents with a regular expression; prints path:line: text for each match (.git and node_modules skipped).',
  inputSchema: GrepInput,
  async run(input, { cwd, signal, checkRealPath }) {
    let regex: RegExp
    try {
      regex = new RegExp(input.pattern, input.ignoreCase ? 'i' : '')
    } catch (error) {
      throw new TangentError('tool-failed', `Invalid regular expression: ${(error as Error).message}`)
    }
    const include = input.include === undefined ? null : globToRegExp(input.include)
    // Opened, and walked, without following a link out of cwd (confine-path.ts).
    const target = await openConfined(cwd, input.path ?? '.', {
      access: 'read',
      flags: constants.O_RDONLY,
      check: checkRealPath,
    })
    const matches: string[] = []
    let total = 0
    let denied = 0
    try {
      // What a deny rule covers is not searched, and the model is told how much that was (§12.1).
      const allowed = async (real: string): Promise<boolean> => {
        if (checkRealPath === undefined) return true
        const refused = await checkRealPath(real, 'read', true).then(
          () => false,
          () => true,
        )
        if (refused) denied++
        return !refused
      }
      const files =
        target.kind === 'directory'
          ? walkFiles(target.directory, target.path.relative, allowed)
          : single(target.handle, target.path.relative)
      for await (const file of files) {
        if (include && !include.test(file.relative.split('/').pop()!)) continue
        if (file.real !== undefined && !(await allowed(file.real))) continue
        const bytes = await file.read()
        if (bytes === null || bytes.subarray(0, 8192).includes(0)) continue
        const lines = bytes.toString('utf8').split('\n')
        for (let i = 0; i < lines.length; i++) {
          if (!regex.test(lines[i]!)) continue
          total++
          if (matches.length < maxMatches)
            matches.push(`${file.relative}:${i + 1}: ${lines[i]!.slice(0, maxLineChars)}`)
        }
        signal.throwIfAborted()
      }
    } finally {
      await target.close()
    }
    const relative = target.path.relative
    const unsearched =
      denied > 0 ? `\n[${denied} files or folders not searched: the permission rules refuse them]` : ''
    if (total === 0) return { output: `No matches for /${input.pattern}/ in ${relative}.${unsearched}` }
    if (total > matches.length)
      matches.push(`[${total - matches.length} more matches not shown; narrow the search]`)
    return { output: `${matches.join('\n')}${unsearched}` }
  },
})

interface SearchedFile {
  readonly relative: string
  /** Its real path relative to the cwd, for a file found by walking (checked before it is read). */
  readonly real?: string
  /** The content; null when it is not a regular file or too large to search. */
  read(): Promise<Buffer | null>
}

async function* walkFiles(
  root: ConfinedDirectory,
  prefix: string,
  allowed: (real: string) => Promise<boolean>,
): AsyncGenerator<SearchedFile> {
  const enter = (entry: WalkEntry) => allowed(realPathOfEntry(entry))
  for await (const entry of walkDirectory(root, true, undefined, enter)) {
    if (entry.kind !== 'file') continue
    yield {
      relative: prefix === '.' ? entry.relative : `${prefix}/${entry.relative}`,
      real: realPathOfEntry(entry),
      // Opened in its open folder without following a link swapped in since it was listed.
      read: async () => {
        const flags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK
        const handle = await fs.open(entry.parent.entry(entry.name), flags).catch(skipVanished)
        if (handle === null) return null
        try {
          return await contentOf(handle)
        } finally {
          await handle.close()
        }
      },
    }
  }
}

async function* single(handle: FileHandle, relative: string): AsyncGenerator<SearchedFile> {
  yield { relative, read: () => contentOf(handle) }
}

async function contentOf(handle: FileHandle): Promise<Buffer | null> {
  const stat = await handle.stat()
  if (!stat.isFile() || stat.size > maxFileBytes) return null
  return readAll(handle, stat.size)
}

function skipVanished(error: unknown): null {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'ENOENT' || code === 'ELOOP') return null
  throw error
}

function globToRegExp(glob: string): RegExp {
  const source = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.')
  return new RegExp(`^${source}$`)
}
