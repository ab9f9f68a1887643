// The branches `tangent explore` asks for, from its flags (docs/architecture.md §9): one per
// `-p`, one prompt per model (`-p` once + `--models`), or one prompt N times (`-p` once + `-n`).
// Any other mix is bad usage, said before anything is forked.
import type { ExploreRequest } from './backend.js'
import { UsageError } from './cli-error.js'
import { assertMessageFits } from './input-limits.js'

/** At most this many branches in one exploration (docs/protocol.md `session.explore`). */
export const maxBranches = 8

export interface ExploreBranchFlags {
  prompt?: string[]
  models?: string
  count?: number
}

export function exploreBranches(flags: ExploreBranchFlags): ExploreRequest['branches'] {
  const prompts = flags.prompt ?? []
  if (prompts.length === 0)
    throw new UsageError(
      'explore needs at least one -p PROMPT, e.g. tangent explore ID -p "try X" -p "try Y"',
    )
  const empty = prompts.findIndex((prompt) => prompt.trim() === '')
  if (empty >= 0) throw new UsageError(`explore: prompt ${empty + 1} is empty`)
  if (flags.models !== undefined && flags.count !== undefined)
    throw new UsageError(
      'explore takes --models or -n, not both (--models already gives one branch per model)',
    )
  if (prompts.length > 1 && (flags.models !== undefined || flags.count !== undefined)) {
    throw new UsageError(
      `explore takes several -p, or one -p with ${flags.models !== undefined ? '--models' : '-n'}, not both`,
    )
  }
  let branches: ExploreRequest['branches']
  if (flags.models !== undefined) {
    const models = flags.models.split(',').map((model) => model.trim())
    if (models.some((model) => !/^[^\s:]+:\S+$/.test(model)))
      throw new UsageError(
        `explore --models takes provider:model ids separated by commas, got "${flags.models}"`,
      )
    branches = models.map((model) => ({ prompt: prompts[0]!, model }))
  } else if (flags.count !== undefined) {
    branches = Array.from({ length: flags.count }, () => ({ prompt: prompts[0]! }))
  } else branches = prompts.map((prompt) => ({ prompt }))
  if (branches.length > maxBranches)
    throw new UsageError(`explore makes at most ${maxBranches} branches, not ${branches.length}`)
  for (const prompt of prompts) assertMessageFits(prompt)
  return branches
}
