// The change a `write` or `edit` call asks to make, as the ACP `diff` an editor's permission prompt
// shows (docs/architecture.md §14.2). Read here while the call waits for its answer, so the file
// is as the tool will find it. The path comes from the model: it is confined to the session's
// folder as the tool confines it, and only a regular file of a bounded size is read (never a
// FIFO or device, which could block or never end).
import { constants } from 'node:fs'
import fs from 'node:fs/promises'
import type * as acp from '@agentclientprotocol/sdk/unstable'
import { confinePath, maxLoggedDiffChars } from '@tangent/agent/light'

export async function previewDiff(
  toolName: string,
  input: unknown,
  cwd: string,
): Promise<acp.ToolCallContent[]> {
  if (toolName !== 'write' && toolName !== 'edit') return []
  const args = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {}
  if (typeof args.path !== 'string' || args.path === '') return []
  let absolute: string
  try {
    absolute = (await confinePath(cwd, args.path)).absolute
  } catch {
    return [] // outside the folder, or unreadable: the tool will refuse it and say why
  }
  const before = await readSmallText(absolute)
  if (before === undefined) return []
  if (toolName === 'write') {
    if (typeof args.content !== 'string') return []
    const newText = args.append === true ? `${before ?? ''}${args.content}` : args.content
    return [{ type: 'diff', path: absolute, oldText: before, newText }]
  }
  if (typeof args.oldText !== 'string' || typeof args.newText !== 'string' || args.oldText === '') return []
  // The whole file when the text to replace is there; else the edit's own two pieces (the tool
  // will fail, and say why, if they do not match).
  if (before?.includes(args.oldText)) {
    const newText =
      args.replaceAll === true
        ? before.split(args.oldText).join(args.newText)
        : before.replace(args.oldText, () => args.newText as string)
    return [{ type: 'diff', path: absolute, oldText: before, newText }]
  }
  return [{ type: 'diff', path: absolute, oldText: args.oldText, newText: args.newText }]
}

/** The file's text; null when it does not exist; undefined when it cannot be shown. */
async function readSmallText(absolute: string): Promise<string | null | undefined> {
  let handle: fs.FileHandle
  try {
    handle = await fs.open(absolute, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : undefined
  }
  try {
    const stat = await handle.stat()
    if (!stat.isFile() || stat.size > maxLoggedDiffChars) return undefined
    const buffer = Buffer.alloc(stat.size)
    const { bytesRead } = await handle.read(buffer, 0, stat.size, 0)
    const text = buffer.subarray(0, bytesRead).toString('utf8')
    return text.includes('\u0000') ? undefined : text
  } catch {
    return undefined
  } finally {
    await handle.close()
  }
}
