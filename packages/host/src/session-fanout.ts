// A session's events and deltas to the connections subscribed to it (docs/protocol.md
// `session.subscribe`), built for many subscribers and slow ones:
// - one runtime subscription per session (a channel), not one per connection, and each
//   notification serialised once for all its subscribers;
// - what a session sends is held ~16 ms: its deltas in that window become one notification
//   per run of a kind (text concatenated; released before the next event, never after it),
//   and its events go out together, in one write per socket;
// - the sending runs in slices of a few ms with a yield between them, so a turn that appends
//   thousands of events does not hold the event loop (other requests, /healthz) meanwhile;
// - each connection's send queue is bounded (ws `bufferedAmount`): over `deltaBoundBytes` it
//   gets no deltas (they are not part of the log), over `eventBoundBytes` no more events are
//   queued for it either. Events are never lost: once its queue has drained, the Host sends
//   the events it missed from the log, then it is live again. The same catch-up, paced the
//   same way, serves `fromSeq` on subscribe.
import { TangentError } from '@tangent/core'
import type { DeltaKind, SessionEvent } from '@tangent/protocol'
import type { Connection, Unsubscribe } from './connections.js'
import { encodeNotification } from './outgoing.js'

/** What the fan-out needs of the runtime (Runtime has both). */
export interface FanoutSource {
  subscribe(
    sessionId: string,
    options: { fromSeq?: number | undefined },
    listener: {
      onEvent(event: SessionEvent): void
      onDelta?(delta: { kind: DeltaKind; text: string; toolCallId?: string }): void
    },
  ): Promise<() => void>
  getSession(params: { sessionId: string; fromSeq?: number }): Promise<{ events: SessionEvent[] }>
}

export interface FanoutOptions {
  /** A connection with more than this queued gets no deltas. */
  deltaBoundBytes?: number
  /** A connection with more than this queued gets no events until it drained (then catches up). */
  eventBoundBytes?: number
  /** Sending stops after this long and continues after a yield to the event loop. */
  sliceMs?: number
  /** How often a connection over the bound is looked at again. */
  drainPollMs?: number
  /**
   * What a session sends is held this long: its deltas become one notification per run of a
   * kind, and its events go out together, in one write per socket.
   */
  windowMs?: number
}

const defaults: Required<FanoutOptions> = {
  deltaBoundBytes: 512 * 1024,
  eventBoundBytes: 4 * 1024 * 1024,
  sliceMs: 8,
  drainPollMs: 10,
  windowMs: 16,
}

/** Sends (notifications × sockets) between two looks at the clock. */
const sendsPerBatch = 4096

/** Coalesced deltas are sent early once they hold this many characters. */
const maxHeldDeltaChars = 64 * 1024

interface Member {
  readonly connection: Connection
  /** The next seq this connection must get. */
  nextSeq: number
  /** The id of the last queued notification already sent to it (flushTo sends ahead of the drain). */
  sentUpTo: number
  /** Receives events as they are appended (false while catching up from the log). */
  live: boolean
  closed: boolean
}

/** One queued notification: an event (with its seq) or coalesced deltas (seq null). */
interface Outgoing {
  /** Increasing per channel: what a member was already sent is skipped by the drain. */
  readonly id: number
  readonly seq: number | null
  readonly event?: SessionEvent
  message?: Buffer
}

class Channel {
  readonly members = new Set<Member>()
  /** The seq of the last event appended to the session (-1: none). */
  lastSeq = -1
  closed = false
  unsubscribe: () => void = () => {}
  queue: Outgoing[] = []
  queueHead = 0
  draining = false
  heldDeltas: { kind: DeltaKind; text: string; toolCallId?: string | undefined }[] = []
  heldChars = 0
  nextId = 0

  constructor(readonly sessionId: string) {}
}

export class SessionFanout {
  readonly #source: FanoutSource
  readonly #report: (error: unknown) => void
  readonly #options: Required<FanoutOptions>
  /** Per session: its channel, while it is being opened and while it has subscribers. */
  readonly #channels = new Map<string, { opening: Promise<Channel>; channel?: Channel }>()

  constructor(source: FanoutSource, report: (error: unknown) => void, options: FanoutOptions = {}) {
    this.#source = source
    this.#report = report
    this.#options = { ...defaults, ...options }
  }

  /**
   * Subscribes `connection` to the session: with `fromSeq`, the events from there first (read
   * from the log, paced), then every later one — no gap, no duplicate — and the live deltas.
   * Rejects like the runtime (e.g. `session-not-found`).
   */
  async join(connection: Connection, sessionId: string, fromSeq?: number): Promise<Unsubscribe> {
    let channel = await this.#channel(sessionId)
    // A channel whose last member left while this call waited is gone: open a new one.
    while (channel.closed) channel = await this.#channel(sessionId)
    // Synchronous from here: lastSeq is the end of the log now.
    const length = channel.lastSeq + 1
    if (fromSeq !== undefined && fromSeq > length) {
      if (channel.members.size === 0) this.#close(channel)
      // As Runtime.subscribe answers it.
      throw new TangentError(
        'invalid-params',
        `fromSeq ${fromSeq} is past the end of session ${sessionId} (${length} events): subscribe from at most its length.`,
        { issues: [{ path: ['fromSeq'], message: 'past the end of the session' }], sessionId },
      )
    }
    const member: Member = {
      connection,
      nextSeq: fromSeq ?? length,
      sentUpTo: channel.nextId - 1,
      live: false,
      closed: false,
    }
    channel.members.add(member)
    if (member.nextSeq > channel.lastSeq) member.live = true
    else void this.#catchUp(channel, member)
    return () => {
      if (member.closed) return
      member.closed = true
      channel.members.delete(member)
      if (channel.members.size === 0) this.#close(channel)
    }
  }

  /**
   * Sends `connection`, now, everything queued for it on every session it follows: the Host
   * calls this before it answers a request on that connection, so a request's events (a
   * prompt's turn, a rename's title) always reach the client before its answer.
   */
  flushTo(connection: Connection): void {
    for (const { channel } of this.#channels.values()) {
      if (!channel || channel.closed) continue
      for (const member of channel.members) {
        if (member.connection !== connection || !member.live || member.closed) continue
        this.#releaseDeltas(channel)
        const pending = channel.queue.slice(channel.queueHead)
        if (pending.length === 0) continue
        this.#encode(channel, pending)
        if (connection.batch) connection.batch(() => this.#deliver(channel, member, pending))
        else this.#deliver(channel, member, pending)
        this.#scheduleDrain(channel)
      }
    }
  }

  /** Sessions with a channel now (for tests). */
  get channels(): number {
    return this.#channels.size
  }

  #channel(sessionId: string): Promise<Channel> {
    const known = this.#channels.get(sessionId)
    if (known) return known.opening
    const entry: { opening: Promise<Channel>; channel?: Channel } = { opening: this.#open(sessionId) }
    this.#channels.set(sessionId, entry)
    entry.opening.then(
      (channel) => {
        entry.channel = channel
      },
      () => {
        if (this.#channels.get(sessionId) === entry) this.#channels.delete(sessionId)
      },
    )
    return entry.opening
  }

  async #open(sessionId: string): Promise<Channel> {
    const channel = new Channel(sessionId)
    // From seq 0 only to learn where the log ends: with no member yet, nothing is queued.
    channel.unsubscribe = await this.#source.subscribe(
      sessionId,
      { fromSeq: 0 },
      {
        onEvent: (event) => this.#onEvent(channel, event),
        onDelta: (delta) => this.#onDelta(channel, delta.kind, delta.text, delta.toolCallId),
      },
    )
    return channel
  }

  #close(channel: Channel): void {
    channel.closed = true
    channel.unsubscribe()
    channel.queue = []
    channel.queueHead = 0
    channel.heldDeltas = []
    if (this.#channels.get(channel.sessionId)?.channel === channel) this.#channels.delete(channel.sessionId)
  }

  #onEvent(channel: Channel, event: SessionEvent): void {
    channel.lastSeq = Math.max(channel.lastSeq, event.seq)
    if (channel.members.size === 0) return
    // Deltas held so far belong before this event (e.g. a step's text before its message).
    this.#releaseDeltas(channel)
    channel.queue.push({ id: channel.nextId++, seq: event.seq, event })
    this.#scheduleDrain(channel)
  }

  #onDelta(channel: Channel, kind: DeltaKind, text: string, toolCallId: string | undefined): void {
    if (channel.members.size === 0 || text === '') return
    const last = channel.heldDeltas.at(-1)
    // A run of one kind (and one call) is one notification; a call's start is never merged.
    if (last?.kind === kind && last.toolCallId === toolCallId && kind !== 'tool-start') last.text += text
    else channel.heldDeltas.push({ kind, text, ...(toolCallId !== undefined ? { toolCallId } : {}) })
    channel.heldChars += text.length
    if (channel.heldChars >= maxHeldDeltaChars) this.#releaseDeltas(channel)
    this.#scheduleDrain(channel)
  }

  /** Moves the held deltas to the queue, one notification per run of a kind. */
  #releaseDeltas(channel: Channel): void {
    for (const { kind, text, toolCallId } of channel.heldDeltas) {
      const params = {
        sessionId: channel.sessionId,
        kind,
        text,
        ...(toolCallId !== undefined ? { toolCallId } : {}),
      }
      channel.queue.push({
        id: channel.nextId++,
        seq: null,
        message: encodeNotification('session.delta', params),
      })
    }
    channel.heldDeltas = []
    channel.heldChars = 0
  }

  #scheduleDrain(channel: Channel, delayMs = this.#options.windowMs): void {
    if (channel.draining || channel.closed) return
    channel.draining = true
    if (delayMs > 0) setTimeout(() => this.#drain(channel), delayMs)
    else setImmediate(() => this.#drain(channel))
  }

  /**
   * Sends queued notifications to the live members, socket by socket (one write each), in
   * batches of at most ~`sendsPerBatch` sends; after `sliceMs` it yields to the event loop.
   */
  #drain(channel: Channel): void {
    channel.draining = false
    if (channel.closed) return
    this.#releaseDeltas(channel)
    const started = performance.now()
    while (channel.queueHead < channel.queue.length) {
      const live = [...channel.members].filter((member) => member.live)
      const count = Math.max(1, Math.floor(sendsPerBatch / Math.max(1, live.length)))
      const batch = channel.queue.slice(channel.queueHead, channel.queueHead + count)
      channel.queueHead += batch.length
      this.#encode(channel, batch)
      for (const member of live) {
        if (member.connection.batch) member.connection.batch(() => this.#deliver(channel, member, batch))
        else this.#deliver(channel, member, batch)
      }
      if (performance.now() - started >= this.#options.sliceMs) break
    }
    if (channel.queueHead >= channel.queue.length) {
      channel.queue = []
      channel.queueHead = 0
    } else {
      channel.queue = channel.queue.slice(channel.queueHead)
      channel.queueHead = 0
      this.#scheduleDrain(channel, 0)
    }
  }

  /** Serialises each event notification once, for every member. */
  #encode(channel: Channel, entries: readonly Outgoing[]): void {
    for (const entry of entries) {
      entry.message ??= encodeNotification('session.event', {
        sessionId: channel.sessionId,
        event: entry.event!,
      })
    }
  }

  #deliver(channel: Channel, member: Member, batch: readonly Outgoing[]): void {
    const { deltaBoundBytes, eventBoundBytes } = this.#options
    for (const entry of batch) {
      if (!member.live || member.closed) return
      if (entry.id <= member.sentUpTo) continue // flushTo sent it ahead of the drain
      member.sentUpTo = entry.id
      const queued = member.connection.bufferedAmount
      if (entry.seq === null) {
        if (queued <= deltaBoundBytes) member.connection.send(entry.message!)
        continue
      }
      if (entry.seq < member.nextSeq) continue // it had this one from the log
      if (entry.seq > member.nextSeq || queued > eventBoundBytes) {
        // Too slow to follow (or a seq it missed): it gets the rest from the log once drained.
        member.live = false
        void this.#catchUp(channel, member)
        return
      }
      member.connection.send(entry.message!)
      member.nextSeq = entry.seq + 1
    }
  }

  /**
   * Sends a member the events from its nextSeq to the end of the log, read from the log, while
   * its queue has room (waiting for it to drain when not), then makes it live again.
   */
  async #catchUp(channel: Channel, member: Member): Promise<void> {
    const { eventBoundBytes, sliceMs, drainPollMs } = this.#options
    try {
      for (;;) {
        while (!member.closed && member.connection.bufferedAmount > eventBoundBytes / 2) {
          await new Promise((resolve) => setTimeout(resolve, drainPollMs))
        }
        if (member.closed || channel.closed) return
        // Synchronous from the check to `live`: later events reach it through the queue.
        if (member.nextSeq > channel.lastSeq) {
          member.live = true
          return
        }
        const { events } = await this.#source.getSession({
          sessionId: channel.sessionId,
          fromSeq: member.nextSeq,
        })
        let started = performance.now()
        const from = member.nextSeq
        for (const event of events) {
          if (member.closed || channel.closed) return
          if (event.seq !== member.nextSeq) continue
          if (member.connection.bufferedAmount > eventBoundBytes) break
          member.connection.send(encodeNotification('session.event', { sessionId: channel.sessionId, event }))
          member.nextSeq = event.seq + 1
          if (performance.now() - started >= sliceMs) {
            await new Promise((resolve) => setImmediate(resolve))
            started = performance.now()
          }
        }
        if (member.nextSeq === from && member.connection.bufferedAmount <= eventBoundBytes) {
          // The log does not hold the next seq (it cannot: seqs are dense): do not spin.
          this.#report(new Error(`Session ${channel.sessionId} has no event ${from} to send a subscriber.`))
          member.nextSeq = channel.lastSeq + 1
          member.live = true
          return
        }
      }
    } catch (error) {
      // A session deleted meanwhile ends its subscriptions anyway.
      if (member.closed || channel.closed || TangentError.hasCode(error, 'session-not-found')) return
      this.#report(error)
    }
  }
}
