// What the "Try N ways" dialog's fields ask for, as `session.explore` branches — or what is
// still missing, in words. Pure, so the dialog's rules are tested without a browser.
import type { ExploreRequest } from './wire.js'

export type ExploreMode = 'prompts' | 'models' | 'repeat'

export type ExplorePlan =
  | { readonly ok: true; readonly branches: ExploreRequest['branches'] }
  | { readonly ok: false; readonly missing: string }

export const minBranches = 2
export const maxBranches = 8

export function explorePlan(fields: {
  mode: ExploreMode
  /** One per branch (mode `prompts`). */
  prompts: readonly string[]
  /** The one prompt (modes `models` and `repeat`). */
  prompt: string
  models: readonly string[]
  times: number
}): ExplorePlan {
  if (fields.mode === 'prompts') {
    const prompts = fields.prompts.map((text) => text.trim())
    const empty = prompts.indexOf('')
    if (empty >= 0)
      return { ok: false, missing: `Write a prompt for branch ${String.fromCharCode(65 + empty)}.` }
    if (prompts.length < minBranches || prompts.length > maxBranches) {
      return { ok: false, missing: `Give ${minBranches} to ${maxBranches} prompts.` }
    }
    return { ok: true, branches: prompts.map((prompt) => ({ prompt })) }
  }
  const prompt = fields.prompt.trim()
  if (prompt === '') return { ok: false, missing: 'Write the prompt.' }
  if (fields.mode === 'models') {
    if (fields.models.length < minBranches || fields.models.length > maxBranches) {
      return { ok: false, missing: `Pick ${minBranches} to ${maxBranches} models.` }
    }
    return { ok: true, branches: fields.models.map((model) => ({ prompt, model })) }
  }
  if (!Number.isInteger(fields.times) || fields.times < minBranches || fields.times > maxBranches) {
    return { ok: false, missing: `Try it ${minBranches} to ${maxBranches} times.` }
  }
  return { ok: true, branches: Array.from({ length: fields.times }, () => ({ prompt })) }
}
