// The Host's HTTP surface as a Hono app: `GET /healthz`, `POST /rpc` (bearer token,
// one request or a batch, size-limited), and the web UI for every other GET. Every request
// must name this Host in `Host` and, when it has an `Origin`, come from the Host's own pages.
import { maxPromptMessageBytes } from '@tangent/protocol'
import { Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { bearerToken, foreignRequestReason, tokensEqual } from './auth.js'
import { healthProof, proofHeader } from './discovery.js'
import { rpcError } from './rpc-errors.js'
import { type RpcRouter, tooLargeError } from './rpc-router.js'
import { serveWebUi } from './web-ui.js'

export interface HttpAppOptions {
  token: string
  /** This start's id, written only into host.json: `/healthz` proves it knows it. */
  instanceId: string
  router: RpcRouter
  webRoot: string
  /**
   * The `Host` values that name this Host (`ownHosts`): read on every request, since the port
   * is known only once the server listens.
   */
  allowedHosts: () => ReadonlySet<string>
  report: (error: unknown) => void
}

export function createHttpApp(options: HttpAppOptions): Hono {
  const app = new Hono()

  // First, for every path: a page on a foreign name (DNS rebinding) or a foreign Origin gets
  // nothing, not even the UI that would hand it a token.
  app.use('*', async (c, next) => {
    const reason = foreignRequestReason(
      { host: c.req.header('host') ?? new URL(c.req.url).host, origin: c.req.header('origin') },
      options.allowedHosts(),
    )
    if (reason === null) return next()
    if (new URL(c.req.url).pathname === '/rpc') {
      return c.json({ jsonrpc: '2.0', id: null, error: rpcError('foreign-origin', reason) }, 403)
    }
    return c.text(reason, 403, { 'cache-control': 'no-store' })
  })

  // Open to anyone; with `?challenge=HEX` it also proves this Host wrote host.json (discovery.ts).
  app.get('/healthz', (c) => {
    const proof = healthProof(options.instanceId, c.req.query('challenge'))
    return c.text('ok', 200, proof ? { [proofHeader]: proof, 'cache-control': 'no-store' } : {})
  })

  app.post(
    '/rpc',
    async (c, next) => {
      if (!tokensEqual(options.token, bearerToken(c.req.header('authorization')))) {
        return c.json(
          {
            jsonrpc: '2.0',
            id: null,
            error: rpcError(
              'unauthorized',
              'Unauthorized: send Authorization: Bearer TOKEN (the token `tangent serve` printed).',
            ),
          },
          401,
        )
      }
      await next()
    },
    // Past the largest message of all (a prompt with images), not even read; the router bounds
    // the others by method.
    bodyLimit({
      maxSize: maxPromptMessageBytes,
      onError: (c) => c.json({ jsonrpc: '2.0', id: null, error: tooLargeError(maxPromptMessageBytes) }, 413),
    }),
    async (c) => {
      const text = await c.req.text()
      const answer = await options.router.handleText(text, { connection: null })
      if (answer === null) return c.body(null, 204)
      const tooLarge =
        !Array.isArray(answer) && 'error' in answer && answer.error.data?.code === 'payload-too-large'
      return c.json(answer, tooLarge ? 413 : 200)
    },
  )

  app.all('/rpc', (c) =>
    c.text('Use POST /rpc (JSON-RPC 2.0) or a WebSocket at /rpc?token=TOKEN.', 405, { allow: 'POST' }),
  )

  app.get('*', (c) => serveWebUi(options.webRoot, new URL(c.req.url).pathname))

  app.onError((error, c) => {
    options.report(error)
    return c.json(
      { jsonrpc: '2.0', id: null, error: rpcError('internal', 'Internal error; the Host keeps running.') },
      500,
    )
  })

  return app
}
