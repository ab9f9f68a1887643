// zod on first use (docs/architecture.md §9): evaluating zod and building every schema at
// import cost a read-only command more than its work. Schemas are `lazySchema` constants, built
// the first time something touches them, with zod loaded synchronously then.
// Browsers get lazy-zod-browser.ts instead (package.json `browser` condition).
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { lazyProxy, type Zod } from './lazy-proxy.js'

export type { Zod } from './lazy-proxy.js'

// The one module-level cache here: require() has its own, but resolving again costs more.
let loaded: Zod | undefined

/**
 * The zod namespace, loaded on the first call: the ES module that `import 'zod'` gives the AI
 * SDK and the agent's tools, required synchronously (Node ≥ 22.12 requires ES modules), so a
 * process holds one zod. Where that is refused it is zod's CommonJS build, which mixes with the
 * ES one (zod 4 checks `instanceof` by traits and keeps its registry on globalThis).
 */
export function zod(): Zod {
  if (loaded === undefined) {
    const require = createRequire(import.meta.url)
    try {
      loaded = (require(fileURLToPath(import.meta.resolve('zod'))) as { z: Zod }).z
    } catch {
      loaded = (require('zod') as { z: Zod }).z
    }
  }
  return loaded
}

/**
 * A schema constant that is built on first touch: `export const X = lazySchema((z) => z.object(…))`.
 * Its type is the built schema's, so `z.infer<typeof X>` and every call site stay as they were.
 */
export function lazySchema<T extends object>(build: (z: Zod) => T): T {
  return lazyProxy(zod, build)
}
