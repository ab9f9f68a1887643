// What a simple command really runs, as deny and ask rules see it (docs/architecture.md §12.1):
// `FOO=1 command /bin/rm x` runs `rm x`, `timeout 5 sudo rm x` too, `bash -c 'rm x'` and
// `eval rm x` run the commands of their script, `find . -exec rm {} ;` runs `rm`. Normalising is
// generous on purpose: a word whose role is unclear (an option a wrapper might take a value for)
// makes every later word a possible program, so a deny matches more rather than less.

/** A command's words, the program first (its basename); null where a word is not known before it runs. */
export type Invocation = readonly (string | null)[]

/** Parses a script string (`bash -c '…'`, `eval …`) into the invocations it makes. */
export type ScriptParser = (script: string, depth: number) => Invocation[]

/** Scripts inside scripts (`bash -c "sh -c '…'"`) are followed this deep; deeper is unknown. */
const maxDepth = 8

interface WrapperOptions {
  /** Options that take no value: single letters and long names. */
  flags?: string
  /** Options that take a value (the next word unless attached). */
  values?: string
  /** Words before the command that are not options (`timeout 5`, `taskset 0x3`, `flock FILE`). */
  positionals?: number
  /** `NAME=value` words before the command are environment (env, sudo). */
  assignments?: boolean
  /** `-10` (nice's old form). */
  numeric?: boolean
  /** The option whose value is itself a command line (`env -S`, `flock -c`, `su -c`). */
  script?: string
}

/** Programs that run the command in their arguments. Words are space-separated option names. */
const wrappers: Record<string, WrapperOptions> = {
  builtin: {},
  busybox: {},
  caffeinate: { flags: 'd i m s u', values: 't w' },
  chrt: {
    flags: 'a b d f i o r R v m e all-tasks batch deadline fifo idle other rr reset-on-fork verbose',
    values: 'T P D',
    positionals: 1,
  },
  command: { flags: 'p v V' },
  coproc: {},
  doas: { flags: 'n s', values: 'u C' },
  env: {
    flags: 'i 0 v ignore-environment null debug',
    values: 'u C P unset chdir',
    assignments: true,
    script: 'S split-string',
  },
  exec: { flags: 'c l', values: 'a' },
  flock: {
    flags: 's x n u o e shared exclusive nonblock unlock close',
    values: 'w E timeout conflict-exit-code',
    positionals: 1,
    script: 'c command',
  },
  ionice: { flags: 't ignore', values: 'c n p P u class classdata pid pgid uid' },
  nice: { values: 'n adjustment', numeric: true },
  nohup: {},
  parallel: {},
  pkexec: { flags: 'disable-internal-agent keep-cwd', values: 'user' },
  runuser: {
    flags: 'l m p login preserve-environment',
    values: 'u g G s user group supp-group shell',
    script: 'c command',
  },
  setsid: { flags: 'c f w ctty fork wait' },
  stdbuf: { values: 'i o e input output error' },
  su: {
    flags: 'l m p login preserve-environment',
    values: 'g G s group supp-group shell',
    positionals: 0,
    script: 'c command',
  },
  sudo: {
    flags: 'A b E H n P S i s k K B N e preserve-env login shell non-interactive background askpass',
    values:
      'u g C D h p r t U T R user group chdir host prompt role type other-user command-timeout close-from chroot',
    assignments: true,
  },
  taskset: { flags: 'a c p all-tasks cpu-list pid', positionals: 1 },
  time: { flags: 'p v a portability verbose append', values: 'o f output format' },
  timeout: { flags: 'v preserve-status foreground verbose', values: 's k signal kill-after', positionals: 1 },
  unbuffer: { flags: 'p' },
  xargs: {
    flags: '0 o p r t x i e l null interactive no-run-if-empty verbose exit open-tty',
    values:
      'a d E I L n P s arg-file delimiter eof replace max-lines max-args max-procs max-chars process-slot-var',
  },
}

const shells = new Set(['ash', 'bash', 'dash', 'fish', 'ksh', 'mksh', 'sh', 'yash', 'zsh'])

/** The last path segment: `/bin/rm` and `./rm` are `rm`. */
export function programName(word: string): string {
  const trimmed = word.replace(/\/+$/, '')
  return trimmed.slice(trimmed.lastIndexOf('/') + 1) || word
}

/**
 * The invocations one simple command makes: itself with its program's basename, then what its
 * wrappers, shells, `eval`, `trap`, `alias` and `find -exec` run. Environment assignments before
 * it are not words of it (the caller leaves them out).
 */
export function invocationsOf(words: Invocation, parse: ScriptParser, depth = 0): Invocation[] {
  const program = words[0]
  if (program === undefined) return []
  if (program === null || depth > maxDepth) return [[null, ...words.slice(1)]]
  const name = programName(program)
  const self: Invocation = [name, ...words.slice(1)]
  const args = words.slice(1)
  const wrapper = wrappers[name]
  if (wrapper) return [self, ...unwrap(wrapper, args, parse, depth)]
  if (shells.has(name)) return [self, ...shellScript(args, parse, depth)]
  if (name === 'eval') return [self, ...script(args.every(known) ? args.join(' ') : null, parse, depth)]
  if (name === 'trap') {
    const first = args[0]
    if (args.length >= 2 && first !== '--' && !first?.startsWith('-'))
      return [self, ...script(first ?? null, parse, depth)]
    return [self]
  }
  if (name === 'alias') {
    // An alias's value is a command (with `shopt -s expand_aliases`, a later line runs it).
    return [
      self,
      ...args.flatMap((arg) =>
        arg === null
          ? [[null]]
          : arg.includes('=')
            ? script(arg.slice(arg.indexOf('=') + 1), parse, depth)
            : [],
      ),
    ]
  }
  if (name === 'find') return [self, ...findExec(args, parse, depth)]
  if (name === 'watch') {
    const rest = skipOptions(args, {
      flags: 'b e g t x c p d beep errexit chgexit no-title exec color precise differences',
      values: 'n interval',
    })
    return [
      self,
      ...(rest === null ? [[null]] : script(rest.every(known) ? rest.join(' ') : null, parse, depth)),
    ]
  }
  if (name === 'git') return gitInvocations(args)
  return [self]
}

function known(word: string | null): word is string {
  return word !== null
}

function script(text: string | null, parse: ScriptParser, depth: number): Invocation[] {
  return text === null ? [[null]] : parse(text, depth + 1)
}

function unwrap(options: WrapperOptions, args: Invocation, parse: ScriptParser, depth: number): Invocation[] {
  let found: Invocation[] = []
  // `env -S 'rm x'`, `su -c 'rm x' root`, `flock FILE -c 'rm x'`: an option's value is a command line.
  for (let at = 0; at < args.length; at++) {
    const arg = args[at] ?? null
    if (arg === null || !isScriptOption(arg, options)) continue
    const attached = arg.includes('=')
      ? arg.slice(arg.indexOf('=') + 1)
      : arg.startsWith('--') || arg.length === 2
        ? undefined
        : arg.slice(2)
    const tail = attached === undefined ? args.slice(at + 1) : [attached, ...args.slice(at + 1)]
    found = found.concat(script(tail.every(known) ? tail.join(' ') : null, parse, depth))
  }
  const rest = skipOptions(args, options)
  // `env GIT_PAGER='rm x' git log`: an assignment can make the program run another (below).
  if (options.assignments && args.slice(0, args.length - (rest?.length ?? 0)).some(isAssignment))
    found.push([null])
  return found.concat(rest === null ? anyLaterWord(args) : invocationsOf(rest, parse, depth + 1))
}

/**
 * `NAME=value`. An assignment before a command may make it run another one no rule names —
 * `GIT_CONFIG_KEY_0=alias.st GIT_CONFIG_VALUE_0='!rm x' git st`, `PAGER=`, `GIT_SSH_COMMAND=`,
 * `BASH_ENV=`, `LD_PRELOAD=` — so it counts as an unknown command: a deny rule asks (§12.1).
 */
export function isAssignment(word: string | null): boolean {
  return word !== null && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)
}

/** Candidates past an option the table does not know, so that the work stays linear in the line. */
const maxCandidates = 16

/**
 * After an option a wrapper's table does not know (it may take a value), any later word may be
 * the program: each is taken as one, without unwrapping further (a wrapper or shell there, or too
 * many candidates, is a command no one can name).
 */
function anyLaterWord(args: Invocation): Invocation[] {
  const found: Invocation[] = []
  for (let at = 1; at < args.length; at++) {
    const word = args[at] ?? null
    if (word?.startsWith('-')) continue
    if (word === null || found.length === maxCandidates) return [...found, [null]]
    const name = programName(word)
    if (wrappers[name] || shells.has(name) || ['eval', 'trap', 'alias', 'find', 'watch'].includes(name))
      return [...found, [null]]
    found.push([name, ...args.slice(at + 1)])
  }
  return found
}

function isScriptOption(arg: string, options: WrapperOptions): boolean {
  const names = (options.script ?? '').split(' ').filter(Boolean)
  if (arg.startsWith('--')) return names.includes(arg.slice(2).split('=')[0]!)
  return arg.startsWith('-') && names.includes(arg[1] ?? '')
}

/**
 * The words after a wrapper's options and positionals: the command it runs; null when an option
 * is unknown or a word is not known.
 */
function skipOptions(args: Invocation, options: WrapperOptions): Invocation | null {
  const flags = new Set((options.flags ?? '').split(' '))
  const values = new Set(`${options.values ?? ''} ${options.script ?? ''}`.split(' ').filter(Boolean))
  let index = 0
  for (; index < args.length; index++) {
    const arg = args[index] ?? null
    if (arg === null) return null
    if (arg === '--') {
      index++
      break
    }
    if (options.assignments && isAssignment(arg)) continue
    if (arg === '-' && options.assignments) continue
    if (!arg.startsWith('-') || arg === '-') break
    if (arg.startsWith('--')) {
      const [long, attached] = [arg.slice(2).split('=')[0]!, arg.includes('=')]
      if (values.has(long)) index += attached ? 0 : 1
      else if (!flags.has(long)) return null
      continue
    }
    if (options.numeric && /^-\d+$/.test(arg)) continue
    for (let at = 1; at < arg.length; at++) {
      const letter = arg[at]!
      if (values.has(letter)) {
        if (at === arg.length - 1) index++
        break
      }
      if (!flags.has(letter)) return null
    }
  }
  const positionals = options.positionals ?? 0
  if (args.slice(index, index + positionals).some((arg) => arg === null)) return null
  return args.slice(index + positionals)
}

/** `bash -c SCRIPT`: the script's commands; a shell reading its input runs commands no one can name. */
function shellScript(args: Invocation, parse: ScriptParser, depth: number): Invocation[] {
  let command = false
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] ?? null
    if (arg === null) return [[null]]
    if (arg === '--' || arg === '-') {
      const operand = args[index + 1]
      return command ? script(operand ?? null, parse, depth) : operand === undefined ? [[null]] : []
    }
    if (/^[-+][oO]$/.test(arg) || arg === '--rcfile' || arg === '--init-file') {
      index++
      continue
    }
    if (arg.startsWith('--')) continue
    if (/^[-+]/.test(arg)) {
      if (arg.startsWith('-') && arg.includes('c')) command = true
      if (arg.startsWith('-') && arg.includes('s'))
        return command ? script(args[index + 1] ?? null, parse, depth) : [[null]]
      continue
    }
    // The first operand: the script (-c) or a script file (its commands are its own business).
    return command ? script(arg, parse, depth) : []
  }
  return [[null]]
}

/** `find … -exec CMD … ;` (and -execdir, -ok, -okdir): CMD runs once per file. */
function findExec(args: Invocation, parse: ScriptParser, depth: number): Invocation[] {
  const found: Invocation[] = []
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] ?? null
    if (arg === null || !['-exec', '-execdir', '-ok', '-okdir'].includes(arg)) continue
    const end = args.findIndex((word, at) => at > index && (word === ';' || word === '+'))
    const command = args.slice(index + 1, end < 0 ? args.length : end)
    for (const invocation of invocationsOf(command, parse, depth + 1)) found.push(invocation)
    index = end < 0 ? args.length : end
  }
  return found
}

const gitOptionsWithValue = new Set([
  '-C',
  '-c',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--config-env',
  '--super-prefix',
])

/**
 * `git -C dir push` is `git push` to a deny rule. A `-c` setting, `--config-env` or
 * `--exec-path` can make git run any command (an alias, a pager, a hook path): unknown.
 */
function gitInvocations(args: Invocation): Invocation[] {
  let configured = false
  let index = 0
  for (; index < args.length; index++) {
    const arg = args[index] ?? null
    if (arg === null || !arg.startsWith('-')) break
    const option = arg.split('=')[0]!
    if (option === '-c' || option === '--config-env' || option === '--exec-path' || /^-c./.test(arg))
      configured = true
    if (gitOptionsWithValue.has(option) && !arg.includes('=')) index++
  }
  const git: Invocation = ['git', ...args.slice(index)]
  return configured ? [git, [null]] : [git]
}
