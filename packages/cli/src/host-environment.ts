// With `tangent serve` running, commands go through the Host and models run with the Host's
// environment, not the shell's: advice to "set" a variable is advice about the Host (issue 28).
import type { Backend } from './backend.js'

/**
 * `reason` (e.g. "set OPENAI_API_KEY (and …)." or "Model x is unavailable: set X …") as it
 * applies through a Host: "the running Host (pid N) has no X: restart `tangent serve` with it
 * set", noting when this shell has it. Unchanged without a Host or a variable to name.
 */
export function hostEnvironmentReason(
  reason: string,
  backend: Pick<Backend, 'kind' | 'hostPid'>,
  env: Record<string, string | undefined>,
): string {
  if (backend.kind !== 'host') return reason
  const match = /(^|: )set ([A-Z][A-Z0-9_]*)\b.*$/s.exec(reason)
  if (!match) return reason
  const variable = match[2]!
  const host =
    backend.hostPid === undefined ? 'the running Host' : `the running Host (pid ${backend.hostPid})`
  const here = env[variable]?.trim() ? ` (this shell has it, but models run in the Host)` : ''
  return `${reason.slice(0, match.index)}${match[1]}${host} has no ${variable}: restart \`tangent serve\` with it set${here}.`
}
