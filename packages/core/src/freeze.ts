// Events are deeply frozen when they enter a log, so forks can share them safely.

/** Nesting depth after which the walk starts tracking visited objects (cycles are rare; a Set per event is not free). */
const depthBeforeCycleTracking = 32

export function deepFreeze<T>(value: T): T {
  freezeShallowFirst(value, 0)
  return value
}

// An object that is already frozen may still hold mutable children (a caller's
// `Object.freeze({content: [...]})`), so frozen objects are walked too. Event data
// is shallow, so the walk runs without bookkeeping; past a depth that only a
// cycle (or absurd nesting) reaches, it continues with a `seen` set.
// Only objects are visited (most values are strings and numbers), and an array by its elements:
// loading a log freezes every event, and Object.keys of an array is a string per element. (Other
// own properties of an array are not data: JSON drops them.)
function freezeShallowFirst(value: unknown, depth: number): void {
  if (typeof value !== 'object' || value === null) return
  if (depth > depthBeforeCycleTracking) {
    freezeTracked(value, new Set())
    return
  }
  Object.freeze(value)
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i]
      if (typeof item === 'object' && item !== null) freezeShallowFirst(item, depth + 1)
    }
    return
  }
  // A plain object (all that JSON.parse makes) by for-in, which reads V8's cached key list of its
  // shape where Object.keys builds an array per object (4-5x faster over a loaded log); anything
  // else by Object.keys, so enumerable properties a prototype adds are never walked.
  const proto: unknown = Object.getPrototypeOf(value)
  if (proto === Object.prototype || proto === null) {
    for (const key in value) {
      const item = (value as Record<string, unknown>)[key]
      if (typeof item === 'object' && item !== null) freezeShallowFirst(item, depth + 1)
    }
    return
  }
  for (const key of Object.keys(value)) {
    const item = (value as Record<string, unknown>)[key]
    if (typeof item === 'object' && item !== null) freezeShallowFirst(item, depth + 1)
  }
}

function freezeTracked(value: unknown, seen: Set<object>): void {
  if (typeof value !== 'object' || value === null || seen.has(value)) return
  seen.add(value)
  Object.freeze(value)
  for (const key of Object.keys(value)) freezeTracked((value as Record<string, unknown>)[key], seen)
}
