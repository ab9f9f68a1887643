// What the model is told about the project (docs/architecture.md §12.3): the instruction
// files are recorded in the log when first read and whenever their content changes, and the
// system prompt is built from the log's latest record, never from disk, so a replay or a
// fork sends exactly what was sent then.
import type { InstructionsData, Session } from '@tangent/core'
import type { InstructionFile } from './instruction-files.js'

/**
 * Appends `context/instructions` when `files` differ from the latest record (paths, scopes or
 * content), or when none is recorded and there are files. Files that disappeared are
 * recorded as `files: []`. Returns whether it appended.
 */
export function recordInstructions(session: Session, files: readonly InstructionFile[]): boolean {
  const latest = session.latestOfType('context/instructions')?.data as InstructionsData | undefined
  if (!latest && files.length === 0) return false
  if (latest && sameFiles(latest.files, files)) return false
  session.append('context/instructions', { files: files.map((file) => ({ ...file })) })
  return true
}

/** The base system prompt followed by each recorded file under a heading naming it. */
export function systemPromptWithInstructions(base: string, instructions: InstructionsData | null): string {
  if (!instructions || instructions.files.length === 0) return base
  const sections = instructions.files.map(
    (file) =>
      `## ${file.path} (${file.scope === 'user' ? 'the user’s instructions' : 'project instructions'})\n\n${file.content.trimEnd()}`,
  )
  return [
    base,
    'Follow these instructions (the later, nearer files win where they disagree):',
    ...sections,
  ].join('\n\n')
}

function sameFiles(a: readonly InstructionFile[], b: readonly InstructionFile[]): boolean {
  return (
    a.length === b.length &&
    a.every(
      (file, i) => file.path === b[i]!.path && file.scope === b[i]!.scope && file.content === b[i]!.content,
    )
  )
}
