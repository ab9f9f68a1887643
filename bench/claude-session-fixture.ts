// A big Claude Code session file for the import benchmark (issue 31), made of real records: the
// records of test/fixtures/imports/claude/tools-branch-compact.jsonl (written by Claude Code
// 2.1.332 itself), repeated until the file reaches the size asked for. Each repetition gets its
// own uuids, tool-call and message ids and a later timestamp, and its first message follows the
// last record of the repetition before it, so the file stays one conversation; the rewind branch
// the fixture holds is kept in a few repetitions only (a rewind every few hundred turns).
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
export const claudeFixtureFile = path.join(
  here,
  '../../test/fixtures/imports/claude/tools-branch-compact.jsonl',
)

const uuidPattern = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g
const apiIdPattern = /\b(?:toolu|msg)_[A-Za-z0-9]+/g
const timestampPattern = /"timestamp":"([^"]+)"/g

export interface ClaudeSessionFixture {
  file: string
  bytes: number
  lines: number
  repetitions: number
  /** Repetitions that keep the fixture's rewind branch. */
  branches: number
  sessionId: string
}

interface Template {
  lines: string[]
  sessionId: string
  /** Index of the record that starts the conversation (`parentUuid: null`, no logical parent). */
  first: number
  /** The uuid the next repetition's first record follows: the last record with a uuid. */
  lastUuid: string
  /** Lines of the branch the rewind left behind (left out of most repetitions). */
  deadEnd: Set<number>
}

function template(): Template {
  const lines = fs
    .readFileSync(claudeFixtureFile, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
  const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>)
  const sessionId = records.find((record) => typeof record.sessionId === 'string')?.sessionId as string
  const first = records.findIndex(
    (record) => 'uuid' in record && record.parentUuid === null && record.logicalParentUuid === undefined,
  )
  const withUuid = records.map((record, index) => [record, index] as const).filter(([r]) => 'uuid' in r)
  const lastUuid = withUuid.at(-1)![0].uuid as string
  // The rewind: two children of one parent, both user messages; the first (in file order) is the
  // turn the rewind left behind, and the leaf's chain goes through the second.
  const onChain = new Set<string>()
  const byUuid = new Map(withUuid.map(([record]) => [record.uuid as string, record]))
  for (let uuid: string | undefined = lastUuid; uuid !== undefined; ) {
    onChain.add(uuid)
    const record = byUuid.get(uuid)!
    uuid = (record.parentUuid ?? record.logicalParentUuid ?? undefined) as string | undefined
  }
  const deadEnd = new Set<number>()
  const dropped = new Set<string>()
  for (const [record, index] of withUuid) {
    const parent = record.parentUuid as string | null
    const leftBehind =
      !onChain.has(record.uuid as string) &&
      (dropped.has(parent ?? '') || (record.type === 'user' && parent !== null && onChain.has(parent)))
    if (leftBehind) {
      dropped.add(record.uuid as string)
      deadEnd.add(index)
    }
  }
  if (first < 0 || deadEnd.size === 0) throw new Error(`${claudeFixtureFile} is not the fixture expected`)
  // Repetition k rewrites a uuid's first 8 digits: the rest must tell the fixture's uuids apart.
  const uuids = new Set(lines.join('\n').match(uuidPattern))
  uuids.delete(sessionId)
  if (new Set([...uuids].map((uuid) => uuid.slice(8))).size !== uuids.size)
    throw new Error('two uuids of the fixture end alike')
  return { lines, sessionId, first, lastUuid, deadEnd }
}

/**
 * Writes a Claude Code session file of at least `bytes` bytes to `file`, with a rewind branch in
 * `branches` repetitions spread over it.
 */
export function writeClaudeSession(file: string, bytes: number, branches = 3): ClaudeSessionFixture {
  const t = template()
  const fd = fs.openSync(file, 'w')
  let written = 0
  let lines = 0
  let previousLast: string | null = null
  const linearBytes = t.lines.reduce(
    (sum, line, index) => sum + (t.deadEnd.has(index) ? 0 : line.length + 1),
    0,
  )
  const repetitions = Math.max(1, Math.ceil(bytes / linearBytes))
  const branchAt = new Set(
    Array.from({ length: branches }, (_, i) => Math.floor(((i + 1) * repetitions) / (branches + 1))),
  )
  const hour = 3_600_000
  for (let rep = 0; rep < repetitions; rep++) {
    const prefix = rep.toString(16).padStart(8, '0')
    const uuid = (value: string) => (value === t.sessionId ? value : `${prefix}${value.slice(8)}`)
    const out: string[] = []
    for (const [index, line] of t.lines.entries()) {
      if (t.deadEnd.has(index) && !branchAt.has(rep)) continue
      let next = line
        .replace(uuidPattern, uuid)
        .replace(apiIdPattern, (id) => `${id}r${rep}`)
        .replace(
          timestampPattern,
          (_, time: string) => `"timestamp":"${new Date(Date.parse(time) + rep * hour).toISOString()}"`,
        )
      if (index === t.first && previousLast !== null) {
        if (!next.includes('"parentUuid":null')) throw new Error('the first record has no parentUuid: null')
        next = next.replace('"parentUuid":null', `"parentUuid":"${previousLast}"`)
      }
      out.push(next)
    }
    previousLast = uuid(t.lastUuid)
    const chunk = `${out.join('\n')}\n`
    fs.writeSync(fd, chunk)
    written += Buffer.byteLength(chunk)
    lines += out.length
  }
  fs.closeSync(fd)
  return { file, bytes: written, lines, repetitions, branches: branchAt.size, sessionId: t.sessionId }
}
