// What `tangent doctor` finds wrong, one line each with what to do (docs/architecture.md §9). An
// `error` stops Tangent from working here (doctor then exits 1); a `warning` limits it.
import { ModelRegistry, providerNames } from '@tangent/agent/light'
import type { McpServerListing } from '@tangent/runtime'
import type { HostInfo } from '../backend.js'

export interface DoctorProblem {
  level: 'error' | 'warning'
  text: string
}

/**
 * An error when the Node running the command is older than package.json's `engines` (bin.ts found
 * it, with how to get a current one): Tangent is neither built nor tested for it, and `npm test`
 * fails on it.
 */
export function nodeVersionProblem(oldNode: string | undefined): DoctorProblem | null {
  return oldNode === undefined ? null : { level: 'error', text: oldNode }
}

/** An error when a turn without `--model` cannot run: the default model is not valid, or not configured. */
export function defaultModelProblem(info: HostInfo): DoctorProblem | null {
  const id = info.defaultModel
  const available = info.models.filter((model) => model.available).map((model) => model.id)
  const instead =
    available.length > 0
      ? `set TANGENT_MODEL to one that can run here (${available.join(', ')}), or pass --model`
      : 'pass --model, or set TANGENT_MODEL to a configured model'
  let provider: string
  try {
    provider = ModelRegistry.parse(id).provider
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error)
    return {
      level: 'error',
      text: `The default model cannot run: ${why} Every turn without --model fails: ${instead}.`,
    }
  }
  if (!(providerNames as readonly string[]).includes(provider)) {
    return {
      level: 'error',
      text: `The default model "${id}" has an unknown provider "${provider}" (known: ${providerNames.join(', ')}). Every turn without --model fails: ${instead}.`,
    }
  }
  // As `run` checks it: the model itself when listed, else any model of its provider.
  const listed = info.models.filter((model) => model.id === id)
  const candidates =
    listed.length > 0 ? listed : info.models.filter((model) => model.id.startsWith(`${provider}:`))
  if (candidates.length === 0 || candidates.some((model) => model.available)) return null
  const reason = candidates.find((model) => model.reason)?.reason ?? 'its provider is not configured.'
  return {
    level: 'error',
    text: `The default model ${id} cannot run: ${reason} Every turn without --model fails until then; or ${instead}.`,
  }
}

/** A warning per enabled MCP server that would not start (its tools would be missing from every turn). */
export function mcpServerProblems(servers: readonly McpServerListing[]): DoctorProblem[] {
  return servers
    .filter((server) => server.enabled && server.problem !== undefined)
    .map((server) => ({
      level: 'warning',
      text: `MCP server "${server.name}" (${server.source}) will not start: ${server.problem}.`,
    }))
}
