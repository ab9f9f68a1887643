// The program loads only the command a command line names (docs/architecture.md §9): the table
// that routes it must match what each module registers, and help, suggestions and usage errors
// must read the same whether one command or all of them are loaded.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { PassThrough } from 'node:stream'
import { Command } from 'commander'
import { afterAll, describe, expect, it } from 'vitest'
import { captureContext } from './capture.test-helper.js'
import { commandModules, commandsFor, createProgram, directRouteFor, optionKey, runCli } from './program.js'

function captured(home = '/nonexistent-home') {
  return captureContext({
    env: { NO_COLOR: '1' },
    cwd: home === '/nonexistent-home' ? '/nonexistent-cwd' : home,
    home,
    stdin: new PassThrough(),
  })
}

async function run(
  argv: readonly string[],
  home?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = captured(home)
  const code = await runCli(argv, output.context)
  return { code, stdout: output.stdout(), stderr: output.stderr() }
}

describe('lazy command table', () => {
  it('names exactly the commands and aliases each module registers', async () => {
    for (const entry of commandModules) {
      const program = new Command('tangent')
      ;(await entry.load())(program, captured().context)
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

describe('--version', () => {
  it('`tangent --version` and `-V` print what commander’s program prints, on stdout, and exit 0', async () => {
    // Commander's own answer, from the program with every command registered.
    const output = captured()
    const program = await createProgram(output.context)
    await expect(program.parseAsync(['--version'], { from: 'user' })).rejects.toMatchObject({
      code: 'commander.version',
    })
    expect(output.stdout()).toMatch(/^\d+\.\d+\.\d+\n$/)
    for (const flag of ['--version', '-V']) {
      expect(await run([flag])).toEqual({ code: 0, stdout: output.stdout(), stderr: '' })
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
      expect(all.code).toBe(0)
      expect(alone.stdout).not.toBe('')
      expect(alone.stdout).toBe(all.stdout)
    }
  })

  it('help asked for exits 0 on stdout; help instead of a command (`tangent` alone, help of no command) exits 2 on stderr', async () => {
    const asked = await run(['help'])
    expect(asked.code).toBe(0)
    expect(asked.stdout).toContain('Commands:')
    expect(asked.stderr).toBe('')
    expect(asked.stdout).toBe((await run(['--help'])).stdout)
    const bare = await run([])
    expect(bare.code).toBe(2)
    expect(bare.stdout).toBe('')
    expect(bare.stderr).toBe(asked.stdout)
    const unknown = await run(['help', 'nosuch'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('Commands:')
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

describe('usage errors that say what to do', () => {
  it('text that starts with "-" gets a hint to put -- before it; an option with a suggestion keeps the suggestion', async () => {
    expect(await run(['run', '-x starts with dash'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error[usage]: unknown option \'-x starts with dash\' (text that starts with "-" goes after --, e.g. tangent run -- "-x starts with dash")\n',
    })
    expect((await run(['rename', 'abcd', '-v'])).stderr).toBe(
      'error[usage]: unknown option \'-v\' (text that starts with "-" goes after --, e.g. tangent rename abcd -- -v)\n',
    )
    expect((await run(['run', '--jsn', 'hi'])).stderr).toBe(
      "error[usage]: unknown option '--jsn' (Did you mean --json?) (see `tangent --help`)\n",
    )
    // Not a text command, and no space: an unknown option like any other.
    expect((await run(['show', '-q', 'abcd'])).stderr).toBe(
      "error[usage]: unknown option '-q' (see `tangent --help`)\n",
    )
  })

  it('a bad port reads the same whether it is not a number or out of range', async () => {
    for (const port of ['99999', 'abc', '-1', '65536']) {
      expect(await run(['serve', '--port', port]), port).toEqual({
        code: 2,
        stdout: '',
        stderr: `error[usage]: option '--port <port>' argument '${port}' is invalid. expected a port number from 0 to 65535 (see \`tangent --help\`)\n`,
      })
    }
  })

  it('fork --before without --at, and a title without a visible character, are bad usage naming what is missing', async () => {
    expect(await run(['fork', 'abcd', '--before'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error[usage]: --before needs --at SEQ: the seq of the message to fork just before (see `tangent show ID`)\n',
    })
    for (const title of ['', '   ', '\t']) {
      expect(await run(['rename', 'abcd', title])).toEqual({
        code: 2,
        stdout: '',
        stderr:
          'error[usage]: rename needs a title with a visible character, e.g. tangent rename ID "parser fix"\n',
      })
      expect((await run(['fork', 'abcd', '--title', title])).stderr).toBe(
        'error[usage]: --title needs a visible character\n',
      )
    }
  })
})

describe('direct routes', () => {
  const routed = commandModules.filter((entry) => entry.direct !== undefined)

  it('exist for the read-only commands show and sessions', () => {
    expect(routed.map((entry) => entry.names[0])).toEqual(['sessions', 'show'])
  })

  it('declare what the command registers: its required arguments, boolean flags without defaults', async () => {
    for (const entry of routed) {
      const program = new Command('tangent')
      ;(await entry.load())(program, captured().context)
      const command = program.commands[0]!
      const direct = entry.direct!
      // Every argument required (a missing one is commander's usage error), none variadic.
      expect(command.registeredArguments.map((argument) => [argument.required, argument.variadic])).toEqual(
        Array.from({ length: direct.positionals }, () => [true, false]),
      )
      for (const flag of direct.flags) {
        const option = command.options.find((candidate) => candidate.long === flag)
        expect(option, `${entry.names[0]} ${flag}`).toBeDefined()
        expect([option!.required, option!.optional, option!.negate], flag).toEqual([false, false, false])
        expect(option!.attributeName()).toBe(optionKey(flag))
      }
      // commander would hand the action a value the route does not: a default, or one from the environment.
      for (const option of command.options) {
        expect([option.long, option.defaultValue, option.envVar]).toEqual([option.long, undefined, undefined])
      }
    }
  })

  it('take only the plainest command lines; commander gets the rest', () => {
    expect(directRouteFor(['show', 'abcd'])).toMatchObject({ positionals: ['abcd'], flags: {} })
    expect(directRouteFor(['show', '--json', 'abcd'])).toMatchObject({
      positionals: ['abcd'],
      flags: { json: true },
    })
    expect(directRouteFor(['ls', '--json', '--all'])).toMatchObject({
      positionals: [],
      flags: { all: true, json: true },
    })
    for (const argv of [
      [],
      ['show'],
      ['show', 'a', 'b'],
      ['show', '--', 'abcd'],
      ['show', 'abcd', '--help'],
      ['show', 'abcd', '--jsn'],
      ['show', 'abcd', '--json=1'],
      ['show', '-h'],
      ['sessions', 'extra'],
      ['sessions', '-V'],
      ['help', 'show'],
      ['fork', 'abcd'],
    ]) {
      expect(directRouteFor(argv), argv.join(' ')).toBeNull()
    }
  })

  describe('print what commander’s parse of the same command line prints', () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'tangent-direct-'))
    afterAll(() => fs.rmSync(home, { recursive: true, force: true }))
    const id = '01J0000000000000000000D1RC'
    fs.mkdirSync(path.join(home, 'sessions'), { recursive: true, mode: 0o700 })
    const header = {
      type: 'session',
      version: 1,
      id,
      createdAt: 1,
      cwd: '/p',
      inheritedEventCount: 0,
      seed: 'inline',
      origin: 'user',
    }
    const lines = [
      ['turn/start', {}],
      ['user/message', { content: [{ type: 'text', text: 'hello' }] }],
      ['turn/end', { reason: 'completed' }],
    ].map(([type, data], seq) => JSON.stringify({ seq, time: 2, type, data }))
    fs.writeFileSync(
      path.join(home, 'sessions', `${id}.jsonl`),
      `${[JSON.stringify(header), ...lines].join('\n')}\n`,
      {
        mode: 0o600,
      },
    )

    // `--` ends the options for commander, and sends a command line past the direct route.
    const cases: [string[], string[], number, string][] = [
      [['show', id], ['show', '--', id], 0, 'you        hello'],
      [
        ['show', id.slice(0, 8).toLowerCase(), '--json'],
        ['show', '--json', '--', id.slice(0, 8).toLowerCase()],
        0,
        '"text":"hello"',
      ],
      [['show', 'nosuchid'], ['show', '--', 'nosuchid'], 1, 'error[session-not-found]'],
      [['sessions'], ['sessions', '--'], 0, id],
      [['ls', '--json', '--all'], ['sessions', '--all', '--json', '--'], 0, `"id":"${id}"`],
    ]
    for (const [direct, parsed, code, text] of cases) {
      it(direct.join(' '), async () => {
        expect(directRouteFor(direct)).not.toBeNull()
        expect(directRouteFor(parsed)).toBeNull()
        const a = await run(direct, home)
        expect(a.code, a.stderr).toBe(code)
        expect(a.stdout + a.stderr).toContain(text)
        expect(a).toEqual(await run(parsed, home))
      })
    }
  })
})

/** The archive module registers three commands under its first name. */
function expandArchive(name: string): string[] {
  return name === 'rename' ? ['rename', 'archive', 'unarchive'] : [name]
}
