// @tangent/store-postgres: the store contract (docs/architecture.md §4) on PostgreSQL.
export { PostgresStore, type PostgresStoreOptions } from './postgres-store.js'
export { PgSnapshotObjects, parseTree, treeReferencePattern } from './snapshot-objects.js'
