// Test support: a CliContext whose stdout and stderr are kept as strings, to run the CLI's
// commands inside a test process (program tests, the e2e harness's in-process runner).
import type { Readable } from 'node:stream'
import type { CliContext } from './context.js'

export function captureContext(options: {
  env: NodeJS.ProcessEnv
  cwd: string
  home: string
  stdin: Readable
}): { context: CliContext; stdout: () => string; stderr: () => string } {
  let out = ''
  let err = ''
  const context: CliContext = {
    ...options,
    stdout: {
      write: (chunk: string) => {
        out += chunk
        return true
      },
    },
    stderr: {
      write: (chunk: string) => {
        err += chunk
        return true
      },
    },
  }
  return { context, stdout: () => out, stderr: () => err }
}
