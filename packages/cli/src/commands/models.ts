// `tangent models`: which models can run here, and what to set for the others.
import type { Command } from 'commander'
import type { CliContext } from '../context.js'
import { withBackend } from '../open-backend.js'
import { printJson, printLines } from '../output.js'
import { styleFor } from '../render/style.js'

export function registerModelsCommand(program: Command, context: CliContext): void {
  program
    .command('models')
    .description('List models: available ones, and why the others are not')
    .option('--json', 'print [{id, available, reason?}]')
    .action(async (flags: { json?: boolean }) => {
      const models = await withBackend(context, { readOnly: true }, (backend) => backend.models())
      if (flags.json) return printJson(context, models)
      const style = styleFor(context.stdout, context.env)
      const width = Math.max(...models.map((model) => model.id.length), 0)
      printLines(
        context,
        models.map((model) =>
          model.available
            ? `${style.green('✓')} ${model.id}`
            : `${style.red('✗')} ${model.id.padEnd(width)}  ${style.dim(model.reason ?? 'unavailable')}`,
        ),
      )
    })
}
