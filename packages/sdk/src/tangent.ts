// The entry of @tangent/sdk: a data dir opened in this process as the CLI opens it, or a running
// Host over JSON-RPC. Either way every call is a docs/protocol.md method over one SessionApi
// (@tangent/runtime), so a program sees the same results, events and error codes from both.
import path from 'node:path'
import { TangentError } from '@tangent/core'
import { connectHostApi } from '@tangent/host'
import type {
  MethodParams,
  MethodResult,
  SessionBoardResult,
  SessionCreateParams,
  SessionListParams,
  SessionSummary,
} from '@tangent/protocol'
import type { SessionApi, SessionApiMethodName } from '@tangent/runtime'
import { openSessionApi, resolveHome } from 'tangent'
import { idOf, TangentSession } from './tangent-session.js'

export interface OpenOptions {
  /** The data dir: default TANGENT_HOME, else $XDG_DATA_HOME/tangent, else ~/.local/share/tangent. */
  home?: string
  /** Folder of sessions made without one, base of relative folder paths (default the process's). */
  cwd?: string
  /** Where sessions live: a `postgres://` URL; default TANGENT_STORE, else JSONL files in `home`. */
  store?: string
  /** Provider keys, TANGENT_MODEL, TANGENT_DEMO_DELAY_MS, TANGENT_SANDBOX, … (default process.env). */
  env?: Record<string, string | undefined>
  /** The runtime's warnings and its Host's log, one line each (default: written to stderr). */
  log?: (line: string) => void
}

export interface ConnectOptions {
  /** The Host's address as `tangent serve` prints it; its `?token=` is taken when `token` is not given. */
  url: string
  token?: string
}

export class Tangent {
  readonly #api: SessionApi
  readonly #close: () => Promise<void>

  private constructor(api: SessionApi, close: () => Promise<void>) {
    this.#api = api
    this.#close = close
  }

  /**
   * The data dir as a `tangent` command opens it (docs/architecture.md §9): through the Host that
   * serves it when one does, else its runtime in this process — served meanwhile to other
   * commands on a loopback port, as a command that writes does, until `close`.
   */
  static async open(options: OpenOptions = {}): Promise<Tangent> {
    const given = options.env ?? process.env
    const env = options.store !== undefined ? { ...given, TANGENT_STORE: options.store } : given
    const log = options.log
    const opened = await openSessionApi(
      {
        home: options.home !== undefined ? path.resolve(options.home) : resolveHome(env),
        env,
        cwd: path.resolve(options.cwd ?? process.cwd()),
        stderr: log ? linesTo(log) : process.stderr,
      },
      // A program lives long: when the Host it went through ends, its next call opens the data dir again.
      { reopen: true, ...(log ? { report: (line: string) => log(`tangent: ${line}`) } : {}) },
    )
    return new Tangent(opened.api, opened.close)
  }

  /** A running Host (`tangent serve`) over its WebSocket; `host-unreachable` when it cannot be reached. */
  static async connect(options: ConnectOptions): Promise<Tangent> {
    let url: URL
    try {
      url = new URL(options.url)
    } catch {
      throw new TangentError('invalid-params', `Not a Host address: ${JSON.stringify(options.url)}.`, {
        url: options.url,
      })
    }
    const token = options.token ?? url.searchParams.get('token')
    if (!token)
      throw new TangentError(
        'invalid-params',
        `No token for the Host at ${url.origin}: pass \`token\`, or the address \`tangent serve\` prints (with ?token=).`,
        { url: url.origin },
      )
    const api = await connectHostApi({ url: url.origin, token })
    return new Tangent(api, () => api.close())
  }

  /** `host` when calls go to a Host (`connect`, or `open` of a data dir a Host serves), `local` otherwise. */
  get kind(): 'host' | 'local' {
    return this.#api.kind
  }

  /** Any method of docs/protocol.md this SDK has no shorthand for, with its params and result types. */
  call<M extends SessionApiMethodName>(method: M, params: MethodParams<M>): Promise<MethodResult<M>> {
    return this.#api.call(method, params)
  }

  /** A new session (`cwd`, `model`, `title`, `workspaceId`; default folder: `cwd` of open, or the Host's). */
  async create(options: SessionCreateParams = {}): Promise<TangentSession> {
    const created = await this.#api.call('session.create', options)
    return new TangentSession(this.#api, created.id)
  }

  /** The session of a whole id or a unique prefix (4+ characters): `session-not-found`, `ambiguous-id`. */
  async session(idOrPrefix: string): Promise<TangentSession> {
    const { sessionId } = await this.#api.call('session.resolve', { id: idOrPrefix })
    return new TangentSession(this.#api, sessionId)
  }

  /** The sessions, most recently updated first (archived ones with `includeArchived`). */
  list(options: SessionListParams = {}): Promise<SessionSummary[]> {
    return this.#api.call('session.list', options)
  }

  /** The compare board of branches: files changed, check, turns and tokens of each (docs/architecture.md §13.3). */
  board(sessions: readonly (TangentSession | string)[]): Promise<SessionBoardResult> {
    return this.#api.call('session.board', { sessionIds: sessions.map(idOf) })
  }

  /** Ends the connection, or (in-process) waits for the turns it runs and lets the data dir go. */
  close(): Promise<void> {
    return this.#close()
  }
}

/** An output stream that hands `log` each line written to it. */
function linesTo(log: (line: string) => void): { write(chunk: string): boolean } {
  return {
    write(chunk) {
      for (const line of chunk.replace(/\n$/, '').split('\n')) log(line)
      return true
    },
  }
}
