// Which tool wrote a file `tangent import` is given (issue 31): a short list of detectors, each
// looking at the file's first line (and its path), the first that knows the file wins. A reader of
// another tool's sessions (Claude Code, Codex, pi → an ImportedTree) adds its detector here.
import { isBundleFirstLine } from '../bundle-format.js'
import type { ImportSource } from './imported-tree.js'

/** The source that wrote a file, or null when this detector does not know it. */
export type ImportDetector = (firstLine: string, filePath: string) => ImportSource | null

/** Parses `line` as a JSON object, or null. */
function objectOf(line: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(line) as unknown
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null
  } catch {
    return null
  }
}

/** In order: a Tangent bundle first (it says so on line 1), then the other tools' session files. */
export const importDetectors: readonly ImportDetector[] = [
  (firstLine) => (isBundleFirstLine(firstLine) ? 'tangent' : null),
  // pi: a versioned header line `{"type":"session","version":…,"id":…,"cwd":…}`.
  (firstLine) => {
    const value = objectOf(firstLine)
    return value?.type === 'session' && typeof value.id === 'string' && 'cwd' in value ? 'pi' : null
  },
  // Codex: a rollout starts with `{"type":"session_meta",…}` (older ones: `{"id":…,"instructions":…}`).
  (firstLine, filePath) => {
    const value = objectOf(firstLine)
    if (value?.type === 'session_meta') return 'codex'
    return /rollout-[^/\\]*\.jsonl$/.test(filePath) && value !== null ? 'codex' : null
  },
  // Claude Code: its records carry `sessionId` (messages, `queue-operation`s), or the file starts
  // with a `summary` or `file-history-snapshot` record.
  (firstLine) => {
    const value = objectOf(firstLine)
    if (value === null) return null
    return typeof value.sessionId === 'string' ||
      value.type === 'summary' ||
      value.type === 'file-history-snapshot'
      ? 'claude'
      : null
  },
]

/** The first detector's answer for the file, or null when none knows it. */
export function detectImportSource(
  firstLine: string,
  filePath: string,
  detectors: readonly ImportDetector[] = importDetectors,
): ImportSource | null {
  for (const detect of detectors) {
    const source = detect(firstLine, filePath)
    if (source !== null) return source
  }
  return null
}
