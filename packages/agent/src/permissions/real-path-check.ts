// The file tools' check at open time (docs/architecture.md §12.1): the permission was decided for
// a path's real location; by the time the tool opens it a link may lead elsewhere. The tool
// calls this with the real path it is about to open, before creating or opening anything.
import { TangentError } from '@tangent/core'
import type { PathAccess } from '../confine-path.js'

/**
 * The runtime's guard on a real path (relative to `cwd`): deny rules and the folders no tool
 * writes. Contract: resolves when the access may go ahead, throws (a TangentError the model
 * reads) to refuse.
 */
export type PathGuard = (request: {
  toolName: string
  cwd: string
  /** Real path relative to `cwd`, `/`-separated (`.` for the cwd). */
  path: string
  access: PathAccess
}) => Promise<void>

/**
 * The `ToolContext.checkRealPath` of one call: refuses a real path other than `approved` (the
 * one the decision saw, `PermissionVerdict.realPath`) — or, for what `list` and `grep` walk,
 * not beneath it — then asks `guard`. Undefined when there is nothing to check.
 */
export function realPathCheck(
  toolName: string,
  cwd: string,
  approved: string | undefined,
  guard: PathGuard | undefined,
): ((relative: string, access: PathAccess, walked?: boolean) => Promise<void>) | undefined {
  if (approved === undefined && guard === undefined) return undefined
  return async (relative, access, walked = false) => {
    const beneath = approved === '.' || relative.startsWith(`${approved}/`)
    if (approved !== undefined && relative !== approved && !(walked && beneath)) {
      throw new TangentError(
        'tool-failed',
        `Refused: the path now leads to ${relative}, not to ${approved} as when its permission was decided (a link changed meanwhile). Nothing was opened.`,
        { path: relative, approved },
      )
    }
    await guard?.({ toolName, cwd, path: relative, access })
  }
}
