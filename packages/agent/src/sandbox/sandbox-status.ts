// What the user chose for the bash sandbox, what the machine offers, and what follows for bash
// (docs/architecture.md §12.2). Pure: the probe that finds out is in bash-sandbox.ts.

/** `off`: never sandbox; `auto`: sandbox where the OS can; `required`: refuse to run bash unconfined. */
export const sandboxModes = ['off', 'auto', 'required'] as const
export type SandboxMode = (typeof sandboxModes)[number]

/** The OS mechanism: bubblewrap on Linux, Seatbelt (sandbox-exec) on macOS. */
export type SandboxKind = 'bubblewrap' | 'seatbelt'

/** What a probe of this machine found. */
export interface SandboxProbe {
  readonly available: boolean
  readonly kind?: SandboxKind
  /** Why not, when not available. */
  readonly reason?: string
}

/**
 * How bash runs here: `sandboxed`; `unsandboxed` (mode `off`, or `auto` without a sandbox);
 * `refused` (mode `required` without a sandbox: the bash tool refuses every command).
 */
export interface BashSandboxStatus {
  readonly bash: 'sandboxed' | 'unsandboxed' | 'refused'
  readonly mode: SandboxMode
  readonly kind?: SandboxKind
  readonly reason?: string
}

/** Reads `TANGENT_SANDBOX`; undefined for anything that is not one of the modes (empty: unset). */
export function parseSandboxMode(value: string | undefined): SandboxMode | undefined {
  const normalized = value?.trim().toLowerCase()
  return sandboxModes.find((mode) => mode === normalized)
}

export function sandboxStatusOf(mode: SandboxMode, probe: SandboxProbe | null): BashSandboxStatus {
  if (mode === 'off' || probe === null) {
    return { bash: 'unsandboxed', mode, reason: 'the sandbox is turned off (TANGENT_SANDBOX=off)' }
  }
  const kind = probe.kind !== undefined ? { kind: probe.kind } : {}
  if (probe.available) return { bash: 'sandboxed', mode, ...kind }
  return {
    bash: mode === 'required' ? 'refused' : 'unsandboxed',
    mode,
    ...kind,
    reason: probe.reason ?? 'no OS sandbox is available',
  }
}

/** One line for people: `sandboxed (bubblewrap)`, `NOT sandboxed: <why>`. */
export function describeSandboxStatus(status: BashSandboxStatus): string {
  if (status.bash === 'sandboxed') return `sandboxed (${status.kind ?? 'OS sandbox'})`
  const why = status.reason !== undefined ? `: ${status.reason}` : ''
  if (status.bash === 'refused') return `refused, the sandbox is required but unavailable${why}`
  return `NOT sandboxed${why}`
}
