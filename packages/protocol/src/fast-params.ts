// Structural checks of the params of the reads a short command makes (`tangent show`,
// `tangent sessions`: session.resolve, session.get, session.list), so that validating them
// does not load zod (docs/architecture.md §9). A check accepts only params its method's schema
// accepts and yields what zod would (no default filled, nothing stripped); for anything else it
// is not sure and the schema decides, so every refusal and its message are zod's.
import type { z } from 'zod'
import { sessionIdPattern } from './ids.js'
import { maxLastEvents } from './limits.js'
import { type MethodName, type Methods, methods } from './methods.js'

type ValueCheck = (value: unknown) => boolean

const isId: ValueCheck = (value) => typeof value === 'string' && sessionIdPattern.test(value)
const isSeq: ValueCheck = (value) => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
const isLast: ValueCheck = (value) =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 1 && value <= maxLastEvents
const isBoolean: ValueCheck = (value) => typeof value === 'boolean'

/** An object schema's check: each key required or optional (present as undefined too, as zod allows). */
interface ObjectCheck {
  required: Readonly<Record<string, ValueCheck>>
  optional: Readonly<Record<string, ValueCheck>>
}

/** The methods with a structural check, each mirroring its params schema in methods.ts. */
export const fastParamChecks: Partial<Readonly<Record<MethodName, ObjectCheck>>> = {
  'session.resolve': { required: { id: isId }, optional: {} },
  'session.get': {
    required: { sessionId: isId },
    optional: { fromSeq: isSeq, beforeSeq: isSeq, last: isLast, usage: isBoolean },
  },
  'session.list': { required: {}, optional: { workspaceId: isId, includeArchived: isBoolean } },
}

/**
 * The params of `method` as its schema would yield them (a copy), when its structural check can
 * tell; undefined when it cannot (no check for the method, or not sure: then zod decides).
 * Only plain objects of plain data properties pass: zod reads inherited and non-enumerable
 * properties and getters too, but its result would then differ from a copy.
 */
export function fastParams(method: MethodName, params: unknown): Record<string, unknown> | undefined {
  const check = fastParamChecks[method]
  if (check === undefined || typeof params !== 'object' || params === null) return undefined
  const prototype = Object.getPrototypeOf(params)
  if (prototype !== Object.prototype && prototype !== null) return undefined
  const record = params as Record<string, unknown>
  for (const key of Reflect.ownKeys(record)) {
    if (typeof key !== 'string') return undefined
    const descriptor = Object.getOwnPropertyDescriptor(record, key)
    if (descriptor === undefined || !('value' in descriptor) || !descriptor.enumerable) return undefined
    const valueCheck = Object.hasOwn(check.required, key)
      ? check.required[key]
      : Object.hasOwn(check.optional, key)
        ? check.optional[key]
        : undefined
    if (valueCheck === undefined) return undefined // an extra key: zod would strip it
    const value = descriptor.value
    if (value === undefined ? Object.hasOwn(check.required, key) : !valueCheck(value)) return undefined
  }
  for (const key of Object.keys(check.required)) if (!Object.hasOwn(record, key)) return undefined
  return { ...record }
}

/**
 * `methods[method].params.safeParse(params)`, without zod when the structural check accepts:
 * the result is the same either way.
 */
export function parseMethodParams<M extends MethodName>(
  method: M,
  params: unknown,
): z.ZodSafeParseResult<z.output<Methods[M]['params']>> {
  const fast = fastParams(method, params)
  if (fast !== undefined) return { success: true, data: fast as z.output<Methods[M]['params']> }
  return methods[method].params.safeParse(params) as z.ZodSafeParseResult<z.output<Methods[M]['params']>>
}
