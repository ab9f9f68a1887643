// The program loads only the command a command line names (docs/architecture.md §9): the table
// that routes it must match what each module registers, and help, suggestions and usage errors
// must read the same whether one command or all of them are loaded.
import { PassThrough } from 'node:stream'
import { Command } from 'commander'
import { describe, expect, it } from 'vitest'
import type { CliContext } from './context.js'
import { commandModules, commandsFor, runCli } from './program.js'

function captureContext(): { context: CliContext; stdout: () => string; stderr: () => string } {
  let out = ''
  let err = ''
  const context: CliContext = {
    env: { NO_COLOR: '1' },
    cwd: '/nonexistent-cwd',
    home: '/nonexistent-home',
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
    stdin: new PassThrough(),
  }
  return { context, stdout: () => out, stderr: () => err }
}

async function run(argv: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const capture = captureContext()
  const code = await runCli(argv, capture.context)
  return { code, stdout: capture.stdout(), stderr: capture.stderr() }
}

describe('lazy command table', () => {
  it('names exactly the commands and aliases each module registers', async () => {
    for (const entry of commandModules) {
      const program = new Command('tangent')
      ;(await entry.load())(program, captureContext().context)
      const registered = program.commands.flatMap((command) => [command.name(), ...command.aliases()])
      expect(registered.sort()).toEqual([...entry.names].sort())
    }
  })

  it('routes a command line that starts with a command to its module alone, anything else to all', () => {
    expect(commandsFor(['show', 'abcd']).map((entry) => entry.names[0])).toEqual(['show'])
    expect(commandsFor(['ls', '--json']).map((entry) => entry.names[0])).toEqual(['sessions'])
    expect(commandsFor(['unarchive', 'x']).map((entry) => entry.names[0])).toEqual(['rename'])
    for (const argv of [[], ['help', 'show'], ['--help', 'show'], ['sho'], ['-V']]) {
      expect(commandsFor(argv)).toBe(commandModules)
    }
  })
})

describe('help and usage errors', () => {
  it('`tangent --help` lists every command of the table, in its order', async () => {
    const { code, stdout } = await run(['--help'])
    expect(code).toBe(0)
    const listed = stdout
      .slice(stdout.indexOf('Commands:'), stdout.indexOf('Try it offline:'))
      .split('\n')
      .map((line) => /^ {2}([a-z]+)(\|[a-z]+)?\b/.exec(line))
      .filter((match) => match !== null)
      .map((match) => match[1])
    expect(listed).toEqual(
      [...commandModules.map((entry) => entry.names[0] ?? ''), 'help'].flatMap(expandArchive),
    )
  })

  it('a command loaded alone prints the same help as `tangent help NAME` with all of them loaded', async () => {
    for (const name of commandModules.flatMap((entry) => entry.names)) {
      const alone = await run([name, '--help'])
      const all = await run(['help', name])
      expect(alone.code).toBe(0)
      expect(alone.stdout).not.toBe('')
      expect(alone.stdout).toBe(all.stdout)
    }
  })

  it('suggests a command for a typo, and reports usage errors in one line with exit 2', async () => {
    expect(await run(['sho', 'abcd'])).toEqual({
      code: 2,
      stdout: '',
      stderr: "error[usage]: unknown command 'sho' (Did you mean show?) (see `tangent --help`)\n",
    })
    expect(await run(['show'])).toEqual({
      code: 2,
      stdout: '',
      stderr: "error[usage]: missing required argument 'id' (see `tangent --help`)\n",
    })
    expect(await run(['show', '--jsn', 'abcd'])).toEqual({
      code: 2,
      stdout: '',
      stderr: "error[usage]: unknown option '--jsn' (Did you mean --json?) (see `tangent --help`)\n",
    })
  })
})

/** The archive module registers three commands under its first name. */
function expandArchive(name: string): string[] {
  return name === 'rename' ? ['rename', 'archive', 'unarchive'] : [name]
}
