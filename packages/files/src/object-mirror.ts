// The shadow repository's snapshot objects mirrored in the store's object table (PostgreSQL), so
// files travel through the store (docs/architecture.md §4, "Where snapshot objects live"):
// upload() puts the objects of a tree the store lacks before the tree is handed to anyone who
// could record it; ensure() fetches trees named by events of another machine into this one's
// shadow repository, checking each object hashes to its id.
import { spawn } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { rename, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { deflateSync } from 'node:zlib'
import { type SnapshotObject, type SnapshotObjectStore, TangentError } from '@tangent/core'
import { gitEnvironment, inertGitSettings, splitNul } from './git.js'
import { makePrivateDirectory, privateFileMode } from './private-files.js'
import { emptyTree, type ShadowRepository } from './shadow-repository.js'

type ObjectType = SnapshotObject['type']

/**
 * How long an upload is trusted without asking the store again. Half the store's grace period
 * (10 minutes): every object of a tree was put or touched (has()) within this time, so a
 * collect on another Host spares it until the event naming the tree is written.
 */
const trustedForMs = 5 * 60_000
/** Trees remembered as uploaded (the oldest are forgotten first). */
const rememberedTrees = 10_000
/** What one put() carries at most. */
const putBytes = 8 * 1024 * 1024
const putObjects = 1_000
/** Ids per get() while fetching (blobs may be up to the snapshot size limit each). */
const idsPerGet = 256

const objectId = /^[0-9a-f]{40}$/

/** The git object id of `data` as a `type` object. */
export function gitObjectId(type: ObjectType, data: Uint8Array): string {
  return createHash('sha1').update(`${type} ${data.byteLength}\0`).update(data).digest('hex')
}

/** The entries of a git tree object (`<mode> <name>\0<20-byte id>`); submodule commits left out. */
function treeChildren(data: Uint8Array): { id: string; type: ObjectType }[] {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength)
  const children: { id: string; type: ObjectType }[] = []
  let at = 0
  while (at < bytes.length) {
    const space = bytes.indexOf(0x20, at)
    const nul = space < 0 ? -1 : bytes.indexOf(0, space)
    if (space < 0 || nul < 0 || nul + 21 > bytes.length) throw new Error('malformed git tree object')
    const mode = bytes.toString('latin1', at, space)
    const id = bytes.toString('hex', nul + 1, nul + 21)
    if (mode !== '160000') children.push({ id, type: mode === '40000' ? 'tree' : 'blob' })
    at = nul + 21
  }
  return children
}

function unavailable(trees: readonly string[], message: string): TangentError {
  return new TangentError('snapshot-unavailable', message, { trees: [...trees] })
}

export class ObjectMirror {
  readonly #repository: ShadowRepository
  readonly #store: SnapshotObjectStore
  /** Trees whose objects the store holds, and since when that is known (see trustedForMs). */
  readonly #uploaded = new Map<string, number>()
  /** Per directory, its latest uploaded tree: the next one uploads only what differs. */
  readonly #latest = new Map<string, { tree: string; since: number }>()
  /** Trees known to be whole in the shadow repository: asking git again is not needed until a gc. */
  readonly #local = new Set<string>()

  constructor(repository: ShadowRepository, store: SnapshotObjectStore) {
    this.#repository = repository
    this.#store = store
  }

  /** Forgets what it knows of the shadow repository (after a gc pruned it). */
  forget(): void {
    this.#uploaded.clear()
    this.#latest.clear()
    this.#local.clear()
  }

  #knownLocal(tree: string): void {
    if (this.#local.size >= rememberedTrees) this.#local.clear()
    this.#local.add(tree)
  }

  /**
   * Puts the objects of `tree` the store lacks, before it resolves. `directory`: the directory
   * the tree is a snapshot of, so only what changed since its previous tree is listed. An unchanged
   * tree uploaded recently costs nothing.
   */
  async upload(tree: string, directory?: string): Promise<void> {
    if (tree === emptyTree) return
    this.#knownLocal(tree)
    const now = Date.now()
    const known = this.#uploaded.get(tree)
    if (known !== undefined && now - known < trustedForMs) {
      if (directory !== undefined) this.#latest.set(directory, { tree, since: known })
      return
    }
    const previous = directory === undefined ? undefined : this.#latest.get(directory)
    const base = previous && now - previous.since < trustedForMs ? previous : undefined
    const objects = base ? await this.#changedObjects(base.tree, tree) : await this.#allObjects(tree)
    const held = await this.#store.has([...objects.keys()])
    const missing = [...objects.keys()].filter((id) => !held.has(id))
    await this.#putFromRepository(missing)
    // What the new tree shares with the base was uploaded (or found) when the base was.
    const since = base ? base.since : now
    this.#remember(tree, since)
    if (directory !== undefined) this.#latest.set(directory, { tree, since })
  }

  #remember(tree: string, since: number): void {
    this.#uploaded.delete(tree)
    this.#uploaded.set(tree, since)
    if (this.#uploaded.size > rememberedTrees) {
      const oldest = this.#uploaded.keys().next().value
      if (oldest !== undefined) this.#uploaded.delete(oldest)
    }
  }

  /** Every object of `tree`, itself included. */
  async #allObjects(tree: string): Promise<Map<string, ObjectType>> {
    const listed = await this.#repository.git(['ls-tree', '-r', '-t', '-z', '--full-tree', tree])
    const objects = new Map<string, ObjectType>([[tree, 'tree']])
    for (const record of splitNul(listed.stdout)) {
      // `<mode> SP <type> SP <id> TAB <path>`
      const [, type = '', id = ''] = record.slice(0, record.indexOf('\t')).split(' ')
      if (type === 'blob' || type === 'tree') objects.set(id, type)
    }
    return objects
  }

  /** The objects of `tree` that are not in `base` (new blobs, and the trees on their paths). */
  async #changedObjects(base: string, tree: string): Promise<Map<string, ObjectType>> {
    const objects = new Map<string, ObjectType>([[tree, 'tree']])
    if (base === tree) return objects
    const diff = await this.#repository.git(['diff-tree', '-r', '-t', '-z', '--no-renames', base, tree])
    const fields = splitNul(diff.stdout)
    // `:<old mode> <new mode> <old id> <new id> <status>` then the path.
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const [, mode = '', , id = ''] = (fields[i] ?? '').split(' ')
      if (mode === '000000' || mode === '160000' || /^0+$/.test(id)) continue
      objects.set(id, mode === '040000' ? 'tree' : 'blob')
    }
    return objects
  }

  /** Reads `ids` from the shadow repository in one `git cat-file --batch` and puts them in batches. */
  async #putFromRepository(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return
    let batch: SnapshotObject[] = []
    let bytes = 0
    for await (const object of this.#readObjects(ids)) {
      batch.push(object)
      bytes += object.data.byteLength
      if (batch.length >= putObjects || bytes >= putBytes) {
        await this.#store.put(batch)
        batch = []
        bytes = 0
      }
    }
    if (batch.length > 0) await this.#store.put(batch)
  }

  /** Streams objects out of `git cat-file --batch` (only one object's data held at a time). */
  async *#readObjects(ids: readonly string[]): AsyncGenerator<SnapshotObject> {
    const child = spawn('git', [...inertGitSettings, 'cat-file', '--batch'], {
      cwd: this.#repository.gitDir,
      env: gitEnvironment({ GIT_DIR: this.#repository.gitDir }),
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    const stderr: Buffer[] = []
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk))
    const exited = new Promise<number>((resolve) => {
      child.on('close', (code) => resolve(code ?? -1))
      child.on('error', () => resolve(-1))
    })
    child.stdin.on('error', () => undefined)
    child.stdin.end(ids.map((id) => `${id}\n`).join(''))
    let header = Buffer.alloc(0)
    let current: { id: string; type: string; data: Buffer; filled: number } | null = null
    let yielded = 0
    try {
      for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
        let at = 0
        while (at < chunk.length) {
          if (current === null) {
            const newline = chunk.indexOf(0x0a, at)
            if (newline < 0) {
              header = Buffer.concat([header, chunk.subarray(at)])
              break
            }
            const line = Buffer.concat([header, chunk.subarray(at, newline)]).toString('utf8')
            header = Buffer.alloc(0)
            at = newline + 1
            const [id = '', type = '', size = ''] = line.split(' ')
            if (type === 'missing' || size === '') {
              throw new TangentError(
                'git-failed',
                `Snapshot object ${id} is missing from ${this.#repository.gitDir}, so it cannot be stored in the database.`,
                { args: ['cat-file', '--batch'], stderr: line },
              )
            }
            // +1: the newline after the data.
            current = { id, type, data: Buffer.allocUnsafe(Number(size) + 1), filled: 0 }
            continue
          }
          const take = Math.min(current.data.length - current.filled, chunk.length - at)
          chunk.copy(current.data, current.filled, at, at + take)
          current.filled += take
          at += take
          if (current.filled === current.data.length) {
            const { id, type, data } = current
            current = null
            if (type !== 'blob' && type !== 'tree') continue
            yielded += 1
            yield { id, type, data: data.subarray(0, data.length - 1) }
          }
        }
      }
    } finally {
      if (child.exitCode === null) child.kill()
    }
    const code = await exited
    if (code !== 0 || yielded < ids.length) {
      throw new TangentError(
        'git-failed',
        `git cat-file --batch read ${yielded} of ${ids.length} snapshot objects (exit ${code}): ${Buffer.concat(stderr).toString('utf8').trim().slice(0, 500)}`,
        { args: ['cat-file', '--batch'], stderr: Buffer.concat(stderr).toString('utf8') },
      )
    }
  }

  /**
   * Fetches the trees of `trees` missing from the shadow repository from the store, with every
   * object below them, as loose objects. Each object is checked to hash to its id before it is
   * written (the database is not trusted to name content). Trees go in last, deepest first, so a
   * tree is only ever present with everything below it. A tree the store lacks too is left for
   * the caller's own check (snapshot-unavailable); an object missing below a tree the store has is
   * snapshot-unavailable here.
   */
  async ensure(trees: readonly (string | null)[]): Promise<void> {
    const asked = [...new Set(trees)].filter(
      (tree): tree is string =>
        tree !== null && tree !== emptyTree && objectId.test(tree) && !this.#local.has(tree),
    )
    if (asked.length === 0) return
    await this.#repository.ensure()
    const roots = await this.#repository.missingTrees(asked)
    for (const tree of asked) if (!roots.includes(tree)) this.#knownLocal(tree)
    if (roots.length === 0) return
    const treesToWrite: SnapshotObject[] = []
    let wanted = new Map<string, ObjectType>(roots.map((tree) => [tree, 'tree']))
    let firstLevel = true
    while (wanted.size > 0) {
      const next = new Map<string, ObjectType>()
      const ids = [...wanted.keys()]
      for (let i = 0; i < ids.length; i += idsPerGet) {
        const batch = ids.slice(i, i + idsPerGet)
        const found = await this.#store.get(batch)
        const byId = new Map(found.map((object) => [object.id, object]))
        // A batch's blobs are written side by side, once every object of the batch is verified.
        const blobs: SnapshotObject[] = []
        for (const id of batch) {
          const object = byId.get(id)
          if (object === undefined) {
            if (firstLevel) continue // not in the store either: the caller's check names it
            throw unavailable(
              roots,
              `Snapshot object ${id} (below tree ${roots.join(', ')}) is in neither ${this.#repository.gitDir} nor the database: the tree cannot be materialised here.`,
            )
          }
          const expected = wanted.get(id)
          if (object.type !== expected || gitObjectId(object.type, object.data) !== id) {
            throw unavailable(
              roots,
              `The database's snapshot object ${id} is not the ${expected ?? 'object'} of that id (its content hashes to ${gitObjectId(object.type, object.data)} as a ${object.type}): refused, nothing of it was written to ${this.#repository.gitDir}.`,
            )
          }
          if (object.type === 'blob') {
            blobs.push(object)
            continue
          }
          let children: { id: string; type: ObjectType }[]
          try {
            children = treeChildren(object.data)
          } catch {
            throw unavailable(roots, `The database's snapshot tree ${id} is malformed: refused.`)
          }
          treesToWrite.push(object)
          for (const child of children) next.set(child.id, child.type)
        }
        await Promise.all(blobs.map((blob) => this.#writeLoose(blob)))
      }
      firstLevel = false
      wanted = await this.#absent(next)
    }
    // Deepest first: a parent tree is written only once everything below it is.
    for (const tree of treesToWrite.reverse()) await this.#writeLoose(tree)
    for (const tree of roots) if (treesToWrite.some((object) => object.id === tree)) this.#knownLocal(tree)
  }

  /** Of `objects`, those the shadow repository lacks (one `git cat-file --batch-check`). */
  async #absent(objects: Map<string, ObjectType>): Promise<Map<string, ObjectType>> {
    if (objects.size === 0) return objects
    const result = await this.#repository.git(['cat-file', '--batch-check=%(objectname) %(objecttype)'], {
      input: [...objects.keys()].map((id) => `${id}\n`).join(''),
    })
    const absent = new Map(objects)
    for (const line of result.stdout.toString('utf8').split('\n')) {
      const [id = '', type = ''] = line.split(' ')
      if (type === objects.get(id)) absent.delete(id)
    }
    return absent
  }

  /** Writes a verified object as a loose object: deflated to a private temp file, then renamed in. */
  async #writeLoose(object: SnapshotObject): Promise<void> {
    const directory = path.join(this.#repository.gitDir, 'objects', object.id.slice(0, 2))
    const file = path.join(directory, object.id.slice(2))
    if (existsSync(file)) return
    await makePrivateDirectory(directory)
    const content = deflateSync(
      Buffer.concat([Buffer.from(`${object.type} ${object.data.byteLength}\0`), object.data]),
    )
    const temporary = path.join(directory, `tmp_obj_${process.pid}_${randomBytes(6).toString('hex')}`)
    try {
      await writeFile(temporary, content, { mode: privateFileMode })
      await rename(temporary, file)
    } catch (error) {
      await rm(temporary, { force: true })
      throw error
    }
  }
}
