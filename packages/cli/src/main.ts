#!/usr/bin/env node
// The `tangent` executable: wires the process into the CLI and exits with its code.
import { resolveHome } from './home.js'
import { runCli } from './program.js'

const code = await runCli(process.argv.slice(2), {
  env: process.env,
  cwd: process.cwd(),
  home: resolveHome(process.env),
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
})
// Exit now: a provider's keep-alive socket must not hold a finished command open
// (stdout and stderr are synchronous for files, pipes and terminals on Linux).
process.exit(code)
