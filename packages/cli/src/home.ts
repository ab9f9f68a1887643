// Where Tangent keeps its data: TANGENT_HOME, else $XDG_DATA_HOME/tangent, else ~/.local/share/tangent.
import os from 'node:os'
import path from 'node:path'

export function resolveHome(env: Record<string, string | undefined>): string {
  if (env.TANGENT_HOME) return path.resolve(env.TANGENT_HOME)
  if (env.XDG_DATA_HOME) return path.resolve(env.XDG_DATA_HOME, 'tangent')
  return path.join(env.HOME ?? os.homedir(), '.local', 'share', 'tangent')
}
