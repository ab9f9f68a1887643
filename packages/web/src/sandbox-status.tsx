// Whether the Host runs the bash tool in an OS sandbox (host.info `sandbox`,
// docs/architecture.md §12.2): said in words, the reason beside it when it is not.
import { useHost } from './use-host.js'
import type { HostInfo } from './wire.js'

export function SandboxStatus() {
  const sandbox = useHost((state) => state.info?.sandbox)
  if (sandbox === undefined) return null
  const text = sandboxText(sandbox)
  return (
    <p className={`sandbox-status sandbox-${sandbox.bash}`} data-testid="sandbox-status" title={text}>
      {text}
    </p>
  )
}

export function sandboxText(sandbox: NonNullable<HostInfo['sandbox']>): string {
  if (sandbox.bash === 'sandboxed') return `bash runs sandboxed (${sandbox.kind ?? 'OS sandbox'})`
  const reason = sandbox.reason ? `: ${sandbox.reason}` : ''
  if (sandbox.bash === 'refused') return `bash is refused, no sandbox${reason}`
  return `bash runs NOT sandboxed${reason}`
}
