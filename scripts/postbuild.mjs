// After `tsc -b`: make the CLI's entry executable (tsc does not keep file modes),
// so `npx tangent` and the `tangent` bin link work from a fresh clone.
import { chmodSync, existsSync } from 'node:fs'

const bin = 'packages/cli/dist/main.js'
if (!existsSync(bin)) {
  console.error(`postbuild: ${bin} is missing: did tsc -b fail?`)
  process.exit(1)
}
chmodSync(bin, 0o755)
