// The config files (docs/architecture.md §12.1): the user's (`$TANGENT_CONFIG`, else
// `$XDG_CONFIG_HOME/tangent/config.json`, else `~/.config/tangent/config.json`) and the
// project's (the nearest `.tangent/config.json` from a session's directory up to its repository
// root). Read on use and cached by mtime and size, so an edit applies to the next tool call.
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { McpConfig, type PermissionConfig, type PermissionRule, rulesOf } from '@tangent/agent/light'
import { TangentError } from '@tangent/core'
import { lazySchema } from '@tangent/core/lazy-zod'
import type { z } from 'zod'

const Action = lazySchema((z) => z.enum(['allow', 'ask', 'deny']))
const PermissionSchema = lazySchema((z) =>
  z.record(z.string().min(1), z.union([Action, z.record(z.string().min(1), Action)])),
)

/** One config file. Unknown top-level keys are kept for other features and ignored here. */
export const TangentConfigFile = lazySchema((z) =>
  z
    .object({
      $schema: z.string().optional(),
      permission: PermissionSchema.optional(),
      /** MCP servers (docs/architecture.md §14.3). */
      mcp: McpConfig.optional(),
    })
    .passthrough(),
)
export type TangentConfigFile = z.infer<typeof TangentConfigFile>

export interface LoadedConfig {
  path: string
  config: TangentConfigFile
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

  /** The rules that apply in `cwd`, highest precedence first: project, then user. */
  async permissionRules(cwd: string): Promise<PermissionRule[]> {
    const [project, user] = await Promise.all([this.project(cwd), this.user()])
    return [
      ...rulesOf(
        project?.config.permission as PermissionConfig | undefined,
        project?.path ?? 'project config',
      ),
      ...rulesOf(user?.config.permission as PermissionConfig | undefined, user?.path ?? 'user config'),
    ]
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
