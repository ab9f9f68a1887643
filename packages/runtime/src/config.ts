// The config files (docs/architecture.md §12.1): the user's (`$TANGENT_CONFIG`, else
// `$XDG_CONFIG_HOME/tangent/config.json`, else `~/.config/tangent/config.json`) and the
// project's (every `.tangent/config.json` from a session's directory up to its repository root).
// Read on use and cached by mtime and size, so an edit applies to the next tool call. A project
// file can always make the user's rules stricter (ask, deny); it loosens them (allow) only when
// the user config trusts that project (`trustProjects`). Its hooks run only in the projects the
// user config lists in `trustProjectHooks` (session-hooks.ts), as its MCP servers only in those of
// `mcp.trustProjectServers`.
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import {
  HooksConfig,
  McpConfig,
  type PermissionConfig,
  type PermissionRule,
  rulesOf,
} from '@tangent/agent/light'
import { TangentError } from '@tangent/core'
import { lazySchema } from '@tangent/core/lazy-zod'
import type { z } from 'zod'

const Action = lazySchema((z) => z.enum(['allow', 'ask', 'deny']))
/** `true` (every project) or the folders (absolute) whose project files may allow, with their subfolders. */
const TrustProjects = lazySchema((z) =>
  z.union([
    z.boolean(),
    z.array(
      z
        .string()
        .min(1)
        .refine((folder) => path.isAbsolute(folder), 'must be an absolute folder path'),
    ),
  ]),
)
const PermissionSchema = lazySchema((z) =>
  z.record(z.string().min(1), z.union([Action, z.record(z.string().min(1), Action)])),
)

/** One config file. Unknown top-level keys are kept for other features and ignored here. */
export const TangentConfigFile = lazySchema((z) =>
  z
    .object({
      $schema: z.string().optional(),
      permission: PermissionSchema.optional(),
      /** Read only in the user config: the projects whose `allow` rules apply. */
      trustProjects: TrustProjects.optional(),
      /** MCP servers (docs/architecture.md §14.3). */
      mcp: McpConfig.optional(),
      /** Hooks on the session's life (docs/architecture.md §12.7). */
      hooks: HooksConfig.optional(),
      /** Read only in the user config: the projects whose hooks run. */
      trustProjectHooks: TrustProjects.optional(),
    })
    .passthrough(),
)
export type TangentConfigFile = z.infer<typeof TangentConfigFile>

export interface LoadedConfig {
  path: string
  config: TangentConfigFile
}

/** The rules that apply in a directory, and the project `allow` rules left out of them. */
export interface PermissionRuleSet {
  /** Highest precedence first: the project files nearest first, then the user file. */
  rules: PermissionRule[]
  /**
   * `rules` with the untrusted projects' allows kept in their place: what would apply if the
   * user trusted those projects (to say so when one would have allowed a call). Equal to `rules`
   * when nothing was left out.
   */
  rulesIfTrusted: PermissionRule[]
  /** The folders (holding `.tangent/`) whose allow rules were left out, nearest first. */
  untrustedFolders: string[]
}

/** The user config's path for an environment. */
export function userConfigPath(env: Record<string, string | undefined>, homeDir: string): string {
  if (env.TANGENT_CONFIG) return path.resolve(env.TANGENT_CONFIG)
  const base = env.XDG_CONFIG_HOME ? path.resolve(env.XDG_CONFIG_HOME) : path.join(homeDir, '.config')
  return path.join(base, 'tangent', 'config.json')
}

const maxConfigBytes = 1024 * 1024

export class ConfigFiles {
  readonly userPath: string
  readonly #cache = new Map<string, { stamp: string; loaded: LoadedConfig | null }>()

  constructor(options: { env: Record<string, string | undefined>; homeDir?: string }) {
    this.userPath = userConfigPath(options.env, options.homeDir ?? os.homedir())
  }

  /** The user config, or null when the file does not exist. Throws `invalid-config`. */
  user(): Promise<LoadedConfig | null> {
    return this.#read(this.userPath)
  }

  /** The nearest project config from `cwd` up to its repository root, or null. Throws `invalid-config`. */
  async project(cwd: string): Promise<LoadedConfig | null> {
    for (let dir = path.resolve(cwd); ; ) {
      const found = await this.#read(path.join(dir, '.tangent', 'config.json'))
      if (found) return found
      if (await exists(path.join(dir, '.git'))) return null
      const parent = path.dirname(dir)
      if (parent === dir) return null
      dir = parent
    }
  }

  /**
   * Every project config from `cwd` up to the file system's root, nearest first: a session in a
   * subfolder is bound by the repository's files too. Not only up to the repository root: the
   * agent can make a `.git` in any subfolder, and one must not hide the rules above it. Project
   * files only add `ask` and `deny` unless trusted, so reading those above is safe. Throws
   * `invalid-config` for any of them.
   */
  async projects(cwd: string): Promise<LoadedConfig[]> {
    const found: LoadedConfig[] = []
    for (let dir = path.resolve(cwd); ; ) {
      const loaded = await this.#read(path.join(dir, '.tangent', 'config.json'))
      if (loaded) found.push(loaded)
      const parent = path.dirname(dir)
      if (parent === dir) return found
      dir = parent
    }
  }

  /** The rules that apply in `cwd`, highest precedence first: project, then user. */
  async permissionRules(cwd: string): Promise<PermissionRuleSet> {
    const [projects, user] = await Promise.all([this.projects(cwd), this.user()])
    const trust = user?.config.trustProjects
    const rules: PermissionRule[] = []
    const rulesIfTrusted: PermissionRule[] = []
    const untrustedFolders: string[] = []
    for (const project of projects) {
      const folder = projectFolder(project.path)
      const own = rulesOf(project.config.permission as PermissionConfig | undefined, project.path)
      rulesIfTrusted.push(...own)
      if (trustsProjectFolder(trust, folder)) {
        rules.push(...own)
        continue
      }
      rules.push(...own.filter((rule) => rule.action !== 'allow'))
      if (own.some((rule) => rule.action === 'allow')) untrustedFolders.push(folder)
    }
    const userRules = rulesOf(
      user?.config.permission as PermissionConfig | undefined,
      user?.path ?? 'user config',
    )
    rules.push(...userRules)
    rulesIfTrusted.push(...userRules)
    return { rules, rulesIfTrusted, untrustedFolders }
  }

  async #read(file: string): Promise<LoadedConfig | null> {
    let stat: Awaited<ReturnType<typeof fs.stat>>
    try {
      stat = await fs.stat(file)
    } catch (error) {
      if (
        (error as NodeJS.ErrnoException).code === 'ENOENT' ||
        (error as NodeJS.ErrnoException).code === 'ENOTDIR'
      )
        return null
      throw invalidConfig(file, (error as Error).message)
    }
    if (!stat.isFile()) throw invalidConfig(file, 'not a regular file')
    if (stat.size > maxConfigBytes) throw invalidConfig(file, `larger than ${maxConfigBytes} bytes`)
    const stamp = `${stat.mtimeMs}:${stat.size}:${stat.ino}`
    const cached = this.#cache.get(file)
    if (cached?.stamp === stamp) return cached.loaded
    const bytes = await fs.readFile(file)
    let text: string
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
    } catch {
      throw invalidConfig(file, 'not valid UTF-8')
    }
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch (error) {
      throw invalidConfig(file, `not valid JSON (${(error as Error).message})`)
    }
    const parsed = TangentConfigFile.safeParse(json)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      throw invalidConfig(file, `${issue?.path.join('.') || '(top level)'}: ${issue?.message ?? 'invalid'}`)
    }
    const loaded = { path: file, config: parsed.data }
    this.#cache.set(file, { stamp, loaded })
    return loaded
  }
}

/** The folder a project config belongs to: the one holding its `.tangent/`. */
export function projectFolder(configPath: string): string {
  return path.dirname(path.dirname(configPath))
}

/**
 * Whether a trust list of the user config (`trustProjects`, `trustProjectHooks`,
 * `mcp.trustProjectServers`) covers a project folder (the one holding `.tangent/`): `true`, or
 * that folder listed exactly. Not the folders inside a listed one: the agent can write a
 * `.tangent/config.json` into any subfolder with bash, and trusting the project must not trust it.
 */
export function trustsProjectFolder(trust: boolean | readonly string[] | undefined, folder: string): boolean {
  if (trust === true) return true
  if (!Array.isArray(trust)) return false
  return trust.some((listed) => path.resolve(listed) === folder)
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.lstat(file)
    return true
  } catch {
    return false
  }
}

function invalidConfig(file: string, why: string): TangentError {
  return new TangentError('invalid-config', `Config file ${file} is not valid: ${why}. Fix or remove it.`, {
    path: file,
  })
}
