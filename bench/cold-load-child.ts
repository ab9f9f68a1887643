// The child of the fresh-process load row of peers.bench.ts: a new Node process that imports one
// side's reader, then times only its first open + load of one session (the imports are not
// counted: the bundle's start-up is the whole-process rows' business). Prints one JSON line:
// { ms, count }, count being the events (Tangent) or entries (pi) loaded, so the parent can check
// that both sides read the whole history.
//   node cold-load-child.js tangent HOME ID
//   node cold-load-child.js pi FILE
const [side, target, id] = process.argv.slice(2)

function elapsed(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6
}

if (side === 'tangent' && target && id) {
  const { JsonlStore } = await import('@tangent/store-jsonl')
  const start = process.hrtime.bigint()
  const db = await JsonlStore.open({ dir: target, readOnly: true })
  const count = (await db.load(id)).events.length
  const ms = elapsed(start)
  await db.close()
  process.stdout.write(`${JSON.stringify({ ms, count })}\n`)
} else if (side === 'pi' && target) {
  const { loadPiSessionManager } = await import('./pi-session-manager.js')
  const SessionManager = await loadPiSessionManager()
  const start = process.hrtime.bigint()
  const count = SessionManager.open(target).getEntries().length
  const ms = elapsed(start)
  process.stdout.write(`${JSON.stringify({ ms, count })}\n`)
} else {
  process.stderr.write('usage: cold-load-child tangent HOME ID | pi FILE\n')
  process.exit(2)
}
