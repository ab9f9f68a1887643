// The home directory of each agent Tangent imports from and exports to: what `tangent import --from`
// reads under (imports/claude-files.ts, imports/codex.ts, imports/pi-session-files.ts) and what a
// `ToolSessionFile.path` is relative to. Small and without dependencies: the CLI loads it at start.
import { join } from 'node:path'
import type { ToolExportFormat } from './exports/export-types.js'

export interface ToolHomeEnvironment {
  HOME?: string
  CLAUDE_CONFIG_DIR?: string
  CODEX_HOME?: string
  PI_CODING_AGENT_DIR?: string
}

/** `~/.claude` (or `$CLAUDE_CONFIG_DIR`), `~/.codex` (or `$CODEX_HOME`), `~/.pi/agent` (or `$PI_CODING_AGENT_DIR`); null without HOME. */
export function toolHomeDir(tool: ToolExportFormat, env: ToolHomeEnvironment): string | null {
  switch (tool) {
    case 'claude':
      return env.CLAUDE_CONFIG_DIR || (env.HOME ? join(env.HOME, '.claude') : null)
    case 'codex':
      return env.CODEX_HOME || (env.HOME ? join(env.HOME, '.codex') : null)
    case 'pi':
      return env.PI_CODING_AGENT_DIR
        ? expandHome(env.PI_CODING_AGENT_DIR, env.HOME)
        : env.HOME
          ? join(env.HOME, '.pi', 'agent')
          : null
  }
}

/** `~` and `~/…` under HOME (pi's own settings and variables may say them). */
export function expandHome(path: string, home: string | undefined): string {
  if (home && path === '~') return home
  if (home && path.startsWith('~/')) return join(home, path.slice(2))
  return path
}

/** pi's directory name for the sessions of `cwd` (its `getDefaultSessionDir`), under `<agent dir>/sessions`. */
export function piSessionDirName(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, '').replace(/[/\\:]/g, '-')}--`
}
