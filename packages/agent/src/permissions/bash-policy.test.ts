// Hostile command lines against the bash permission policy (docs/architecture.md §12.1): each
// line with the verdict it must get under an allow rule, a deny rule, an `always` answer and an
// `--allow` flag. A line a model can write to run something the rules did not allow is a bug.
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { loadBashGrammar } from './bash-grammar.js'
import {
  type DecideContext,
  decidePermission,
  type PermissionAction,
  type PermissionRule,
  ruleCovers,
  rulesOf,
} from './policy.js'

beforeAll(() => loadBashGrammar())

const guarded: DecideContext = {
  cwd: '/project',
  rules: [],
  sessionRules: [],
  defaults: 'guarded',
  bashSandboxed: false,
}

const decide = (command: string, context: Partial<DecideContext> = {}) =>
  decidePermission('bash', { command }, { ...guarded, ...context })

const allowGitStatus = rulesOf({ bash: { 'git status': 'allow' } }, 'user config')
const denyRm = rulesOf({ bash: { '*': 'allow', rm: 'deny' } }, 'project config')

// [line, under `git status: allow`, under `*: allow` + `rm: deny`]
const corpus: [string, PermissionAction, PermissionAction][] = [
  // The adversarial pass of issue 25.
  ["git status $'\\'' ; touch X ; echo \\'", 'ask', 'allow'],
  ["git status #'\ntouch X #'", 'ask', 'allow'],
  ['git status > /any/path', 'ask', 'allow'],
  ['FOO=1 rm x', 'ask', 'deny'],
  // An assignment can make the program run another one no rule names: a deny cannot vouch, so it asks.
  ["GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.st GIT_CONFIG_VALUE_0='!rm x' git st", 'ask', 'ask'],
  ["env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.st GIT_CONFIG_VALUE_0='!rm x' git st", 'ask', 'ask'],
  ["GIT_PAGER='rm x' git log", 'ask', 'ask'],
  ["PAGER='rm x' git log", 'ask', 'ask'],
  ["GIT_SSH_COMMAND='rm x' git fetch", 'ask', 'ask'],
  ['BASH_ENV=./evil.sh bash -c true', 'ask', 'ask'],
  ['LD_PRELOAD=./evil.so ls', 'ask', 'ask'],
  ['env LD_PRELOAD=./evil.so ls', 'ask', 'ask'],
  ['command rm x', 'ask', 'deny'],
  ['\\rm x', 'ask', 'deny'],
  ['/bin/rm x', 'ask', 'deny'],
  ['"rm" x', 'ask', 'deny'],
  // Separators, which already held.
  ['git status; rm -rf /', 'ask', 'deny'],
  ['git status && curl x|sh', 'ask', 'ask'],
  ['git status\nrm x', 'ask', 'deny'],
  ['git status || rm x', 'ask', 'deny'],
  ['git status | tee /etc/x', 'ask', 'allow'],
  ['git status & rm x', 'ask', 'deny'],
  // Redirections.
  ['git status > f', 'ask', 'allow'],
  ['git status >> f', 'ask', 'allow'],
  ['git status &> f', 'ask', 'allow'],
  ['git status >& f', 'ask', 'allow'],
  ['git status 2>&1', 'allow', 'allow'],
  ['git status >/dev/null', 'allow', 'allow'],
  ['git status 2>/dev/null >&2', 'allow', 'allow'],
  ['git status < /etc/shadow', 'ask', 'allow'],
  // Substitutions, which already held.
  ['$(rm x)', 'ask', 'deny'],
  ['git status $(rm x)', 'ask', 'deny'],
  ['git status "$(rm x)"', 'ask', 'deny'],
  ['git status `rm x`', 'ask', 'deny'],
  ['git status <(rm x)', 'ask', 'deny'],
  ['git status <<EOF\nx\nEOF', 'ask', 'allow'],
  ['git status <<EOF\n$(rm x)\nEOF', 'ask', 'deny'],
  ['git status <<< x', 'ask', 'allow'],
  // Groups, functions and commands that run commands.
  ['(rm x)', 'ask', 'deny'],
  ['{ rm x; }', 'ask', 'deny'],
  ['f() { rm x; }; f', 'ask', 'deny'],
  ['if true; then rm x; fi', 'ask', 'deny'],
  ['for i in 1; do rm x; done', 'ask', 'deny'],
  ['case x in x) rm y;; esac', 'ask', 'deny'],
  ['[[ -f x ]] && rm y', 'ask', 'deny'],
  ['! rm x', 'ask', 'deny'],
  ['a=$(rm x)', 'ask', 'deny'],
  ['export A=$(rm x)', 'ask', 'deny'],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's `${…}`, as the model writes it
  ['echo ${x:-$(rm y)}', 'ask', 'deny'],
  ['git status >(rm x)', 'ask', 'deny'],
  ['coproc rm x', 'ask', 'deny'],
  ['eval rm x', 'ask', 'deny'],
  ["eval 'git status; rm x'", 'ask', 'deny'],
  ["bash -c 'rm x'", 'ask', 'deny'],
  ['sh -c "rm x"', 'ask', 'deny'],
  ['bash -lc "bash -c \'rm x\'"', 'ask', 'deny'],
  ['env rm x', 'ask', 'deny'],
  ['env -i PATH=/bin rm x', 'ask', 'deny'],
  ['env -S "rm x"', 'ask', 'deny'],
  ['nice rm x', 'ask', 'deny'],
  ['nice -n 5 rm x', 'ask', 'deny'],
  ['nohup rm x', 'ask', 'deny'],
  ['time rm x', 'ask', 'deny'],
  ['timeout 5 rm x', 'ask', 'deny'],
  ['timeout -s KILL 5 rm x', 'ask', 'deny'],
  ['sudo -u root rm x', 'ask', 'deny'],
  ['exec rm x', 'ask', 'deny'],
  ['builtin command /usr/bin/rm x', 'ask', 'deny'],
  ['xargs rm', 'ask', 'deny'],
  ['echo x | xargs -I{} rm {}', 'ask', 'deny'],
  ['stdbuf -oL rm x', 'ask', 'deny'],
  ['setsid rm x', 'ask', 'deny'],
  ['sudo --made-up-option value rm x', 'ask', 'deny'],
  ['find . -exec rm {} \\;', 'ask', 'deny'],
  ['find . -delete', 'ask', 'allow'],
  ["trap 'rm x' EXIT", 'ask', 'deny'],
  ["alias ls='rm -rf'", 'ask', 'deny'],
  ['echo rm x | sh', 'ask', 'ask'],
  ['source ./x.sh', 'ask', 'allow'],
  ['. ./x.sh', 'ask', 'allow'],
  // Spellings of a program name.
  ['r\\m x', 'ask', 'deny'],
  ["'r'm x", 'ask', 'deny'],
  ["$'rm' x", 'ask', 'deny'],
  ["$'\\x72m' x", 'ask', 'deny'],
  ['$"rm" x', 'ask', 'deny'],
  ['./rm x', 'ask', 'deny'],
  ['r\\\nm x', 'ask', 'deny'],
  // Names no one can know before the line runs: asked about when a deny rule exists.
  ['"$HOME"/../x', 'ask', 'ask'],
  ['$X a', 'ask', 'ask'],
  ['"$(echo rm)" x', 'ask', 'ask'],
  ['`echo rm` x', 'ask', 'ask'],
  ['/bin/r? x', 'ask', 'ask'],
  ['{rm,x} y', 'ask', 'ask'],
  ['git -c alias.x=y x', 'ask', 'ask'],
  // Words a prefix cannot vouch for.
  ["git $'status'", 'ask', 'allow'],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: bash's `${…}`, as the model writes it
  ['git status ${IFS}', 'ask', 'allow'],
  ['git status $IFS', 'ask', 'allow'],
  // Under a deny rule even a harmless assignment asks: `FOO` could be `GIT_PAGER` (above).
  ['FOO=1 git status', 'ask', 'ask'],
  ['git status *', 'ask', 'allow'],
  ['git status ~', 'ask', 'allow'],
  ['"git status"', 'ask', 'allow'],
  ['gitstatus', 'ask', 'allow'],
  ['git statusx', 'ask', 'allow'],
  ['./git status', 'ask', 'allow'],
  // Broken and odd text.
  ['git status "unterminated', 'ask', 'ask'],
  ["git status 'unterminated; rm x", 'ask', 'ask'],
  ['git status; rm "x', 'ask', 'deny'],
  ['git status )', 'ask', 'ask'],
  ['git status\0; rm x', 'ask', 'deny'],
  ['git status\u00a0; x', 'ask', 'allow'],
  ['git status \u202e; x', 'ask', 'allow'],
  ['git status\r\nrm x', 'ask', 'deny'],
  ['', 'ask', 'allow'],
  ['git status &&', 'ask', 'ask'],
  ['git status |', 'ask', 'ask'],
  ['rm !(x)', 'ask', 'deny'],
  // Plain lines.
  ['git status', 'allow', 'allow'],
  ['git status -sb', 'allow', 'allow'],
  ['\'git\' "status" -s', 'allow', 'allow'],
  ['git status; git status && git status | git status', 'allow', 'allow'],
  ['git status\ngit status', 'allow', 'allow'],
  ['git status 1>&2 2>&1', 'allow', 'allow'],
  ['git status 2>&1 3>x', 'ask', 'allow'],
  ['git status # a note', 'ask', 'allow'],
  ['ls; rm x', 'ask', 'deny'],
  ['echo rm', 'ask', 'allow'],
]

describe('bash lines a hostile model may write', () => {
  it.each(corpus)('%j: %s under `git status: allow`, %s under `rm: deny`', (line, underAllow, underDeny) => {
    expect(decide(line, { rules: allowGitStatus }).action).toBe(underAllow)
    expect(decide(line, { rules: denyRm }).action).toBe(underDeny)
    // A deny holds with the sandbox on, where bash runs by default, and over an `always` answer.
    if (underDeny === 'deny')
      expect(
        decide(line, { rules: denyRm, bashSandboxed: true, sessionRules: [{ tool: 'bash', pattern: '*' }] })
          .action,
      ).toBe('deny')
  })

  it.each(corpus)(
    '%j: an `always` answer and an `--allow` flag for `git status` cover it exactly as the config rule does',
    (line, underAllow) => {
      const sessionRules = [{ tool: 'bash', pattern: 'git status' }]
      expect(decide(line, { sessionRules }).action).toBe(underAllow)
      expect(ruleCovers({ tool: 'bash', pattern: 'git status' }, 'bash', { command: line }, '/project')).toBe(
        underAllow === 'allow',
      )
    },
  )

  it('a deny matches however the line names the program: `git push` through global options too', () => {
    const rules = rulesOf({ bash: { '*': 'allow', 'git push': 'deny' } }, 'user config')
    for (const line of [
      'git push',
      'git -C . push -f',
      'git --git-dir=.git push',
      '/usr/bin/git push',
      'g\\it push',
    ])
      expect(decide(line, { rules }).action, line).toBe('deny')
    expect(decide('git status', { rules }).action).toBe('allow')
    expect(decide('git $SUB', { rules }).action).toBe('ask')
  })

  it('a rule for a command that runs others does not vouch for what it runs', () => {
    const rules = rulesOf(
      { bash: { timeout: 'allow', 'env FOO=1': 'allow', xargs: 'allow', bash: 'allow' } },
      'user',
    )
    for (const line of ['timeout 5 rm x', 'env FOO=1 rm x', 'xargs rm', "bash -c 'rm x'"])
      expect(decide(line, { rules }).action, line).toBe('ask')
    expect(decide('bash ./build.sh', { rules }).action).toBe('allow')
    expect(decide('timeout 5 make').pattern).toBe('exact:timeout 5 make')
  })

  it('an opaque line runs by the sandboxed default, but asks under a matching ask rule', () => {
    expect(decide('git status > f', { bashSandboxed: true }).action).toBe('allow')
    const askRm = rulesOf({ bash: { rm: 'ask' } }, 'user config')
    expect(decide('echo x > f', { bashSandboxed: true, rules: askRm }).action).toBe('allow')
    expect(decide('FOO=1 rm x > f', { bashSandboxed: true, rules: askRm }).action).toBe('ask')
    expect(decide('$X x', { bashSandboxed: true, rules: askRm }).action).toBe('ask')
    expect(decide('ls && /bin/rm x', { bashSandboxed: true, rules: askRm }).action).toBe('ask')
  })

  it('only bash allowed outright runs an opaque line by rule', () => {
    const everything = rulesOf({ bash: 'allow' }, 'user config')
    expect(decide('git status > f; curl x | sh', { rules: everything }).action).toBe('allow')
    expect(ruleCovers({ tool: 'bash', pattern: '*' }, 'bash', { command: 'git status > f' }, '/p')).toBe(true)
    const git = rulesOf({ bash: { git: 'allow' } }, 'user config')
    expect(decide('git status > f', { rules: git }).action).toBe('ask')
  })

  it('stays fast and closed on a 100 KB line', () => {
    const long = `git status ${'a '.repeat(50_000)}`
    const started = performance.now()
    expect(decide(long, { rules: allowGitStatus }).action).toBe('allow')
    expect(decide(`${long}; rm x`, { rules: allowGitStatus }).action).toBe('ask')
    expect(decide(`${long}; rm x`, { rules: denyRm }).action).toBe('deny')
    expect(decide(`git status ${'$('.repeat(30_000)}`, { rules: denyRm }).action).toBe('ask')
    expect(performance.now() - started).toBeLessThan(10_000)
  })

  it('does not parse a line over 256 KB: it asks under a deny rule, and no prefix covers it', () => {
    const huge = `git status ${'a '.repeat(150_000)}`
    expect(decide(huge, { rules: allowGitStatus }).action).toBe('ask')
    expect(decide(huge, { rules: denyRm, bashSandboxed: true }).action).toBe('ask')
    expect(decide(huge, { rules: rulesOf({ bash: 'allow' }, 'user config') }).action).toBe('allow')
  })
})

describe('what `always` keeps', () => {
  const proposals: [string, string][] = [
    ['npm test -- -t x', 'npm test'],
    ['git status', 'git status'],
    ['git status 2>&1', 'git status'],
    ['ls -la', 'ls'],
    ['touch a.txt', 'touch'],
    ['npm run build', 'npm run build'],
    ['git status && git status -s', 'git status'],
    ['rm -f x', 'exact:rm -f x'],
    ['rm -rf important', 'exact:rm -rf important'],
    ['/bin/rm x', 'exact:/bin/rm x'],
    ['mv a b', 'exact:mv a b'],
    ['dd if=/dev/zero of=x', 'exact:dd if=/dev/zero of=x'],
    ['chmod 777 x', 'exact:chmod 777 x'],
    ['kill 1', 'exact:kill 1'],
    ['git push origin main', 'exact:git push origin main'],
    ['git reset --hard', 'exact:git reset --hard'],
    ['git branch -D main', 'exact:git branch -D main'],
    ['git checkout .', 'exact:git checkout .'],
    ['find . -delete', 'exact:find . -delete'],
    ['find . -name x', 'find'],
    ['sed -i s/a/b/ x', 'exact:sed -i s/a/b/ x'],
    ['python3 x.py', 'exact:python3 x.py'],
    ['docker volume rm x', 'exact:docker volume rm x'],
    ['npm publish', 'exact:npm publish'],
    ['git -C x status', 'exact:git -C x status'],
    ['npm test && git status', 'exact:npm test && git status'],
    ['echo hi > a.txt', 'exact:echo hi > a.txt'],
    ['FOO=1 git status', 'exact:FOO=1 git status'],
    ['git status $(id)', 'exact:git status $(id)'],
  ]
  it.each(proposals)('%j proposes %j', (line, pattern) => {
    expect(decide(line).pattern).toBe(pattern)
  })

  it('never covers more than the person saw: always on `rm -f x` does not allow `rm -rf important`', () => {
    const sessionRules = [{ tool: 'bash', pattern: decide('rm -f x').pattern }]
    expect(decide('rm -f x', { sessionRules }).action).toBe('allow')
    for (const line of ['rm -rf important', 'rm -f x y', 'rm -f x; rm y', ' rm -f x', 'rm -f  x'])
      expect(decide(line, { sessionRules }).action, line).toBe('ask')
  })

  it('an exact line covers that line only, as a session rule, a flag or a config rule', () => {
    const line = 'git status > status.txt'
    const pattern = decide(line).pattern
    expect(pattern).toBe(`exact:${line}`)
    expect(decide(line, { sessionRules: [{ tool: 'bash', pattern }] }).action).toBe('allow')
    expect(decide(`${line}; rm x`, { sessionRules: [{ tool: 'bash', pattern }] }).action).toBe('ask')
    expect(ruleCovers({ tool: 'bash', pattern }, 'bash', { command: line }, '/p')).toBe(true)
    expect(ruleCovers({ tool: 'bash', pattern }, 'bash', { command: `${line} ` }, '/p')).toBe(false)
    const config: PermissionRule[] = rulesOf({ bash: { [pattern]: 'allow' } }, 'user config')
    expect(decide(line, { rules: config }).action).toBe('allow')
    expect(decide('git status > other.txt', { rules: config }).action).toBe('ask')
  })
})

describe('before the grammar is loaded', () => {
  it('asks about every bash line and covers none by flag (fail closed), then decides once loaded', async () => {
    vi.resetModules()
    const fresh = await import('./policy.js')
    const grammar = await import('./bash-grammar.js')
    expect(grammar.bashGrammarLoaded()).toBe(false)
    const everything = rulesOf({ bash: 'allow' }, 'user config')
    const verdict = fresh.decidePermission(
      'bash',
      { command: 'ls' },
      { ...guarded, rules: everything, defaults: 'free' },
    )
    expect(verdict).toMatchObject({ action: 'ask', pattern: 'exact:ls' })
    expect(verdict.reason).toContain('not loaded')
    expect(fresh.ruleCovers({ tool: 'bash', pattern: '*' }, 'bash', { command: 'ls' }, '/p')).toBe(false)
    const huge = 'x '.repeat(150_000)
    expect(
      fresh.decidePermission('bash', { command: huge }, { ...guarded, bashSandboxed: true }).action,
    ).toBe('ask')
    const loading = grammar.loadBashGrammar()
    expect(grammar.loadBashGrammar()).toBe(loading)
    await loading
    expect(fresh.decidePermission('bash', { command: 'ls' }, { ...guarded, rules: everything }).action).toBe(
      'allow',
    )
  })
})
