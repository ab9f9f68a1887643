// After `tsc -b`: bundle the CLI into its published entry, packages/cli/dist/main.js (the `bin`),
// and make it executable (docs/architecture.md §9). Start-up is mostly loading modules, a cost per
// file, so the command runs from a bundle of tsc's output (dist/bin.js and the @tangent packages it
// imports) rather than from a few hundred files. Code split: what the CLI imports lazily (the
// runtime, the Host, the agent, ACP, each command's module) stays in dist/chunks/, loaded when used.
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import path from 'node:path'
import { rolldown } from 'rolldown'

const cliDist = 'packages/cli/dist'
const entry = `${cliDist}/bin.js`
const bin = `${cliDist}/main.js`

// Bundled: our own packages and small pure-JS dependencies. Everything else stays EXTERNAL, loaded
// from node_modules at run time: zod (one instance per process: @tangent/core loads it through
// require), the AI SDK, pg, the MCP and ACP SDKs, the sandbox runtime, ws, and anything with native
// code or files of its own. A new dependency is external until it is listed here.
const bundledPackages = new Set([
  'commander',
  'picocolors',
  'tokenlens',
  'hono',
  '@hono/node-server',
  // `tangent tui` (issue 34): Ink, React and what they import, pure JS (Yoga's wasm is inlined as
  // base64), ~60 small modules that cost more to resolve one by one than to load as one chunk. They
  // stay in the chunk `tangent tui` loads; no other command imports it.
  ...[
    '@alcalzone/ansi-tokenize',
    'ansi-escapes',
    'ansi-regex',
    'ansi-styles',
    'auto-bind',
    'chalk',
    'cli-boxes',
    'cli-cursor',
    'cli-truncate',
    'code-excerpt',
    'color-convert',
    'color-name',
    'convert-to-spaces',
    'emoji-regex',
    'environment',
    'es-toolkit',
    'escape-string-regexp',
    'indent-string',
    'ink',
    'is-fullwidth-code-point',
    'is-in-ci',
    'mimic-fn',
    'onetime',
    'patch-console',
    'quick-lru',
    'react',
    'react-reconciler',
    'restore-cursor',
    'scheduler',
    'signal-exit',
    'slice-ansi',
    'stack-utils',
    'string-width',
    'strip-ansi',
    'tagged-tag',
    'terminal-size',
    'type-fest',
    'widest-line',
    'wrap-ansi',
    'yoga-layout',
  ],
])
const bundledScopes = ['@tangent/', '@tokenlens/']

function packageOf(id) {
  const parts = id.split('/')
  return id.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]
}

function isExternal(id, _importer, isResolved) {
  if (isResolved || id.startsWith('.') || id.startsWith('/') || id.startsWith('\0')) return false
  // A package's own subpath import (`#ansi-styles` in chalk): resolved inside the bundled package.
  if (id.startsWith('#')) return false
  if (id.startsWith('node:')) return !builtinsOnFirstCall.includes(id)
  const name = packageOf(id)
  if (bundledPackages.has(name)) return false
  return !bundledScopes.some((scope) => name.startsWith(scope))
}

// A builtin imported as an ES module gets a facade module built at start-up; process.getBuiltinModule
// hands over the same module object without one (0.97× main-thread CPU for `tangent show`,
// docs/benchmarks.md).
// The bundle's static imports of `node:` modules (one per line at the top of each chunk, as rolldown
// writes them) become such lookups. `process` is reached through globalThis, so a chunk may import
// `node:process` as `process`.
const builtinImport = /^import\s+([^;'"]*?)\s+from\s+"(node:[^"]+)";?$/gm

function bindingsOf(clause) {
  const lookups = []
  const named = /\{([^}]*)\}/.exec(clause)
  const rest = clause
    .replace(/\{[^}]*\}/, '')
    .replace(/,\s*$/, '')
    .trim()
  if (rest.startsWith('* as ')) lookups.push(rest.slice(5).trim())
  else if (rest !== '') lookups.push(rest.replace(/,$/, '').trim())
  if (named) {
    const names = named[1]
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== '')
      .map((part) => part.replace(/\s+as\s+/, ': '))
    lookups.push(`{ ${names.join(', ')} }`)
  }
  return lookups
}

const builtinsWithoutFacades = {
  name: 'builtins-without-facades',
  renderChunk(code) {
    const rewritten = code.replace(builtinImport, (_line, clause, specifier) =>
      bindingsOf(clause)
        .map((binding) => {
          return `const ${binding} = globalThis.process.getBuiltinModule(${JSON.stringify(specifier)});`
        })
        .join('\n'),
    )
    return rewritten === code ? null : { code: rewritten, map: null }
  },
}

// Builtins that cost a lot to load and that most commands never call: node:fs/promises (~3 ms;
// a read-only command calls none of it, the store reads synchronously) and node:child_process
// (with net, dgram, …, ~6 ms; commander binds it for executable subcommands, which Tangent has
// none of). Every module that imports one gets instead a stand-in whose functions load it on
// their first call, `new` and util.promisify's custom form included (a stand-in is not the
// builtin's own function or class: no module here compares them or tests `instanceof`).
// fs/promises' `constants` are node:fs's, which is loaded anyway. The stand-in's exports are the
// builtin's own names, read from it here, so one added in a later Node is passed through too,
// and one that is not a function fails the build rather than at run time.
const builtinsOnFirstCall = ['node:fs/promises', 'node:child_process']
const onFirstCallPrefix = '\0on-first-call:'
const promisifyCustom = Symbol.for('nodejs.util.promisify.custom')

async function onFirstCallModule(specifier) {
  const real = await import(specifier)
  const lookup = `globalThis.process.getBuiltinModule(${JSON.stringify(specifier)})`
  const lines = [`const load = () => ${lookup};`]
  const names = []
  for (const [name, value] of Object.entries(real)) {
    if (name === 'default') continue
    names.push(name)
    if (typeof value === 'function') {
      lines.push(
        `export function ${name}(...args) { return new.target ? new (load().${name})(...args) : load().${name}(...args); }`,
      )
      if (value[promisifyCustom])
        lines.push(
          `Object.defineProperty(${name}, Symbol.for('nodejs.util.promisify.custom'), { value: (...args) => load().${name}[Symbol.for('nodejs.util.promisify.custom')](...args) });`,
        )
    } else if (name === 'constants' && specifier === 'node:fs/promises')
      lines.push(`export const constants = globalThis.process.getBuiltinModule("node:fs").constants;`)
    else throw new Error(`postbuild: ${specifier} exports ${name} (${typeof value}), which has no stand-in`)
  }
  lines.push(`export default { ${names.join(', ')} };`)
  return lines.join('\n')
}

const builtinsOnFirstCallPlugin = {
  name: 'builtins-on-first-call',
  resolveId(id) {
    return builtinsOnFirstCall.includes(id) ? onFirstCallPrefix + id : null
  },
  load(id) {
    return id.startsWith(onFirstCallPrefix) ? onFirstCallModule(id.slice(onFirstCallPrefix.length)) : null
  },
}

// On a Node without process.getBuiltinModule (before 20.16 / 22.3) the lookups above would fail
// at main.js's first line with a TypeError: the entry first says which Node is needed, and how to
// get one (the same words as the CLI's own warning, packages/cli/src/node-version.ts).
const { currentNodeAdvice, minimumNode } = await import(`../${cliDist}/node-version.js`)
const tooOldNode = `if (typeof globalThis.process.getBuiltinModule !== "function") { globalThis.process.stderr.write("tangent: Node " + globalThis.process.version + ${JSON.stringify(` is too old to run Tangent, which needs Node >= ${minimumNode.major}.${minimumNode.minor}: ${currentNodeAdvice}.\n`)}); globalThis.process.exit(1); }`

const oldNodeGuard = {
  name: 'old-node-guard',
  renderChunk(code, chunk) {
    if (!chunk.isEntry) return null
    const hashbang = /^#!.*\n/.exec(code)?.[0] ?? ''
    return { code: `${hashbang}${tooOldNode}\n${code.slice(hashbang.length)}`, map: null }
  },
}

if (!existsSync(entry)) {
  console.error(`postbuild: ${entry} is missing: did tsc -b fail?`)
  process.exit(1)
}
// `--no-write`: bundle in memory only, to see whether it builds without a warning (a test does,
// while other tests run the CLI from dist/).
const write = !process.argv.includes('--no-write')
if (write) rmSync(`${cliDist}/chunks`, { recursive: true, force: true })
// A normal build prints no warning: each one names something to fix (an ineffective dynamic
// import, a missing export, …), so the build fails on it rather than scrolling it past.
const warnings = []
const bundle = await rolldown({
  input: {
    main: entry,
    // `tangent tui`'s code-colour worker thread (shiki loads and tokenizes there), an entry of its
    // own: code-highlight.ts starts it as `./shiki-worker.js` next to itself, and the terminal UI's
    // chunk is in chunks/ (checked after the write, below).
    'chunks/shiki-worker': `${cliDist}/tui/shiki-worker.js`,
  },
  platform: 'node',
  external: isExternal,
  // React's production build (the development one checks every render): only the terminal UI's
  // chunk reads NODE_ENV.
  transform: { define: { 'process.env.NODE_ENV': '"production"' } },
  plugins: [builtinsOnFirstCallPlugin, builtinsWithoutFacades, oldNodeGuard],
  // The time the plugins took is a report, not a fault: on a busy machine it would fail the build.
  checks: { bundlerTimings: false },
  onLog(level, log, handle) {
    if (level === 'warn') warnings.push(log)
    else handle(level, log)
  },
})
// The read-only commands a person runs most (`tangent show`, `tangent sessions`: their direct routes
// in program.ts) load their code as one chunk: everything those modules and the runtime import
// statically. Loading a module costs a file read, a compile-cache lookup and linking each, so
// one chunk instead of ~20 saves ~2.5% of `tangent show` (docs/benchmarks.md); other commands
// load it too (they use the runtime), and what is imported lazily stays in chunks of its own.
const readRoots = [
  `${cliDist}/commands/show.js`,
  `${cliDist}/commands/sessions.js`,
  'packages/runtime/dist/index.js',
].map((file) => path.resolve(file))
let readModules = null

function staticClosure(ctx) {
  const seen = new Set()
  const stack = [...readRoots]
  while (stack.length > 0) {
    const id = stack.pop()
    if (seen.has(id)) continue
    const info = ctx.getModuleInfo(id)
    if (info === null) throw new Error(`postbuild: ${id} is not in the bundle (a read root moved?)`)
    seen.add(id)
    for (const imported of info.importedIds)
      if (!ctx.getModuleInfo(imported)?.isExternal) stack.push(imported)
  }
  return seen
}

await bundle[write ? 'write' : 'generate']({
  codeSplitting: {
    groups: [
      {
        debugName: 'read',
        name: (id, ctx) => {
          readModules ??= staticClosure(ctx)
          return readModules.has(id) ? 'read' : null
        },
      },
    ],
  },
  dir: cliDist,
  format: 'esm',
  // Pure ASCII, without comments but the licences': Node decodes each module's source before V8
  // compiles it (from its compile cache too), and a file with one non-ASCII character is decoded
  // and kept as UTF-16, twice the bytes; the comments are read in the sources, not here (~2% of
  // `tangent show`, docs/benchmarks.md).
  charset: 'ascii',
  comments: { legal: true, annotation: false, jsdoc: false },
  entryFileNames: '[name].js',
  chunkFileNames: 'chunks/[name]-[hash].js',
})
await bundle.close()
if (warnings.length > 0) {
  for (const warning of warnings) console.error(`postbuild: ${warning.message}`)
  console.error(`postbuild: the CLI bundle built with ${warnings.length} warning(s) (above): fix their cause`)
  process.exit(1)
}
// The worker's entry must be where the chunk that starts it looks (new URL('./shiki-worker.js',
// import.meta.url)): a chunk moved elsewhere would leave every code block plain, silently.
if (write) {
  const chunks = readdirSync(`${cliDist}/chunks`)
  const starter = chunks.find((file) =>
    readFileSync(`${cliDist}/chunks/${file}`, 'utf8').includes('"./shiki-worker.js"'),
  )
  if (starter === undefined || !chunks.includes('shiki-worker.js')) {
    console.error(
      'postbuild: no chunk in chunks/ starts chunks/shiki-worker.js: where did code-highlight.ts go?',
    )
    process.exit(1)
  }
}
// tsc does not keep file modes: main.js runs as a script of its own too (the `tangent` bin,
// bin/tangent.js, imports it).
if (write) chmodSync(bin, 0o755)
