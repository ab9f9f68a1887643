// The connection to the Host: one RPC client at a time, the first reads once it answers, and
// reconnecting with backoff (0.5 s, doubling to 10 s) whenever the socket drops. A socket the Host
// refuses looks like one it never answered, so the Host is asked over HTTP which it was.
import type { HostState } from './host-state.js'
import type { NoticesStore } from './notices-store.js'
import type { StoreState } from './store-state.js'
import type { HostInfo, RpcClient, SessionSummary, Workspace } from './wire.js'

/** What the Host answers first on every connection. */
export interface HostSnapshot {
  readonly info: HostInfo
  readonly workspaces: readonly Workspace[]
  readonly sessions: readonly SessionSummary[]
}

export interface ConnectionDeps {
  readonly state: StoreState
  readonly notices: NoticesStore
  readonly connect: () => RpcClient
  /** Asks the Host over HTTP whether it takes this page's token, when the socket will not stay open. */
  readonly checkToken: (() => Promise<'accepted' | 'refused' | 'unreachable'>) | undefined
  /** Registers the notification handlers on a new client, before its first call. */
  readonly listen: (client: RpcClient) => void
  /** The first reads came back: show them (`openPatch` says the connection is open). */
  readonly opened: (snapshot: HostSnapshot) => Promise<void>
}

export class ConnectionStore {
  readonly #deps: ConnectionDeps
  #client: RpcClient | null = null
  #retryDelay = 500
  #stopped = false

  constructor(deps: ConnectionDeps) {
    this.#deps = deps
  }

  /** Connects, loads everything, and reconnects (with backoff) whenever the socket drops. */
  async start(): Promise<void> {
    if (this.#stopped) return
    const { state, notices } = this.#deps
    state.set({ connection: 'connecting' })
    const client = this.#deps.connect()
    this.#client = client
    this.#deps.listen(client)
    client.onClose(() => {
      if (this.#client !== client) return
      // The closed client stays until the next one connects: its calls reject with
      // `connection-closed`, which the actions report like any other error.
      state.set({ connection: 'closed' })
      if (this.#stopped) return
      // A socket the Host refuses looks like one it never answered: ask it, so the page can say
      // which (retrying stays on: a Host restarted with this token again is found).
      void this.#deps.checkToken?.().then((answer) => {
        if (this.#client === client && state.get().connection === 'closed')
          state.set({ tokenRefused: answer === 'refused' })
      })
      setTimeout(() => void this.start(), this.#retryDelay)
      // The Host is on this machine and a refused connection costs nothing: a restarted Host is
      // back in the page within ~3 s (a cap of 10 s left a person looking at "offline" that long).
      this.#retryDelay = Math.min(this.#retryDelay * 2, 3_000)
    })
    try {
      const [info, workspaces, sessions] = await Promise.all([
        client.call('host.info', {}),
        client.call('workspace.list', {}),
        client.call('session.list', { includeArchived: true }),
      ])
      this.#retryDelay = 500
      await this.#deps.opened({ info, workspaces, sessions })
    } catch (error) {
      if (this.#client === client) notices.report(error, { sessionId: null })
    }
  }

  stop(): void {
    this.#stopped = true
    this.#client?.close()
  }

  /** The client of the current connection (a closed one until the next connects). */
  client(): RpcClient {
    if (!this.#client) throw new Error('HostStore.start() was not called.')
    return this.#client
  }

  /** The patch that says the connection is open, with what the Host said about itself. */
  openPatch(info: HostInfo): Partial<HostState> {
    return { connection: 'open', tokenRefused: false, info }
  }
}
