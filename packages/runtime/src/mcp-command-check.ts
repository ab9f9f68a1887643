// Why a stdio MCP server could not start, found without starting it (docs/architecture.md §14.3):
// `tangent doctor` names a command that is not on PATH or not executable, or a missing `cwd`,
// instead of listing the server as if it would run.
import { accessSync, constants, statSync } from 'node:fs'
import path from 'node:path'

/**
 * Null when `command` resolves as spawn would resolve it (a path with a `/` from the server's
 * directory, else the first executable file on `PATH`); else what is wrong and what to do.
 */
export function stdioCommandProblem(options: {
  command: string
  cwd: string
  /** The PATH the server is started with (its own `env.PATH`, else Tangent's). */
  searchPath: string | undefined
}): string | null {
  const { command, cwd } = options
  if (!isDirectory(cwd)) return `its folder ${cwd} does not exist: fix "cwd" or create it`
  if (command.includes('/')) {
    const file = path.resolve(cwd, command)
    return isExecutableFile(file)
      ? null
      : `command ${file} is not an executable file: fix "command" or install it`
  }
  for (const dir of (options.searchPath ?? '').split(path.delimiter)) {
    if (isExecutableFile(path.resolve(cwd, dir, command))) return null
  }
  return `command "${command}" is not found on PATH: install it, or give its full path in "command"`
}

function isDirectory(dir: string): boolean {
  return statSync(dir, { throwIfNoEntry: false })?.isDirectory() === true
}

function isExecutableFile(file: string): boolean {
  if (statSync(file, { throwIfNoEntry: false })?.isFile() !== true) return false
  try {
    accessSync(file, constants.X_OK)
    return true
  } catch {
    // EACCES: there, but this user may not run it.
    return false
  }
}
