#!/usr/bin/env node
// The `tangent` executable: wires the process into the CLI and exits with its code once
// everything written to stdout and stderr has left the process.
import { readlinkSync } from 'node:fs'
import module from 'node:module'
import { resolveHome } from './home.js'
import { oldNodeProblem } from './node-version.js'
import { flushAndExit, onFirstRead, quietOnClosedPipe } from './process-output.js'

// Start-up is mostly loading modules (a few hundred): Node keeps their compiled code between runs
// in its compile cache (in the OS temp directory; NODE_DISABLE_COMPILE_CACHE=1 turns it off).
// Only code is cached there, never data; a cache that cannot be written is silently not used.
module.enableCompileCache?.()

// An empty `OPENAI_BASE_URL=` (or another provider's) means unset: the AI SDK's provider modules
// read them when imported and throw on an empty one, which would stop every command. So they are
// dropped before the CLI (and with it the providers) is imported.
for (const [key, value] of Object.entries(process.env)) {
  if (key.endsWith('_BASE_URL') && value !== undefined && value.trim() === '') delete process.env[key]
}

// A reader that went away (`tangent sessions | head -1`) ends the output quietly: no EPIPE
// stack trace; the command still finishes what it was doing (a turn is not cut in half).
// stderr is built on first use (most commands never write to it): the listener comes with it.
quietOnClosedPipe(process.stdout)
const stderrBuilt = onFirstRead('stderr', quietOnClosedPipe)

// A Node older than Tangent supports: said once, on stderr (stdout stays the command's, `--json`
// too), before anything that might fail on it; `tangent doctor` lists it among its problems instead.
const oldNode = oldNodeProblem(process.versions.node)
if (oldNode !== null && process.argv[2] !== 'doctor') process.stderr.write(`tangent: warning: ${oldNode}\n`)

const { runCli } = await import('./program.js')

const code = await runCli(process.argv.slice(2), {
  env: process.env,
  cwd: currentFolder(),
  home: resolveHome(process.env),
  ...(oldNode !== null ? { oldNode } : {}),
  stdout: process.stdout,
  get stderr() {
    return process.stderr
  },
  // Read on first use: Node builds a standard stream when it is first read (for a pipe, a socket
  // and the net module); only `chat`, `acp` and approvals at a terminal read stdin.
  get stdin() {
    return process.stdin
  },
})
// Exit explicitly, so a provider's keep-alive socket or any other handle cannot hold a
// finished command open — but only after stdout and stderr have drained: writes to a pipe
// are asynchronous, and exiting with output still queued cuts it (at 64 KB, the pipe's size).
await flushAndExit(code, stderrBuilt() ? [process.stdout, process.stderr] : [process.stdout])

/**
 * The folder the command runs in. When it was removed under the shell (a worktree fork's folder
 * deleted while a terminal sat in it) process.cwd() fails: its name is taken from the shell (PWD)
 * or, without one, from Linux's /proc/self/cwd (which names a removed folder "<path> (deleted)").
 * A read never needs the folder; anything that does reports it as gone (`not-a-directory`,
 * `cwd-not-found`), by name. docs/architecture.md §9.
 */
function currentFolder(): string {
  try {
    return process.cwd()
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    if (process.env.PWD) return process.env.PWD
    try {
      return readlinkSync('/proc/self/cwd').replace(/ \(deleted\)$/, '')
    } catch {
      // No name to be had (no shell, no /proc): nothing can say which folder, so nothing runs.
      process.stderr.write(
        'error[cwd-not-found]: The folder this runs in no longer exists (was it removed?): run tangent from an existing folder.\n',
      )
      process.exit(1)
    }
  }
}
