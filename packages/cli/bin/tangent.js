#!/usr/bin/env node
// `tangent` as npm links it (node_modules/.bin/tangent, `npx tangent`). npm links a bin only if
// its file exists when it installs, and the CLI is built after that (`npm run build` makes
// dist/main.js, a bundle: docs/architecture.md §9), so the link points here and this runs it.
const built = new URL('../dist/main.js', import.meta.url)
try {
  await import(built.href)
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || error.url !== built.href) throw error
  process.stderr.write('tangent: the CLI is not built yet: run `npm run build` in the repository first\n')
  process.exitCode = 1
}
