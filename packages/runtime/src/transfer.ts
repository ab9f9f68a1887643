// @tangent/runtime/transfer: what only the CLI's `import`, `export` and `migrate` commands use
// (detecting and ordering other agents' session files, the bundle format, tool export formats,
// migrating between stores). Not in the package's main entry: every CLI command loads that entry's
// code (`tangent show` its whole static closure, scripts/postbuild.mjs), and these modules are
// ~80 KB of it that `show` and `sessions` never run (docs/benchmarks.md, issue 33, stop 21). The
// runtime itself loads them on first use (runtime.ts, runtime-modules.ts).
export {
  type BundleDescription,
  type BundleSessionHeader,
  bundleFormatName,
  bundleFormatVersion,
  isBundleFirstLine,
  parseBundle,
} from './bundle-format.js'
export {
  isToolExportFormat,
  type ToolExportFormat,
  type ToolSessionFile,
  toolExportFormats,
} from './exports/export-types.js'
export { detectImportSource, type ImportDetector, importDetectors } from './imports/detect.js'
export { toolSessionFiles } from './imports/import-file.js'
export { sessionFileFirstLine } from './imports/import-lines.js'
export { importOrder } from './imports/import-order.js'
export { type MigrateOptions, type MigrateResult, migrateSessions } from './migrate.js'
