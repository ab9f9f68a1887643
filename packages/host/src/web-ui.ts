// Serves the built web UI (`packages/web/dist`) as static files, confined to its
// directory; when it was not built, a plain page that says how to build it.
import fs from 'node:fs/promises'
import path from 'node:path'

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
}

const notBuiltPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Tangent</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto; line-height: 1.5">
<h1>Tangent Host is running</h1>
<p>The web UI has not been built. Run <code>npm run build</code> in the Tangent checkout, then reload this page.</p>
<p>The JSON-RPC API is available at <code>/rpc</code> (see docs/protocol.md).</p>
</body></html>
`

/** Answers a GET for `pathname` from `webRoot`; unknown paths without an extension get index.html (client routing). */
export async function serveWebUi(webRoot: string, pathname: string): Promise<Response> {
  const root = path.resolve(webRoot)
  let decoded: string
  try {
    decoded = decodeURIComponent(pathname)
  } catch {
    return new Response('Bad request', { status: 400 })
  }
  if (decoded.includes('\0')) return new Response('Bad request', { status: 400 })
  const relative = decoded === '/' || decoded === '' ? 'index.html' : decoded.replace(/^\/+/, '')
  const file = path.resolve(root, relative)
  if (file !== root && !file.startsWith(`${root}${path.sep}`))
    return new Response('Not found', { status: 404 })
  const served =
    (await readFileIfExists(file)) ??
    (path.extname(file) === '' ? await readFileIfExists(path.join(root, 'index.html')) : null)
  if (served === null) {
    if (relative === 'index.html' || path.extname(file) === '') return html(notBuiltPage)
    return new Response('Not found', { status: 404 })
  }
  const type = contentTypes[path.extname(served.file).toLowerCase()] ?? 'application/octet-stream'
  const immutable = served.file.includes(`${path.sep}assets${path.sep}`)
  return new Response(new Uint8Array(served.body), {
    headers: {
      'content-type': type,
      'x-content-type-options': 'nosniff',
      'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-store',
    },
  })
}

async function readFileIfExists(file: string): Promise<{ file: string; body: Buffer } | null> {
  try {
    const stat = await fs.stat(file)
    if (!stat.isFile()) return null
    return { file, body: await fs.readFile(file) }
  } catch (error) {
    if (
      (error as NodeJS.ErrnoException).code === 'ENOENT' ||
      (error as NodeJS.ErrnoException).code === 'ENOTDIR'
    )
      return null
    throw error
  }
}

function html(body: string): Response {
  return new Response(body, {
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    },
  })
}
