// lazy-zod.ts for browsers (package.json `browser` condition): the same API over zod's ESM
// build, imported up front (a browser cannot load it synchronously later). Schemas still
// build on first touch.
import { z } from 'zod'
import { lazyProxy, type Zod } from './lazy-proxy.js'

export type { Zod } from './lazy-proxy.js'

export function zod(): Zod {
  return z
}

export function lazySchema<T extends object>(build: (z: Zod) => T): T {
  return lazyProxy(zod, build)
}
