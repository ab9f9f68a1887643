// Crash during work (issue 6): the built `tangent serve` is SIGKILLed at seeded random moments
// while clients run turns (some with bash tool calls) and forks over WebSocket; after each
// restart every session loads, acknowledged turns are byte-identical, a running turn is
// closed as `interrupted`, and that session can be forked and prompted again.
import { describe, expect, it } from 'vitest'
import { runCrashTest } from '../soak/crash-driver.mjs'
import { proveSeed, proveSize } from '../soak/lib.mjs'

describe('prove: crash during work', () => {
  // 8 kills in `npm test`, 20 in `npm run soak -- --only prove` (and 200 in the crash soak).
  const kills = proveSize(8, 20)
  it(`survives ${kills} SIGKILLs of the Host mid-turn without losing or changing acknowledged events`, async () => {
    const seed = proveSeed('crash', 20261129)
    const report = await runCrashTest({ seed, kills, maxKillMs: 800 })
    console.log(`[prove] crash: ${JSON.stringify({ ...report, problems: report.problems.length })}`)
    expect(report.problems).toEqual([])
    expect(report.kills).toBe(kills)
    expect(report.acknowledgedTurns).toBeGreaterThan(kills)
    expect(report.acknowledgedForks).toBeGreaterThan(0)
    // Kills land mid-turn: turns were repaired as interrupted, and after each restart one such
    // session was forked at the interrupted turn and prompted again (the soak proves every one).
    expect(report.interruptedTurns).toBeGreaterThan(0)
    expect(report.provenAfterInterrupt).toBeGreaterThan(0)
  }, 400_000)
})
