// `--image FILE`: images read from files for a prompt. The format comes from the bytes (their
// magic number), never from the file's name; a file that is no image a prompt takes, or too
// large, is refused before anything is made for the turn (the runtime checks again).
import fs from 'node:fs'
import path from 'node:path'
import {
  detectImageMediaType,
  maxPromptImageBytes,
  maxPromptImages,
  type PromptImage,
  promptImageMediaTypes,
} from '@tangent/core'
import { UsageError } from './cli-error.js'

/** The images of `files` (relative to `cwd`), in order; `how` names the option in a refusal. */
export function readImageFiles(files: readonly string[], cwd: string, how = '--image'): PromptImage[] {
  if (files.length > maxPromptImages)
    throw new UsageError(`A prompt carries at most ${maxPromptImages} images; ${files.length} were given.`)
  return files.map((file) => {
    const resolved = path.resolve(cwd, file)
    const stat = fs.statSync(resolved, { throwIfNoEntry: false })
    if (!stat?.isFile()) throw new UsageError(`${how} ${file}: no such file.`)
    if (stat.size > maxPromptImageBytes) {
      throw new UsageError(
        `${how} ${file}: ${stat.size} bytes, over the ${maxPromptImageBytes} one image may be; send it smaller (scaled down, or as JPEG).`,
      )
    }
    const bytes = fs.readFileSync(resolved)
    const mediaType = detectImageMediaType(bytes)
    if (mediaType === undefined) {
      throw new UsageError(
        `${how} ${file}: not an image a prompt takes (${promptImageMediaTypes.join(', ')}, told by its bytes).`,
      )
    }
    return { mediaType, data: bytes.toString('base64') }
  })
}
