// A SessionApi for commands that live long (`tangent acp`, `tangent chat`): when they go through
// a Host that another command serves while it runs (docs/architecture.md §9), that Host ends with
// its command, and without this every later call would fail with `connection-closed` until the
// editor restarted the agent. Here the next call opens the data dir again — another Host if one
// serves it by then, else this process takes the lock and serves it itself — and goes on.
import { TangentError } from '@tangent/core'
import type { SessionApi, SessionListener } from '@tangent/runtime'

/** Calls that only read: one on its way when its Host closed is made again on the next. */
const reads: ReadonlySet<string> = new Set([
  'host.info',
  'workspace.list',
  'workspace.browse',
  'session.list',
  'session.get',
  'session.resolve',
  'session.compare',
  'session.board',
  'session.fileAcross',
  'snapshot.list',
])

/** An open way to the data dir, as openBackend makes one. */
export interface OpenedApi {
  readonly api: SessionApi
  /** Ends it (for a served runtime: waits for the turns it served, then lets the lock go). */
  readonly close: () => Promise<void>
  readonly hostPid?: number | undefined
}

export interface FailoverApi extends SessionApi {
  /** The pid of the Host calls go through now (undefined when this process holds the runtime). */
  readonly hostPid: number | undefined
}

/**
 * `first` is used until its Host closes; then `reopen` makes the next one. A call the closed Host
 * never got, or a read, is made again on the new one; any other call on its way when it closed fails with
 * `connection-closed` and a message saying it may or may not have happened (it is not repeated:
 * a prompt must not run twice), and the next call goes to the new one.
 */
export function failoverApi(first: OpenedApi, reopen: () => Promise<OpenedApi>): FailoverApi {
  let current = first
  let replacing: Promise<OpenedApi> | null = null
  let closed = false
  const activity = new Set<Parameters<SessionApi['onSharedActivity']>[0]>()
  let offActivity = current.api.onSharedActivity(share)

  function share(event: Parameters<Parameters<SessionApi['onSharedActivity']>[0]>[0]): void {
    for (const listener of activity) listener(event)
  }

  /** The api after `failed` (one replacement however many calls saw it close). */
  function replace(failed: OpenedApi): Promise<OpenedApi> {
    if (current !== failed) return Promise.resolve(current)
    replacing ??= (async () => {
      try {
        offActivity()
        await failed.close().catch(() => undefined)
        if (closed) throw new TangentError('connection-closed', 'This command is closing.', { sent: false })
        const next = await reopen()
        current = next
        offActivity = next.api.onSharedActivity(share)
        return next
      } finally {
        replacing = null
      }
    })()
    return replacing
  }

  async function through<T>(work: (api: SessionApi) => Promise<T>, method: string): Promise<T> {
    const used = replacing ? await replacing : current
    try {
      return await work(used.api)
    } catch (error) {
      if (used.api.kind !== 'host' || !TangentError.hasCode(error, 'connection-closed') || closed) throw error
      const next = await replace(used)
      if (error.data.sent === false || reads.has(method)) return work(next.api)
      const via = used.hostPid === undefined ? 'the Host' : `the Host (process ${used.hostPid})`
      throw new TangentError(
        'connection-closed',
        `${via} closed while ${method} was on its way: it may or may not have happened. Tangent has reconnected; look, then try again.`,
        { ...error.data, method },
        { cause: error },
      )
    }
  }

  return {
    get kind() {
      return current.api.kind
    },
    get hostPid() {
      return current.hostPid
    },
    call(method, params) {
      return through((api) => api.call(method, params), method)
    },
    subscribe(sessionId: string, options: { fromSeq?: number | undefined }, listener: SessionListener) {
      return through((api) => api.subscribe(sessionId, options, listener), 'session.subscribe')
    },
    onSharedActivity(listener) {
      activity.add(listener)
      return () => {
        activity.delete(listener)
      }
    },
    async close() {
      closed = true
      await replacing?.catch(() => undefined)
      offActivity()
      await current.close()
    },
  }
}
