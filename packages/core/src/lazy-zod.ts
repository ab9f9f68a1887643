// zod on first use (docs/architecture.md §9): evaluating zod and building every schema at
// import cost a read-only command more than its work. Schemas are `lazySchema` constants, built
// the first time something touches them, with zod's CommonJS build loaded synchronously then.
// Browsers get lazy-zod-browser.ts instead (package.json `browser` condition).
import { createRequire } from 'node:module'
import { lazyProxy, type Zod } from './lazy-proxy.js'

export type { Zod } from './lazy-proxy.js'

// The one module-level cache here: require() has its own, but creating the require costs more.
let loaded: Zod | undefined

/**
 * The zod namespace, loaded on the first call. It is zod's CJS instance, next to the ESM one
 * that the AI SDK and the agent's tools import: zod 4 checks `instanceof` by traits and keeps
 * its registry on globalThis, so schemas of the two mix.
 */
export function zod(): Zod {
  loaded ??= (createRequire(import.meta.url)('zod') as { z: Zod }).z
  return loaded
}

/**
 * A schema constant that is built on first touch: `export const X = lazySchema((z) => z.object(…))`.
 * Its type is the built schema's, so `z.infer<typeof X>` and every call site stay as they were.
 */
export function lazySchema<T extends object>(build: (z: Zod) => T): T {
  return lazyProxy(zod, build)
}
