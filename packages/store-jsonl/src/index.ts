// @tangent/store-jsonl: Durable JSONL persistence for a SessionStore: fork by reference, group commit, crash repair, lock, catalog.
export {}
