// A SessionApi for commands that live long (`tangent acp`, `tangent chat`): when they go through
// a Host that another command serves while it runs (docs/architecture.md §9), that Host ends with
// its command, and without this every later call would fail with `connection-closed` until the
// editor restarted the agent. Here the next call opens the data dir again — another Host if one
// serves it by then, else this process takes the lock and serves it itself — and goes on. The MCP
// servers this command attached to sessions ended with the old connection: they are attached again.
import { TangentError } from '@tangent/core'
import type { MethodParams } from '@tangent/protocol'
import type { FileReader, SessionApi, SessionListener } from '@tangent/runtime'

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

/** A subscription made through this api: made again, from the next seq it has not seen, on the next Host. */
interface Subscription {
  readonly sessionId: string
  readonly listener: SessionListener
  /** The seq after the last event it got (or the `fromSeq` it asked for). */
  nextSeq: number | undefined
  /** Its unsubscribe on the api it is subscribed on now. */
  unsubscribe: () => Promise<void>
}

interface FileSourceAttachment {
  readonly sessionId: string
  readonly read: FileReader
  /** Its detach on the api it is attached to now. */
  detach: () => Promise<void>
}

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
  /** Per session, the MCP servers attached through this api (in memory, like the Host holds them). */
  const attached = new Map<string, MethodParams<'session.attachMcpServers'>>()
  /** File sources attached through this api: attached again on the next one after a failover. */
  const fileSources = new Set<FileSourceAttachment>()
  const subscriptions = new Set<Subscription>()
  const changes = new Set<Parameters<SessionApi['onSessionsChanged']>[0]>()
  let offActivity = current.api.onSharedActivity(share)
  let offChanges = current.api.onSessionsChanged(tell)

  function share(event: Parameters<Parameters<SessionApi['onSharedActivity']>[0]>[0]): void {
    for (const listener of activity) listener(event)
  }

  function tell(change: Parameters<Parameters<SessionApi['onSessionsChanged']>[0]>[0]): void {
    for (const listener of changes) listener(change)
  }

  /** The api after `failed` (one replacement however many calls saw it close). */
  function replace(failed: OpenedApi): Promise<OpenedApi> {
    if (current !== failed) return Promise.resolve(current)
    replacing ??= (async () => {
      try {
        offActivity()
        offChanges()
        await failed.close().catch(() => undefined)
        if (closed) throw new TangentError('connection-closed', 'This command is closing.', { sent: false })
        const next = await reopen()
        current = next
        offActivity = next.api.onSharedActivity(share)
        offChanges = next.api.onSessionsChanged(tell)
        await reattach(next.api)
        return next
      } finally {
        replacing = null
      }
    })()
    return replacing
  }

  /**
   * What went with the connection that closed — file sources and attached MCP servers — is attached
   * to `api` again. A session deleted meanwhile has nothing to attach to; other failures reach the caller.
   */
  async function reattach(api: SessionApi): Promise<void> {
    // A follower (`tangent tui`'s open session) gets what it missed, no gap, no duplicate.
    for (const subscription of subscriptions) {
      try {
        subscription.unsubscribe = await api.subscribe(
          subscription.sessionId,
          { fromSeq: subscription.nextSeq },
          subscription.listener,
        )
      } catch (error) {
        if (!TangentError.hasCode(error, 'session-not-found')) throw error
        subscriptions.delete(subscription)
      }
    }
    for (const source of fileSources) {
      try {
        source.detach = await api.attachFileSource(source.sessionId, source.read)
      } catch (error) {
        if (!TangentError.hasCode(error, 'session-not-found')) throw error
        fileSources.delete(source)
      }
    }
    for (const [sessionId, params] of attached) {
      try {
        await api.call('session.attachMcpServers', params)
      } catch (error) {
        if (!TangentError.hasCode(error, 'session-not-found')) throw error
        attached.delete(sessionId)
      }
    }
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
    async call(method, params) {
      const result = await through((api) => api.call(method, params), method)
      if (method === 'session.attachMcpServers') {
        const attach = params as MethodParams<'session.attachMcpServers'>
        if (attach.servers.length === 0) attached.delete(attach.sessionId)
        else attached.set(attach.sessionId, attach)
      }
      return result
    },
    async subscribe(sessionId: string, options: { fromSeq?: number | undefined }, listener: SessionListener) {
      const subscription: Subscription = {
        sessionId,
        nextSeq: options.fromSeq,
        unsubscribe: async () => {},
        listener: {
          onEvent: (event) => {
            subscription.nextSeq = event.seq + 1
            listener.onEvent(event)
          },
          onDelta: (delta) => listener.onDelta?.(delta),
        },
      }
      subscription.unsubscribe = await through(
        (api) => api.subscribe(sessionId, options, subscription.listener),
        'session.subscribe',
      )
      subscriptions.add(subscription)
      return async () => {
        if (!subscriptions.delete(subscription)) return
        await subscription.unsubscribe()
      }
    },
    async attachFileSource(sessionId, read) {
      const source: FileSourceAttachment = { sessionId, read, detach: async () => {} }
      source.detach = await through(
        (api) => api.attachFileSource(sessionId, read),
        'session.attachFileSource',
      )
      fileSources.add(source)
      return async () => {
        if (!fileSources.delete(source)) return
        await source.detach()
      }
    },
    onSharedActivity(listener) {
      activity.add(listener)
      return () => {
        activity.delete(listener)
      }
    },
    onSessionsChanged(listener) {
      changes.add(listener)
      return () => {
        changes.delete(listener)
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
