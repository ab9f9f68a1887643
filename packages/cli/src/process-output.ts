// How the process's output ends: through a pipe, writes are queued in the process and leave
// as the reader takes them, so exiting must wait until they have; a reader that closed its
// end (EPIPE) is not an error worth a stack trace.

/** What this module needs of process.stdout / process.stderr. */
export interface ProcessOutput {
  write(chunk: string, callback: (error?: Error | null) => void): boolean
  on(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown
  readonly writableLength: number
  readonly destroyed: boolean
}

const closedPipeCodes = new Set(['EPIPE', 'ERR_STREAM_DESTROYED', 'ECONNRESET'])

/**
 * Output to a reader that went away is dropped without a word (later writes are no-ops);
 * any other write error is reported once on stderr.
 */
export function quietOnClosedPipe(stream: ProcessOutput & NodeJS.EventEmitter): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (closedPipeCodes.has(error.code ?? '')) return
    if (stream !== process.stderr)
      process.stderr.write(`tangent: cannot write the output: ${error.message}\n`)
  })
}

/**
 * Runs `setup` on `process[name]` when it is first read, and returns a function that tells
 * whether it has been. Node builds a standard stream on its first read (for a pipe, a socket and
 * the net module), so a command that never writes to stderr does not pay for it; anything that
 * reads it, through the CLI's context or not, gets it with `setup` done.
 */
export function onFirstRead(
  name: 'stdout' | 'stderr',
  setup: (stream: NodeJS.WriteStream) => void,
): () => boolean {
  const descriptor = Object.getOwnPropertyDescriptor(process, name)
  const build = descriptor?.get
  if (descriptor === undefined || build === undefined || descriptor.configurable !== true) {
    setup(process[name])
    return () => true
  }
  let built = false
  Object.defineProperty(process, name, {
    configurable: true,
    enumerable: descriptor.enumerable ?? true,
    get() {
      // Node's own getter from now on; it returns the stream it built, every time.
      Object.defineProperty(process, name, descriptor)
      const stream = build.call(process) as NodeJS.WriteStream
      built = true
      setup(stream)
      return stream
    },
  })
  return () => built
}

/** Resolves once everything written to `stream` so far has left the process (or cannot any more). */
export function drained(stream: ProcessOutput): Promise<void> {
  if (stream.destroyed) return Promise.resolve()
  return new Promise((resolve) => {
    // Writes complete in order: the callback of an empty write runs after every earlier one.
    try {
      stream.write('', () => resolve())
    } catch {
      resolve()
    }
  })
}

/** Waits for the streams to drain, then exits with `code`. */
export async function flushAndExit(code: number, streams: readonly ProcessOutput[]): Promise<never> {
  await Promise.all(streams.map(drained))
  process.exit(code)
}
