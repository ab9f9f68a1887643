// @tangent/store-jsonl: durable JSONL persistence for a SessionStore: fork by reference,
// group commit, crash repair, one writer, a catalog.
export { CatalogEntry, readStoredCatalog } from './catalog-format.js'
export { JsonlStore, type JsonlStoreOptions } from './jsonl-store.js'
export { SessionEventLine, SessionHeaderLine } from './log-format.js'
export type { ModelRef } from './log-scan.js'
export type { StoreWarning } from './store-errors.js'
export { LockHolder } from './writer-lock.js'
