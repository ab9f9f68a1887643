// The runtime's permission decider over real config files: a project file tightens the user's
// rules always and loosens them only when the user trusts it; every file from the session's
// directory up to the repository root binds it; an invalid file fails closed.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigFiles } from './config.js'
import { permissionDecider } from './permission-policy.js'
import { tempDirs } from './temp-dirs.test-helper.js'

const tempDir = tempDirs('tangent-permission-policy-')

interface Layout {
  user?: unknown
  /** Config of `.tangent/config.json` by folder relative to the repository root ('' is the root). */
  project?: Record<string, unknown>
}

function setUp(layout: Layout) {
  const root = tempDir()
  const repo = path.join(root, 'repo')
  fs.mkdirSync(path.join(repo, '.git'), { recursive: true })
  fs.mkdirSync(path.join(repo, 'pkg', 'deep'), { recursive: true })
  const userPath = path.join(root, 'user-config.json')
  if (layout.user !== undefined) fs.writeFileSync(userPath, JSON.stringify(layout.user))
  for (const [folder, config] of Object.entries(layout.project ?? {})) {
    const dir = path.join(repo, folder, '.tangent')
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(
      path.join(dir, 'config.json'),
      typeof config === 'string' ? config : JSON.stringify(config),
    )
  }
  const config = new ConfigFiles({ env: { TANGENT_CONFIG: userPath }, homeDir: root })
  const decide = permissionDecider(config, async () => false)
  const bash = (command: string, cwd = repo) =>
    decide({
      toolName: 'bash',
      input: { command },
      cwd,
      sessionRules: [],
      mode: 'edit',
      modelId: 'openai:gpt-test',
    } as Parameters<typeof decide>[0])
  return { repo, userPath, bash, config }
}

describe('permission decider: project configs', () => {
  it('an untrusted project’s allow does not loosen the user’s ask, and the reason says how to trust it', async () => {
    const { repo, userPath, bash } = setUp({
      user: { permission: { bash: { 'rm -f': 'ask' } } },
      project: { '': { permission: { bash: { 'rm -f': 'allow', 'npm test': 'allow' } } } },
    })
    const verdict = await bash('rm -f x')
    expect(verdict.action).toBe('ask')
    expect(verdict.reason).toContain(`is ask in ${userPath}`)
    expect(verdict.reason).toContain('the project config would allow it')
    expect(verdict.reason).toContain(`"trustProjects": [${JSON.stringify(repo)}]`)
    // Not even an allow of something the user never ruled on.
    expect((await bash('npm test')).action).toBe('ask')
  })

  it('a trusted project’s allow applies: trustProjects true or its folder, not a folder above it', async () => {
    for (const trust of [true, ['REPO']]) {
      const { repo, userPath, bash } = setUp({
        user: { permission: { bash: { 'rm -f': 'ask' } } },
        project: { '': { permission: { bash: { 'rm -f': 'allow' } } } },
      })
      const resolved = Array.isArray(trust)
        ? trust.map((folder) => (folder === 'REPO' ? repo : path.dirname(repo)))
        : trust
      const user = JSON.parse(fs.readFileSync(userPath, 'utf8'))
      fs.writeFileSync(userPath, JSON.stringify({ ...user, trustProjects: resolved }))
      const verdict = await bash('rm -f x')
      expect(verdict.action, JSON.stringify(trust)).toBe('allow')
      expect(verdict.reason).toContain(path.join(repo, '.tangent', 'config.json'))
    }
    // Listing a folder trusts its own .tangent/, not one the agent could write in a subfolder.
    const { repo, userPath, bash } = setUp({
      user: { permission: { bash: { 'rm -f': 'ask' } } },
      project: { pkg: { permission: { bash: { 'rm -f': 'allow' } } } },
    })
    const user = JSON.parse(fs.readFileSync(userPath, 'utf8'))
    fs.writeFileSync(userPath, JSON.stringify({ ...user, trustProjects: [repo, path.dirname(repo)] }))
    expect((await bash('rm -f x', path.join(repo, 'pkg'))).action).toBe('ask')
  })

  it('trusting another folder, or mcp.trustProjectServers, does not trust the project’s rules', async () => {
    const { bash, userPath } = setUp({
      project: { '': { permission: { bash: { 'rm -f': 'allow' } } } },
    })
    fs.writeFileSync(
      userPath,
      JSON.stringify({ trustProjects: ['/elsewhere/repo'], mcp: { trustProjectServers: true } }),
    )
    expect((await bash('rm -f x')).action).toBe('ask')
  })

  it('an untrusted project’s ask and deny still apply over the user’s allow', async () => {
    const { bash } = setUp({
      user: { permission: { bash: { 'git push': 'allow', 'rm -f': 'allow' } } },
      project: { '': { permission: { bash: { 'git push': 'ask', 'rm -f': 'deny' } } } },
    })
    expect((await bash('git push origin')).action).toBe('ask')
    expect((await bash('rm -f x')).action).toBe('deny')
  })

  it('a session in a subfolder is bound by the repository root’s deny and ask, not only the nearest file', async () => {
    const { repo, bash } = setUp({
      user: { trustProjects: true, permission: { bash: { 'git push': 'allow', 'rm -rf': 'allow' } } },
      project: {
        '': { permission: { bash: { 'rm -rf': 'deny', 'git push': 'ask' } } },
        pkg: { permission: { bash: { 'npm test': 'allow' } } },
      },
    })
    const sub = path.join(repo, 'pkg', 'deep')
    expect((await bash('rm -rf /', sub)).action).toBe('deny')
    expect((await bash('git push', sub)).action).toBe('ask')
    // The nearer file's own rules apply too (trusted here).
    expect((await bash('npm test', sub)).action).toBe('allow')
    // A nearer allow cannot override a farther deny: any deny wins.
    fs.writeFileSync(
      path.join(repo, 'pkg', '.tangent', 'config.json'),
      JSON.stringify({ permission: { bash: { 'rm -rf': 'allow' } } }),
    )
    expect((await bash('rm -rf /', sub)).action).toBe('deny')
  })

  it('an invalid project file anywhere up to the root fails closed, as does an invalid trustProjects', async () => {
    const { repo, userPath, bash } = setUp({
      project: { '': '{"permission": ', pkg: { permission: { bash: 'allow' } } },
    })
    const verdict = await bash('ls', path.join(repo, 'pkg'))
    expect(verdict.action).toBe('deny')
    expect(verdict.reason).toContain(path.join(repo, '.tangent', 'config.json'))
    fs.writeFileSync(path.join(repo, '.tangent', 'config.json'), '{}')
    fs.writeFileSync(userPath, JSON.stringify({ trustProjects: ['relative/folder'] }))
    const invalid = await bash('ls', path.join(repo, 'pkg'))
    expect(invalid.action).toBe('deny')
    expect(invalid.reason).toMatch(/trustProjects.*absolute/)
  })

  it('reads above a .git too: a .git the agent made in a subfolder hides no rule above it', async () => {
    const { repo, bash } = setUp({ project: { '': { permission: { bash: { rm: 'deny' } } } } })
    const planted = path.join(repo, 'pkg', 'deep')
    fs.mkdirSync(path.join(planted, '.git'), { recursive: true })
    fs.writeFileSync(path.join(planted, '.git', 'HEAD'), 'ref: refs/heads/main\n')
    expect((await bash('rm x', planted)).action).toBe('deny')
    // And a file above the repository binds it as well (only ask and deny, unless trusted).
    fs.mkdirSync(path.join(path.dirname(repo), '.tangent'))
    fs.writeFileSync(
      path.join(path.dirname(repo), '.tangent', 'config.json'),
      JSON.stringify({ permission: { bash: { curl: 'deny' } } }),
    )
    expect((await bash('curl x', repo)).action).toBe('deny')
  })
})
