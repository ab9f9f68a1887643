// After `tsc -b`: bundle the CLI into its published entry, packages/cli/dist/main.js (the `bin`),
// and make it executable (docs/architecture.md §9). Start-up is mostly loading modules, a cost per
// file, so the command runs from a bundle of tsc's output (dist/bin.js and the @tangent packages it
// imports) rather than from a few hundred files. Code split: what the CLI imports lazily (the
// runtime, the Host, the agent, ACP, each command's module) stays in dist/chunks/, loaded when used.
import { chmodSync, existsSync, rmSync } from 'node:fs'
import path from 'node:path'
import { rolldown } from 'rolldown'

const cliDist = 'packages/cli/dist'
const entry = `${cliDist}/bin.js`
const bin = `${cliDist}/main.js`

// Bundled: our own packages and small pure-JS dependencies. Everything else stays EXTERNAL, loaded
// from node_modules at run time: zod (one instance per process: @tangent/core loads it through
// require), the AI SDK, pg, the MCP and ACP SDKs, the sandbox runtime, ws, and anything with native
// code or files of its own. A new dependency is external until it is listed here.
const bundledPackages = new Set(['commander', 'picocolors', 'tokenlens', 'hono', '@hono/node-server'])
const bundledScopes = ['@tangent/', '@tokenlens/']

function packageOf(id) {
  const parts = id.split('/')
  return id.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]
}

function isExternal(id, _importer, isResolved) {
  if (isResolved || id.startsWith('.') || id.startsWith('/') || id.startsWith('\0')) return false
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

// Builtins that cost a lot to load and that a chunk may bind without using on most paths:
// commander binds `node:child_process` for its executable subcommands, which Tangent has none of,
// and loading it (with net, dgram, …) is ~6 ms of every command. A default or namespace binding
// of one that the chunk uses only as `name.member` gets the module on its first member read.
const builtinsOnFirstUse = new Set(['node:child_process'])

function onlyMemberReads(code, name) {
  const uses = code.match(new RegExp(`(?<![\\w$.])${name.replace(/\$/g, '\\$')}(?![\\w$])(.?)`, 'g')) ?? []
  // The binding itself (`const name = …`) and then member reads only.
  return uses.filter((use) => !use.endsWith('.')).length === 1
}

const builtinsWithoutFacades = {
  name: 'builtins-without-facades',
  renderChunk(code) {
    const rewritten = code.replace(builtinImport, (_line, clause, specifier) =>
      bindingsOf(clause)
        .map((binding) => {
          const lookup = `globalThis.process.getBuiltinModule(${JSON.stringify(specifier)})`
          if (builtinsOnFirstUse.has(specifier) && !binding.startsWith('{') && onlyMemberReads(code, binding))
            return `const ${binding} = new Proxy({}, { get: (_target, key) => ${lookup}[key] });`
          return `const ${binding} = ${lookup};`
        })
        .join('\n'),
    )
    return rewritten === code ? null : { code: rewritten, map: null }
  },
}

// node:fs/promises costs ~3 ms to load, and a read-only command (`tangent show`) calls none of it:
// the store reads synchronously. Every module that imports it gets instead a stand-in whose
// functions load it on their first call (its `constants` are node:fs's, which is loaded anyway).
// The stand-in's exports are the builtin's own names, read from it here, so one added in a later
// Node is passed through too, and a name it lacks fails the build rather than at run time.
const builtinsOnFirstCall = ['node:fs/promises']
const onFirstCallPrefix = '\0on-first-call:'

async function onFirstCallModule(specifier) {
  const real = await import(specifier)
  const lookup = `globalThis.process.getBuiltinModule(${JSON.stringify(specifier)})`
  const lines = [`const load = () => ${lookup};`]
  const names = []
  for (const [name, value] of Object.entries(real)) {
    if (name === 'default') continue
    names.push(name)
    if (typeof value === 'function')
      lines.push(`export function ${name}(...args) { return load().${name}(...args); }`)
    else if (name === 'constants')
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

if (!existsSync(entry)) {
  console.error(`postbuild: ${entry} is missing: did tsc -b fail?`)
  process.exit(1)
}
rmSync(`${cliDist}/chunks`, { recursive: true, force: true })
const bundle = await rolldown({
  input: { main: entry },
  platform: 'node',
  external: isExternal,
  plugins: [builtinsOnFirstCallPlugin, builtinsWithoutFacades],
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

await bundle.write({
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
// tsc does not keep file modes: main.js runs as a script of its own too (the `tangent` bin,
// bin/tangent.js, imports it).
chmodSync(bin, 0o755)
