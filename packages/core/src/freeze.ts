// Events are deeply frozen when they enter a log, so forks can share them safely.

export function deepFreeze<T>(value: T): T {
  freezeAll(value, new Set())
  return value
}

// An object that is already frozen may still hold mutable children (a caller's
// `Object.freeze({content: [...]})`), so frozen objects are walked too; `seen` stops cycles.
function freezeAll(value: unknown, seen: Set<object>): void {
  if (typeof value !== 'object' || value === null || seen.has(value)) return
  seen.add(value)
  Object.freeze(value)
  for (const key of Object.keys(value)) freezeAll((value as Record<string, unknown>)[key], seen)
}
