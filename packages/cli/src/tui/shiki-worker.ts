// The worker thread code-highlight.ts starts for `tangent tui`'s code colours: shiki loads, compiles
// its grammars (TypeScript's first line alone takes ~160 ms in one step) and tokenizes here, so the
// terminal UI's event loop never waits on it and keys echo as without colours. Messages: in,
// `{ id, language, code }`; out, `{ id, lines }`, the block's lines of tokens with their stand-in
// colours, or `lines: null` when it stays plain (a grammar that failed on it). The main thread makes
// every token's text safe for the terminal before it is drawn (code-highlight.ts's tokenLines).
import { parentPort, workerData } from 'node:worker_threads'
// Types only: code-highlight.ts is the terminal UI's (the main thread's), not this thread's.
import type { HighlightReply, HighlightRequest, terminalPalette } from './code-highlight.js'
import { createTokenizer } from './shiki-tokens.js'

const port = parentPort
if (port === null) throw new Error('shiki-worker.js runs as a worker thread only')
const tokenizer = createTokenizer((workerData as { palette: typeof terminalPalette }).palette)
// One block at a time, in the order asked (the main thread sends the block it wants first first).
let done: Promise<unknown> = Promise.resolve()
port.on('message', (request: HighlightRequest) => {
  done = done.then(async () => {
    let lines: HighlightReply['lines'] = null
    try {
      const ready = await tokenizer
      await ready.load(request.language)
      lines = ready.tokens(request.code, request.language)
    } catch {
      // A grammar that fails on this text: the block stays plain.
    }
    port.postMessage({ id: request.id, lines } satisfies HighlightReply)
  })
})
