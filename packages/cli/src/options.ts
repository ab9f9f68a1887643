// Flag parsers shared by commands. Values that do not parse are bad usage (exit 2).
import { lazySchema } from '@tangent/core/lazy-zod'
import { InvalidArgumentError } from 'commander'
import type { z } from 'zod'

const SeqFlag = lazySchema((z) =>
  z.string().regex(/^\d+$/, 'expected a non-negative integer seq').transform(Number),
)
const portMessage = 'expected a port number from 0 to 65535'
const PortFlag = lazySchema((z) =>
  z
    .string()
    .regex(/^\d+$/, portMessage)
    .transform(Number)
    .pipe(z.number().int().min(0, portMessage).max(65535, portMessage)),
)

const CountFlag = lazySchema((z) =>
  z
    .string()
    .regex(/^\d+$/, 'expected a whole number from 1 to 8')
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(1, 'expected a whole number from 1 to 8')
        .max(8, 'expected a whole number from 1 to 8'),
    ),
)

/** Commander parser for `-n N` / `--concurrency N` of explore (1–8, as session.explore takes). */
export function parseBranchCount(value: string): number {
  return parseWith(CountFlag, value)
}

/** Commander parser for `--at SEQ` / `--to SEQ`. */
export function parseSeq(value: string): number {
  return parseWith(SeqFlag, value)
}

export function parsePort(value: string): number {
  return parseWith(PortFlag, value)
}

function parseWith<T>(schema: z.ZodType<T, string>, value: string): T {
  const result = schema.safeParse(value)
  if (!result.success) {
    throw new InvalidArgumentError(result.error.issues[0]?.message ?? 'invalid value')
  }
  return result.data
}

/** Options every command accepts. */
export interface JsonFlag {
  json?: boolean
}
