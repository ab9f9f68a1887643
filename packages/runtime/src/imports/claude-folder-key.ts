// The folder key Claude Code gives a working folder under `<config>/projects/`, Claude Code 2.1's
// own rule (read from its bundle): every character outside [a-zA-Z0-9] becomes "-"; a key over 200
// characters is cut to 200 and followed by "-" and a hash of the path (base 36). Its own module:
// the `claude` export needs it at start, the session-file listing (claude-files.ts) only on import.
export const maxClaudeFolderKeyLength = 200

/** Claude Code's 32-bit string hash (Java's `String.hashCode`), for over-long folder keys. */
function stringHash(text: string): number {
  let hash = 0
  for (let index = 0; index < text.length; index++) hash = (hash * 31 + text.charCodeAt(index)) | 0
  return hash
}

/** The directory name Claude Code gives a working folder under `projects/`. */
export function claudeFolderKey(folder: string): string {
  const key = folder.replace(/[^a-zA-Z0-9]/g, '-')
  if (key.length <= maxClaudeFolderKeyLength) return key
  return `${key.slice(0, maxClaudeFolderKeyLength)}-${Math.abs(stringHash(folder)).toString(36)}`
}
