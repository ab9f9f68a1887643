// `tangent models`: which models can run here, and what to set for the others; and whether the
// bash tool runs sandboxed (docs/architecture.md §12.2).
import { describeSandboxStatus } from '@tangent/agent/light'
import type { Command } from 'commander'
import type { HostInfo, ModelStatus } from '../backend.js'
import type { CliContext } from '../context.js'
import { hostEnvironmentReason } from '../host-environment.js'
import { withBackend } from '../open-backend.js'
import { printJson, printLines } from '../output.js'
import { type Style, safeLine, styleFor } from '../render/style.js'

export function registerModelsCommand(program: Command, context: CliContext): void {
  program
    .command('models')
    .description('List models: available ones, and why the others are not; and whether bash is sandboxed')
    .option('--json', 'print [{id, available, reason?}]')
    .action(async (flags: { json?: boolean }) => {
      const { info, host } = await withBackend(context, { readOnly: true }, async (backend) => ({
        info: await backend.info(),
        host: { kind: backend.kind, hostPid: backend.hostPid },
      }))
      if (flags.json) return printJson(context, info.models)
      const style = styleFor(context.stdout, context.env)
      // Through a Host, what is missing is missing from the Host's environment.
      const models = info.models.map((model) =>
        model.reason === undefined
          ? model
          : { ...model, reason: hostEnvironmentReason(model.reason, host, context.env) },
      )
      printLines(context, [...modelLines(models, style), '', sandboxLine(info, style)])
    })
}

/** One line per model: ✓ id, or ✗ id and what to configure. */
export function modelLines(models: readonly ModelStatus[], style: Style): string[] {
  const ids = models.map((model) => safeLine(model.id))
  const width = Math.max(...ids.map((id) => id.length), 0)
  return models.map((model, index) =>
    model.available
      ? `${style.green('✓')} ${ids[index]}`
      : `${style.red('✗')} ${ids[index]!.padEnd(width)}  ${style.dim(safeLine(model.reason ?? 'unavailable'))}`,
  )
}

/** `bash: sandboxed (bubblewrap)` or `bash: NOT sandboxed: <why>`, marked ✓ or ✗ as the models are. */
export function sandboxLine(info: HostInfo, style: Style): string {
  if (info.sandbox === undefined)
    return `${style.dim('?')} bash: this Host does not say whether it is sandboxed`
  const mark = info.sandbox.bash === 'sandboxed' ? style.green('✓') : style.red('✗')
  return `${mark} bash: ${safeLine(describeSandboxStatus(info.sandbox))}`
}
