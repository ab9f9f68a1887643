// Watches a snapshot directory for changes between snapshots (docs/architecture.md §5, "Folders
// watched between snapshots"): one inotify watch per folder a snapshot looks into, so that the
// snapshot after a step re-reads only the paths that changed instead of walking the whole tree.
// A watch vouches for a period only when it is sure it saw every change in it; otherwise the
// caller walks, as without a watch. What it cannot see, it says so (`changesSince` → null):
//  - events the kernel dropped: all fs.watch handles of a process share one inotify queue
//    (libuv: one per event loop), and a full queue drops events with no word reaching
//    JavaScript (libuv ignores IN_Q_OVERFLOW). Fewer events received since a mark than half the
//    queue's size means the queue never filled since then (it holds events not yet received);
//  - events not yet received: a barrier file in the data directory is written and its event
//    awaited, and the queue is first in, first out;
//  - a folder that appeared: it is watched as soon as its event arrives, and until then its
//    whole tree counts as changed; a mark is only handed out once every such folder is watched;
//  - changes to ignore rules (`.gitignore`), folder names that are not UTF-8, errors, more than
//    `maxFolders` folders, the root itself moved or deleted: the watch breaks and stays broken.
// Folders git ignores (listed once by the caller) and Tangent's data directory are not watched.
import { type FSWatcher, readFileSync, watch } from 'node:fs'
import { lstat, mkdir, opendir, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { type SpawnOutcome, spawnFromStarter } from './git-runner.js'

/** Events received by every watch of this process (they share one inotify queue). */
let processEvents = 0

/** Half the kernel's inotify queue (fs.inotify.max_queued_events, 16,384 by default). */
function eventLimit(): number {
  try {
    const queued = Number(readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8').trim())
    if (Number.isSafeInteger(queued) && queued > 0) return Math.floor(queued / 2)
  } catch {}
  return 8192
}
const limit = eventLimit()

/** A point in a watch's history: `changesSince(token)` lists what changed after it. */
export interface WatchToken {
  readonly watch: FolderWatch
  readonly seq: number
  readonly events: number
}

/** Waits until every inotify event queued before the call has been received (see above). */
export class WatchBarrier {
  readonly #folder: string
  readonly #waiting = new Map<string, () => void>()
  #handle: FSWatcher | null = null
  #count = 0

  constructor(folder: string) {
    this.#folder = folder
  }

  /** True once every event queued before the call is received; false when that cannot be known. */
  async sync(timeoutMs = 2000): Promise<boolean> {
    try {
      if (this.#handle === null) {
        await mkdir(this.#folder, { recursive: true, mode: 0o700 })
        const handle = watch(this.#folder, { persistent: false }, (_type, name) => {
          processEvents++
          if (typeof name === 'string') this.#waiting.get(name)?.()
        })
        handle.on('error', () => this.close())
        this.#handle = handle
      }
      const name = `sync-${process.pid}-${++this.#count}`
      let timer: NodeJS.Timeout | undefined
      const arrived = new Promise<boolean>((resolve) => {
        this.#waiting.set(name, () => resolve(true))
        timer = setTimeout(() => resolve(false), timeoutMs)
      })
      const file = path.join(this.#folder, name)
      await writeFile(file, '', { mode: 0o600 })
      const synced = await arrived
      clearTimeout(timer)
      this.#waiting.delete(name)
      await rm(file, { force: true })
      return synced
    } catch {
      return false
    }
  }

  close(): void {
    this.#handle?.close()
    this.#handle = null
    for (const resolve of this.#waiting.values()) resolve()
    this.#waiting.clear()
  }
}

/**
 * Every folder under `root` (itself first, `.git` folders left out) with its ctime in ns, as
 * `find` lists them; a name that is not UTF-8 comes as `relative: null`. Null when `find` could
 * not run. `find` is started by git-runner's starter process, as git is (spawnFromStarter): forking
 * Tangent's own big process would cost its every thread, the Host's event loop among them,
 * milliseconds. Its environment is only what it needs: PATH to be found, the C locale for its
 * output.
 */
async function listFolders(root: string): Promise<{ relative: string | null; ctimeNs: bigint }[] | null> {
  let outcome: SpawnOutcome
  try {
    outcome = await spawnFromStarter({
      file: 'find',
      args: [root, '(', '-name', '.git', '-prune', ')', '-o', '(', '-type', 'd', '-printf', '%C@ %P\\0', ')'],
      cwd: '/',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' },
      input: '',
    })
  } catch {
    return null
  }
  // A folder gone while find read (exit 1) leaves the others listed; anything worse: null.
  if (outcome.code !== 0 && outcome.code !== 1) return null
  const output = outcome.stdout
  const folders: { relative: string | null; ctimeNs: bigint }[] = []
  let start = 0
  for (let end = output.indexOf(0, start); end !== -1; end = output.indexOf(0, start)) {
    const line = output.subarray(start, end)
    start = end + 1
    const space = line.indexOf(0x20)
    const stamp = line.subarray(0, space).toString('latin1')
    const [seconds = '0', fraction = ''] = stamp.split('.')
    const ctimeNs = BigInt(seconds) * 1_000_000_000n + BigInt(`${fraction}000000000`.slice(0, 9))
    const raw = line.subarray(space + 1)
    const text = raw.toString('utf8')
    folders.push({ relative: Buffer.from(text, 'utf8').equals(raw) ? text : null, ctimeNs })
  }
  return folders
}

export interface FolderWatchOptions {
  /** Folders (relative, '/'-separated) not to watch: git ignores them, or Tangent's data directory. */
  skip: ReadonlySet<string>
  /**
   * When `skip` was listed (ms since the epoch): a `.gitignore` changed since then may have
   * made it wrong, and the watch breaks at once (a file's ctime cannot be set from user space).
   */
  rulesListedAt: number
  /** Folders above the root whose `.gitignore` files apply to it (up to the git work tree's top). */
  ancestors: readonly string[]
  barrier: WatchBarrier
  /** More folders than this and the watch breaks (each is a kernel watch). */
  maxFolders?: number
  /** Distinct changed paths kept before the watch breaks. */
  maxChanged?: number
  /** Events received since a mark past which it vouches for nothing (default: half the queue). */
  eventLimit?: number
}

const setupConcurrency = 16
const gitignoreName = Buffer.from('.gitignore')

export class FolderWatch {
  readonly root: string
  readonly #options: Required<FolderWatchOptions>
  /** Folder (relative, '' for the root) → its watch. */
  readonly #handles = new Map<string, FSWatcher>()
  /** Path (relative) → seq of its latest change. */
  readonly #changed = new Map<string, number>()
  /** Folders being watched after their event, with their whole tree counted as changed. */
  readonly #pending = new Set<Promise<void>>()
  #seq = 0
  #rootIno: bigint | null = null
  #rootDev: bigint | null = null
  #broken: string | null = null
  #ready = false
  readonly started: Promise<boolean>

  constructor(root: string, options: FolderWatchOptions) {
    this.root = root
    this.#options = { maxFolders: 50_000, maxChanged: 100_000, eventLimit: limit, ...options }
    for (const ancestor of options.ancestors) this.#watchAncestor(ancestor)
    this.started = this.#watchListed().then(
      async () => {
        await this.#settle()
        this.#ready = this.#broken === null
        return this.#ready
      },
      (error: unknown) => {
        this.#break(`could not watch ${root}: ${error instanceof Error ? error.message : String(error)}`)
        return false
      },
    )
  }

  /** Why the watch no longer vouches for anything, or null. */
  get broken(): string | null {
    return this.#broken
  }

  /** Number of folders watched. */
  get folders(): number {
    return this.#handles.size
  }

  /**
   * A mark to take before a snapshot reads the tree: what changes after it, `changesSince`
   * lists. Null until every folder is watched, and once broken.
   */
  token(): WatchToken | null {
    if (!this.#ready || this.#broken !== null || this.#pending.size > 0) return null
    return { watch: this, seq: this.#seq, events: processEvents }
  }

  /**
   * The paths (relative, '/'-separated; a folder stands for its whole tree) that changed since
   * `token`, once every event up to now is received and every new folder watched — or null when
   * the watch cannot vouch for the whole period. Forgets changes older than `token`.
   */
  async changesSince(token: WatchToken): Promise<string[] | null> {
    if (token.watch !== this || this.#broken !== null) return null
    if (!(await this.#options.barrier.sync())) return null
    await this.#settle()
    if (this.#broken !== null) return null
    if (processEvents - token.events >= this.#options.eventLimit) return null
    const paths: string[] = []
    for (const [changed, seq] of this.#changed) {
      if (seq > token.seq) paths.push(changed)
      else this.#changed.delete(changed)
    }
    return paths
  }

  /**
   * Every event up to now received and every new folder watched; then `forget(paths)` drops
   * what came before it. Null when that cannot be known (see changesSince).
   */
  async sync(): Promise<number | null> {
    if (this.#broken !== null || !(await this.#options.barrier.sync())) return null
    await this.#settle()
    return this.#broken === null ? this.#seq : null
  }

  /**
   * Drops the changes to `paths` seen up to `seq` (from sync()): they were read since — staged
   * by a snapshot of just those files —, so a later snapshot need not read them again. A change
   * to one of them after `seq` stays.
   */
  forget(paths: readonly string[], seq: number): void {
    for (const changed of paths) {
      const at = this.#changed.get(changed)
      if (at !== undefined && at <= seq) this.#changed.delete(changed)
    }
  }

  close(): void {
    if (this.#broken === null) this.#broken = 'closed'
    for (const handle of this.#handles.values()) handle.close()
    this.#handles.clear()
    this.#changed.clear()
  }

  #break(reason: string): void {
    if (this.#broken !== null) return
    this.close()
    this.#broken = reason
  }

  /** Breaks the watch when the root is no longer the folder it watches (moved, deleted, replaced). */
  #checkRoot(): void {
    const done: Promise<void> = lstat(this.root, { bigint: true })
      .then((info) => {
        if (this.#rootIno === null) return
        if (!info.isDirectory() || info.ino !== this.#rootIno || info.dev !== this.#rootDev) {
          this.#break(`${this.root} itself was moved or replaced`)
        }
      })
      .catch(() => this.#break(`${this.root} itself was moved or deleted`))
      .finally(() => {
        this.#pending.delete(done)
      })
    this.#pending.add(done)
  }

  /** A folder above the root: only its `.gitignore` matters (its rules apply below). */
  #watchAncestor(folder: string): void {
    try {
      const handle = watch(folder, { persistent: false }, (_type, name) => {
        processEvents++
        if (name === '.gitignore') this.#break(`${folder}/.gitignore changed: ignore rules moved`)
      })
      handle.on('error', (error) => this.#break(`watch of ${folder} failed: ${error.message}`))
      this.#handles.set(`../${folder}`, handle)
    } catch (error) {
      this.#break(`could not watch ${folder}: ${(error as Error).message}`)
      return
    }
    this.#checkRules(folder)
  }

  /** Breaks the watch when `folder/.gitignore` changed after the skipped folders were listed. */
  #checkRules(folder: string): void {
    const done: Promise<void> = lstat(path.join(folder, '.gitignore'))
      .then((info) => {
        // Slack for the kernel's coarse file clock (a few ms behind Date.now()).
        if (info.ctimeMs >= this.#options.rulesListedAt - 100) {
          this.#break(`${folder}/.gitignore changed while the watch started`)
        }
      })
      .catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT' && error.code !== 'ENOTDIR') {
          this.#break(`could not look at ${folder}/.gitignore: ${error.message}`)
        }
      })
      .finally(() => {
        this.#pending.delete(done)
      })
    this.#pending.add(done)
  }

  async #settle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all(this.#pending)
  }

  #skipped(relative: string): boolean {
    return relative !== '' && this.#options.skip.has(relative)
  }

  #full(relative: string): string {
    return relative === '' ? this.root : path.join(this.root, relative)
  }

  /**
   * The first set-up: `find` lists every folder (with its ctime) in a process of its own, so the
   * event loop never reads the folders' files; each folder is then watched, and one whose ctime
   * moved since `find` looked at it (or is too recent to tell) is read again after its watch, for
   * subfolders `find` could not have seen. Without `find`, the folders are read here.
   */
  async #watchListed(): Promise<void> {
    const startedAt = BigInt(Date.now() - 100) * 1_000_000n
    const listed = await listFolders(this.root)
    if (listed === null) return this.#watchTree('')
    const known = new Set(listed.map((folder) => folder.relative))
    const under = (relative: string) => {
      for (let at = relative.lastIndexOf('/'); at > 0; at = relative.lastIndexOf('/', at - 1)) {
        if (this.#skipped(relative.slice(0, at))) return true
      }
      return false
    }
    const batch = 64
    for (let start = 0; start < listed.length && this.#broken === null; start += batch) {
      await Promise.all(
        listed.slice(start, start + batch).map(async (folder) => {
          if (folder.relative === null) {
            this.#break(`a folder name in ${this.root} is not UTF-8`)
            return
          }
          if (this.#skipped(folder.relative) || under(folder.relative)) return
          const fresh = await this.#watchOnly(folder.relative)
          if (fresh === null) return
          if (fresh === folder.ctimeNs && fresh < startedAt) return
          // Changed since `find` saw it: its subfolders are read now, after its watch.
          for (const sub of await this.#watchFolder(folder.relative)) {
            if (!known.has(sub)) await this.#watchTree(sub)
          }
        }),
      )
    }
  }

  /** Watches `relative` (no listing); its ctime after the watch, or null when it is gone. */
  async #watchOnly(relative: string): Promise<bigint | null> {
    if (!this.#addWatch(relative)) return null
    try {
      const info = await lstat(this.#full(relative), { bigint: true })
      if (relative === '') {
        this.#rootIno = info.ino
        this.#rootDev = info.dev
      }
      return info.isDirectory() ? info.ctimeNs : null
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code !== 'ENOENT' && code !== 'ENOTDIR') this.#break(`could not look at ${this.#full(relative)}`)
      return null
    }
  }

  /** Adds the watch of one folder; false when it has gone (or the watch broke). */
  #addWatch(relative: string): boolean {
    if (this.#handles.has(relative)) return true
    const full = this.#full(relative)
    if (this.#handles.size >= this.#options.maxFolders) {
      this.#break(`more than ${this.#options.maxFolders} folders to watch`)
      return false
    }
    let handle: FSWatcher
    try {
      handle = watch(full, { persistent: false, encoding: 'buffer' }, (type, name) =>
        this.#onEvent(relative, type, name),
      )
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      // Gone (or no longer a folder) since it was seen: its parent's event counts it changed.
      if (code !== 'ENOENT' && code !== 'ENOTDIR') {
        this.#break(`could not watch ${full}: ${(error as Error).message}`)
      }
      return false
    }
    handle.on('error', (error) => this.#break(`watch of ${full} failed: ${error.message}`))
    this.#handles.set(relative, handle)
    return true
  }

  /** Watches `start` and every folder below it (each one's watch first, then its listing). */
  #watchTree(start: string): Promise<void> {
    const queue = [start]
    let active = 0
    return new Promise<void>((resolve) => {
      const pump = () => {
        while (active < setupConcurrency && queue.length > 0 && this.#broken === null) {
          const next = queue.shift() as string
          active++
          this.#watchFolder(next)
            .then(
              (found) => {
                for (const folder of found) queue.push(folder)
              },
              (error: unknown) => this.#break(`could not watch ${this.#full(next)}: ${String(error)}`),
            )
            .finally(() => {
              active--
              pump()
            })
        }
        if (active === 0) resolve()
      }
      pump()
    })
  }

  /** Watches one folder and returns its subfolders (none when it has gone). */
  async #watchFolder(relative: string): Promise<string[]> {
    if (this.#skipped(relative)) return []
    const full = this.#full(relative)
    if (!this.#handles.has(relative)) {
      if (!this.#addWatch(relative)) return []
      if (relative === '') {
        // The root's identity, to tell its own events from a child's of the same name.
        const info = await lstat(full, { bigint: true })
        this.#rootIno = info.ino
        this.#rootDev = info.dev
      }
    }
    const folders: string[] = []
    let rules = false
    try {
      // Names as bytes: a name that is not UTF-8 must not be taken for another.
      const listing = await opendir(full, { encoding: 'buffer' as BufferEncoding, bufferSize: 256 })
      for await (const entry of listing) {
        if (!entry.isDirectory()) {
          if (!rules && (entry.name as unknown as Buffer).equals(gitignoreName)) rules = true
          continue
        }
        const name = entry.name as unknown as Buffer
        const text = name.toString('utf8')
        if (!Buffer.from(text, 'utf8').equals(name)) {
          this.#break(`a folder name in ${full} is not UTF-8`)
          return []
        }
        // A repository's own folder: never snapshotted, its churn is git's.
        if (text === '.git') continue
        folders.push(relative === '' ? text : `${relative}/${text}`)
      }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'ENOENT' || code === 'ENOTDIR') return []
      this.#break(`could not list ${full}: ${(error as Error).message}`)
      return []
    }
    if (rules) this.#checkRules(full)
    return folders
  }

  #note(relative: string): void {
    this.#changed.set(relative, this.#seq)
    if (this.#changed.size > this.#options.maxChanged) {
      this.#break(`more than ${this.#options.maxChanged} changed paths`)
    }
  }

  #onEvent(folder: string, type: string, name: Buffer | string | null): void {
    processEvents++
    if (this.#broken !== null) return
    this.#seq++
    if (name === null) {
      // An event of the folder itself (deleted or moved): its whole tree counts as changed.
      if (folder === '') this.#break(`${this.root} itself was moved or deleted`)
      else this.#note(folder)
      return
    }
    const raw = typeof name === 'string' ? Buffer.from(name, 'utf8') : name
    const text = raw.toString('utf8')
    // libuv names an event of the watched folder itself (moved, deleted) by the folder's own
    // name, as if a child of it: the root has no parent watching it, so it is looked at.
    if (folder === '' && text === path.basename(this.root)) this.#checkRoot()
    if (!Buffer.from(text, 'utf8').equals(raw) || text.includes('/')) {
      // A name a pathspec cannot carry: the folder, whole.
      if (folder === '') this.#break(`a name in ${this.root} is not UTF-8`)
      else this.#note(folder)
      return
    }
    if (text === '.gitignore') {
      this.#break(`${this.#full(folder === '' ? text : `${folder}/${text}`)} changed: ignore rules moved`)
      return
    }
    if (text === '.git') {
      // A nested repository appeared or went: the folder's files are its own now, or ours.
      if (folder === '') this.#break(`${this.root}/.git was created, moved or removed`)
      else this.#note(folder)
      return
    }
    const relative = folder === '' ? text : `${folder}/${text}`
    if (this.#skipped(relative)) return
    this.#note(relative)
    // Created, removed or moved: a folder's watches below this name are stale, and a folder
    // here now is watched anew (its tree counted changed above until then).
    if (type === 'rename' || this.#handles.has(relative)) this.#follow(relative)
  }

  #follow(relative: string): void {
    for (const [folder, handle] of this.#handles) {
      if (folder === relative || folder.startsWith(`${relative}/`)) {
        handle.close()
        this.#handles.delete(folder)
      }
    }
    const done: Promise<void> = lstat(this.#full(relative))
      .then((info) => (info.isDirectory() ? this.#watchTree(relative) : undefined))
      .catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT' && error.code !== 'ENOTDIR') {
          this.#break(`could not look at ${this.#full(relative)}: ${error.message}`)
        }
      })
      .finally(() => {
        this.#pending.delete(done)
      })
    this.#pending.add(done)
  }
}
