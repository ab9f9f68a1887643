// A throwaway PostgreSQL server for tests and benches: initdb into a temp dir, listen on a Unix
// socket in that dir (and 127.0.0.1 on a free port), stop and remove it after. The server binaries
// (initdb, pg_ctl, postgres) come from the machine (Debian's postgresql package; .ci/run installs it).
// PostgreSQL refuses to run as root: as root the server runs as the `postgres` user.
import { execFile, spawnSync } from 'node:child_process'
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import type { Session } from '@tangent/core'
import pg from 'pg'
import { migrate } from './schema.js'

const run = promisify(execFile)

export interface TestPostgres {
  /** postgres://…@127.0.0.1:port/tangent */
  readonly url: string
  /** postgres://…@/tangent?host=<socket dir> (a Unix socket, as libpq writes it) */
  readonly socketUrl: string
  readonly dataDir: string
  readonly port: number
  /**
   * A new database on the same server; its URL. Empty by default; with `migrated`, it already
   * has the engine's current schema (a copy of a template database migrated once per server,
   * much cheaper than migrating each: for suites that open many stores and do not test the
   * migrations themselves).
   */
  createDatabase(name: string, options?: { migrated?: boolean }): Promise<string>
  /** Stops the server (fast: connections are closed) and starts it again on the same port. */
  restart(): Promise<void>
  /** Stops the server, keeping its data: `start()` brings it back on the same port. */
  halt(): Promise<void>
  start(): Promise<void>
  stop(): Promise<void>
}

/** Where the server binaries are: on PATH, else Debian's versioned directory. */
export function postgresBinDir(): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && existsSync(path.join(dir, 'pg_ctl')) && existsSync(path.join(dir, 'initdb'))) return dir
  }
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return null
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a))
  for (const version of versions) {
    const bin = path.join(root, version, 'bin')
    if (existsSync(path.join(bin, 'pg_ctl'))) return bin
  }
  return null
}

export function postgresAvailable(): boolean {
  return postgresBinDir() !== null
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

export interface TestPostgresOptions {
  /**
   * fsync on, as a real server runs (for benches, which measure the disk's cost). Off by default:
   * the tests kill servers and processes, never the machine, and without fsync what a commit
   * wrote is still in the kernel's page cache after any of them. (Measured here: 100 migrated
   * databases then a stop, 33 s + 13 s with fsync, 14 s + 1.5 s without.)
   */
  durable?: boolean
}

export async function startTestPostgres(testOptions: TestPostgresOptions = {}): Promise<TestPostgres> {
  const bin = postgresBinDir()
  if (!bin)
    throw new Error(
      'PostgreSQL server binaries (initdb, pg_ctl) not found: install Debian package postgresql.',
    )
  const asRoot = process.getuid?.() === 0
  const owner = asRoot ? await postgresUser() : null
  const root = mkdtempSync(path.join(os.tmpdir(), 'tangent-pg-'))
  const dataDir = path.join(root, 'data')
  const socketDir = path.join(root, 'socket')
  chmodSync(root, 0o755)
  if (owner) chownSync(root, owner.uid, owner.gid)
  const exec = async (file: string, args: string[]) => {
    const command = path.join(bin, file)
    if (owner)
      return run(
        'setpriv',
        ['--reuid', String(owner.uid), '--regid', String(owner.gid), '--clear-groups', command, ...args],
        { cwd: root },
      )
    return run(command, args, { cwd: root })
  }
  await exec('initdb', [
    '-D',
    dataDir,
    '-U',
    'tangent',
    '--auth=trust',
    '--no-sync',
    '-E',
    'UTF8',
    '--locale=C',
  ])
  await (owner
    ? run('setpriv', [
        '--reuid',
        String(owner.uid),
        '--regid',
        String(owner.gid),
        '--clear-groups',
        'mkdir',
        '-m',
        '0700',
        socketDir,
      ])
    : run('mkdir', ['-m', '0700', socketDir]))
  const port = await freePort()
  const options = `-c listen_addresses=127.0.0.1 -c port=${port} -c unix_socket_directories=${socketDir} -c fsync=${testOptions.durable ? 'on' : 'off'} -c max_connections=200 -c shared_buffers=64MB`
  const start = () =>
    exec('pg_ctl', [
      '-D',
      dataDir,
      '-w',
      '-t',
      '60',
      '-l',
      path.join(root, 'server.log'),
      '-o',
      options,
      'start',
    ])
  const stopServer = () => exec('pg_ctl', ['-D', dataDir, '-w', '-t', '60', '-m', 'fast', 'stop'])
  await start()
  // A test process that dies without its afterAll (a worker killed on a timeout) must not leave
  // a server running: stop it at exit, synchronously, the fastest way.
  const stopAtExit = () => {
    const command = path.join(bin, 'pg_ctl')
    const args = ['-D', dataDir, '-m', 'immediate', 'stop']
    if (owner) {
      spawnSync(
        'setpriv',
        ['--reuid', String(owner.uid), '--regid', String(owner.gid), '--clear-groups', command, ...args],
        { stdio: 'ignore' },
      )
    } else spawnSync(command, args, { stdio: 'ignore' })
    rmSync(root, { recursive: true, force: true })
  }
  process.once('exit', stopAtExit)
  const url = (db: string) => `postgres://tangent@127.0.0.1:${port}/${db}`
  // One connection per statement (no psql process): the server may be restarted between calls.
  const admin = async (statement: string, db = 'postgres') => {
    const client = new pg.Client({ connectionString: url(db) })
    await client.connect()
    try {
      await client.query(statement)
    } finally {
      await client.end()
    }
  }
  const template = 'tangent_migrated_template'
  // PostgreSQL 15 copies a database through the WAL by default: every copy is written twice (log
  // and files), and a suite taking one per test left a gigabyte for the server's shutdown to work
  // through (a minute, on a busy machine). FILE_COPY, the only way before 15, copies the files once.
  let strategy: Promise<string> | null = null
  const copyStrategy = () => {
    strategy ??= (async () => {
      const client = new pg.Client({ connectionString: url('postgres') })
      await client.connect()
      try {
        const { rows } = await client.query<{ server_version_num: string }>('SHOW server_version_num')
        return Number(rows[0]?.server_version_num) >= 150000 ? ' STRATEGY FILE_COPY' : ''
      } finally {
        await client.end()
      }
    })().catch((error: unknown) => {
      strategy = null // asked again next time (the server may have been restarting)
      throw error
    })
    return strategy
  }
  let templateReady: Promise<void> | null = null
  const migrateTemplate = async () => {
    await admin(`CREATE DATABASE "${template}"`)
    const client = new pg.Client({ connectionString: url(template) })
    await client.connect()
    try {
      await migrate(client, false, template)
    } finally {
      // CREATE DATABASE … TEMPLATE needs the template without connections.
      await client.end()
    }
  }
  // The next migrated database, copied while the test that took the last one runs (a copy is
  // mostly waiting on the disk): a suite taking one per test rarely waits for it. Taken by a
  // rename, so the caller's name is the database's.
  let spares = 0
  let spare: Promise<string> | null = null
  const copyTemplate = async () => {
    templateReady ??= migrateTemplate()
    await templateReady
    const name = `tangent_spare_${++spares}`
    await admin(`CREATE DATABASE "${name}" TEMPLATE "${template}"${await copyStrategy()}`)
    return name
  }
  const prepareSpare = () => {
    spare = copyTemplate()
    // Awaited by the next createDatabase (or stop): not an unhandled rejection meanwhile.
    spare.catch(() => undefined)
  }
  const createDatabase = async (name: string, options: { migrated?: boolean } = {}) => {
    if (options.migrated) {
      const ready = spare ?? copyTemplate()
      spare = null
      const copy = await ready
      await admin(`ALTER DATABASE "${copy}" RENAME TO "${name}"`)
      prepareSpare()
    } else await admin(`CREATE DATABASE "${name}"`)
    return url(name)
  }
  /**
   * Drops a copy in flight (the server is about to stop, which ends it: its rejection is already
   * handled); the next migrated database makes a new one. Not awaited, so a stop never waits on it.
   */
  const dropSpare = () => {
    spare = null
  }
  await createDatabase('tangent')
  let stopped = false
  return {
    url: url('tangent'),
    socketUrl: `postgres://tangent@/tangent?host=${encodeURIComponent(socketDir)}&port=${port}`,
    dataDir,
    port,
    createDatabase,
    async restart() {
      dropSpare()
      await stopServer()
      await start()
    },
    async halt() {
      dropSpare()
      await stopServer()
    },
    async start() {
      await start()
    },
    async stop() {
      if (stopped) return
      stopped = true
      process.off('exit', stopAtExit)
      dropSpare()
      await stopServer().catch(() => undefined)
      rmSync(root, { recursive: true, force: true })
    },
  }
}

async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const { stdout } = await run('id', ['-u', 'postgres']).catch(() => {
    throw new Error('Running as root, PostgreSQL needs an unprivileged user: no user "postgres" here.')
  })
  const { stdout: group } = await run('id', ['-g', 'postgres'])
  return { uid: Number(stdout.trim()), gid: Number(group.trim()) }
}

/**
 * Whether this machine can run the PostgreSQL tests. Without the server binaries they are
 * skipped with a message — except under CI, where they run (and fail) instead.
 */
export function postgresTestsRun(file: string): boolean {
  if (postgresAvailable() || process.env.CI) return true
  console.warn(
    `${file}: PostgreSQL server binaries (initdb, pg_ctl) not found — SKIPPED. Install Debian package postgresql (CI fails instead of skipping).`,
  )
  return false
}

/** The built entry of this package, for child processes. */
export const distEntry = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'dist', 'index.js')

/** Polls `check` until it returns a value other than undefined/false; fails after `deadlineMs`. */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  deadlineMs = 20_000,
): Promise<T> {
  const end = Date.now() + deadlineMs
  for (;;) {
    const value = await check()
    if (value !== undefined && value !== false) return value
    if (Date.now() > end) throw new Error(`gave up waiting for ${what} after ${deadlineMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** One complete turn without tools: a message, a step, a text answer. */
export function appendTextTurn(session: Session, text: string): void {
  session.append('turn/start', {})
  session.append('user/message', { content: [{ type: 'text', text }] })
  session.append('step/start', {})
  session.append('assistant/message', { content: [{ type: 'text', text: `answer to ${text}` }] })
  session.append('step/end', { finishReason: 'stop' })
  session.append('turn/end', { reason: 'completed' })
}

/** One query on a connection of its own (to look at what the store wrote, behind its back). */
export async function sql<T extends pg.QueryResultRow>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query<T>(text, values)).rows
  } finally {
    await client.end()
  }
}
