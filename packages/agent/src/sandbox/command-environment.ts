// The environment a bash command gets (docs/architecture.md §12.2): Tangent's own, minus the
// secrets it holds for itself — the Host token and the model providers' keys — and anything else
// named like a credential, unless the user lists the name (`passEnv`). Sandboxed or not: a command
// can print what it reads to the model, or send it anywhere when the network is on.

/** Whether a variable is kept from commands unless listed. Names are compared upper-cased. */
export function isSecretVariable(name: string): boolean {
  const upper = name.toUpperCase()
  return (
    secretNames.has(upper) ||
    secretSuffixes.some((suffix) => upper.endsWith(suffix)) ||
    secretWords.some((word) => upper.includes(word))
  )
}

/** Known credentials whose names the patterns below would miss. */
const secretNames = new Set(['TANGENT_TOKEN', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'DEEPSEEK_API_KEY'])
/** `*_API_KEY`, `*_APIKEY`, `*_TOKEN`, `*_ACCESS_KEY`, `*_PRIVATE_KEY`, `*_AUTH`. */
const secretSuffixes = ['_API_KEY', 'APIKEY', '_TOKEN', '_ACCESS_KEY', '_PRIVATE_KEY', '_AUTH']
/** Anywhere in the name: `*SECRET*`, `*PASSWORD*`, `*PASSWD*`, `*CREDENTIAL*`. */
const secretWords = ['SECRET', 'PASSWORD', 'PASSWD', 'CREDENTIAL']

/**
 * `env` without its secret variables (`isSecretVariable`), except those named in `passEnv`
 * (exact names), plus `extra`.
 */
export function commandEnvironment(
  env: NodeJS.ProcessEnv,
  passEnv: readonly string[] = [],
  extra: Record<string, string> = {},
): Record<string, string> {
  const passed = new Set(passEnv)
  const kept: Record<string, string> = {}
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue
    if (passed.has(name) || !isSecretVariable(name)) kept[name] = value
  }
  return { ...kept, ...extra }
}
