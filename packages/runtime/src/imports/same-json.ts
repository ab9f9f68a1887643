// Whether two values serialise to the same JSON, without serialising them (issue 31: a branch's
// events are compared with its parent's over the whole shared history, and those hold the same
// records by reference, so a walk that stops at `===` is cheap where JSON.stringify copied 100 MB).

/**
 * `JSON.stringify(a) === JSON.stringify(b)` for values JSON can hold: key order counts, keys whose value JSON
 * leaves out (undefined, functions, symbols) do not, and anything this walk does not model (a
 * toJSON method, a class instance, a boxed primitive) is compared by serialising it.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true
  // Two strings that differ have different JSON (without copying them to find out).
  if (typeof a === 'string' && typeof b === 'string') return false
  if (!isPlain(a) || !isPlain(b)) return JSON.stringify(a) === JSON.stringify(b)
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (Array.isArray(a)) {
    const other = b as unknown[]
    if (a.length !== other.length) return false
    // In an array, JSON writes a value it leaves out as null.
    for (let index = 0; index < a.length; index++)
      if (!sameJson(inArray(a[index]), inArray(other[index]))) return false
    return true
  }
  const left = a as Record<string, unknown>
  const right = b as Record<string, unknown>
  const leftKeys = Object.keys(left).filter((key) => written(left[key]))
  const rightKeys = Object.keys(right).filter((key) => written(right[key]))
  if (leftKeys.length !== rightKeys.length) return false
  for (let index = 0; index < leftKeys.length; index++) {
    const key = leftKeys[index]!
    if (key !== rightKeys[index] || !sameJson(left[key], right[key])) return false
  }
  return true
}

/** An array or an object of Object's (or no) prototype, without a toJSON of its own. */
function isPlain(value: unknown): value is object {
  if (typeof value !== 'object' || value === null || 'toJSON' in value) return false
  if (Array.isArray(value)) return true
  const prototype = Object.getPrototypeOf(value)
  return prototype === Object.prototype || prototype === null
}

/** Whether JSON.stringify writes an object's key with this value. */
const written = (value: unknown) =>
  value !== undefined && typeof value !== 'function' && typeof value !== 'symbol'

const inArray = (value: unknown) => (written(value) ? value : null)
