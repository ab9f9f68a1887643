// lazy-zod.ts for browsers (package.json `browser` condition, docs/architecture.md §9): the same
// API without zod. A browser cannot load zod synchronously on first use, and the web UI never
// parses with a schema — it sends params to the Host, which checks them — so zod is not bundled
// into the page at all (importing its namespace up front cost the page ~330 KB of script).
// A schema touched in a browser says so instead of validating.
import { lazyProxy, type Zod } from './lazy-proxy.js'

export type { Zod } from './lazy-proxy.js'

export function zod(): Zod {
  throw new Error(
    'zod is not in the browser build: schemas of @tangent/core and @tangent/protocol validate on the Host (docs/architecture.md §9)',
  )
}

export function lazySchema<T extends object>(build: (z: Zod) => T): T {
  return lazyProxy(zod, build)
}
