// A value built on first touch behind a Proxy (docs/architecture.md §9): what lazySchema uses,
// so a schema constant costs nothing until something parses with it.
import type { z } from 'zod'

/** The zod namespace (`z`), as `lazySchema` builders receive it. */
export type Zod = typeof z

/**
 * Stands for `build(zod())` until first touched, then forwards every operation to it. Methods
 * run with the proxy as `this` and forward again; a schema's own getters see the real schema.
 * Descriptors are reported configurable (a Proxy may not report a non-configurable property its
 * blank target lacks); freezing or preventing extensions acts on the blank target, so don't.
 */
export function lazyProxy<T extends object>(load: () => Zod, build: (z: Zod) => T): T {
  let value: T | undefined
  let building = false
  const real = (): T => {
    if (value !== undefined) return value
    if (building) throw new Error('A lazy schema touched itself while being built: use z.lazy for a cycle.')
    building = true
    try {
      const z = load()
      const built = build(z)
      // zod keeps `.describe()`/`.meta()` in a registry keyed by the schema object: the proxy
      // must find the same entry, or JSON Schema made from it would lose its descriptions.
      if ('_zod' in built) {
        const meta = z.globalRegistry.get(built as never)
        if (meta !== undefined) z.globalRegistry.add(proxy as never, meta)
      }
      value = built
      return built
    } finally {
      building = false
    }
  }
  const proxy = new Proxy({} as T, {
    get: (_, key) => Reflect.get(real(), key),
    set: (_, key, next) => Reflect.set(real(), key, next),
    has: (_, key) => Reflect.has(real(), key),
    deleteProperty: (_, key) => Reflect.deleteProperty(real(), key),
    ownKeys: () => Reflect.ownKeys(real()),
    getOwnPropertyDescriptor: (_, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(real(), key)
      return descriptor && { ...descriptor, configurable: true }
    },
    defineProperty: (_, key, descriptor) => Reflect.defineProperty(real(), key, descriptor),
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
    setPrototypeOf: (_, prototype) => Reflect.setPrototypeOf(real(), prototype),
  })
  return proxy
}
