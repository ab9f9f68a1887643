// The engine's tables (docs/architecture.md §4) and their migrations. Applied at open under a
// transaction-scoped advisory lock, so two Hosts opening a fresh database at once apply them once.

import { TangentError } from '@tangent/core'
import type pg from 'pg'

/** Arbitrary, fixed: the advisory lock key of the migrations. */
const migrationLockKey = 7_361_825_014

interface Migration {
  version: number
  name: string
  sql: string
}

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'sessions, events, leases',
    sql: `
      CREATE TABLE sessions (
        id text PRIMARY KEY,
        header jsonb NOT NULL,
        parent_session text NULL,          -- lineage; no foreign key: a parent may be deleted
        forked_at integer NULL,
        inherited_event_count integer NOT NULL,
        -- the lowest seq held in this session's own rows: inherited_event_count for a fork by
        -- reference (the prefix is read from the parent), 0 once the prefix is inline
        own_from integer NOT NULL,
        event_count integer NOT NULL,
        title text NULL,
        model jsonb NULL,
        cwd text NOT NULL,
        origin text NOT NULL,
        archived boolean NOT NULL DEFAULT false,
        created_at double precision NOT NULL,
        updated_at double precision NOT NULL,
        fork_request_id text NULL UNIQUE
      );
      CREATE INDEX sessions_parent ON sessions (parent_session) WHERE parent_session IS NOT NULL;
      CREATE TABLE events (
        session_id text NOT NULL,
        seq integer NOT NULL,
        line text NOT NULL,                -- the event's exact JSON
        PRIMARY KEY (session_id, seq)
      );
      CREATE TABLE leases (
        session_id text PRIMARY KEY,
        holder text NOT NULL,
        token bigint NOT NULL,
        expires_at timestamptz NOT NULL
      );
      CREATE SEQUENCE lease_tokens;
    `,
  },
  {
    version: 2,
    name: 'snapshot objects',
    // The git objects of the sessions' snapshot trees, once each by id (snapshot-objects.ts,
    // docs/architecture.md §4 "Where snapshot objects live"). touched_at is when a Host last put
    // or found the object for a tree it is about to record: collect() spares what was touched
    // within its grace period, so an upload whose event is not written yet survives.
    sql: `
      CREATE TABLE snapshot_objects (
        id text PRIMARY KEY,               -- the git object id (40 hex)
        type text NOT NULL CHECK (type IN ('blob', 'tree')),
        data bytea NOT NULL,               -- the content without git's header
        bytes integer NOT NULL,            -- length(data), kept so sums need not read data
        created_at timestamptz NOT NULL DEFAULT now(),
        touched_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX snapshot_objects_touched ON snapshot_objects (touched_at);
    `,
  },
  {
    version: 3,
    name: 'session modes',
    // The latest `session/mode` of the session (its prefix's too), as `model` holds the latest
    // `model/selection`; NULL: none (the summary says `edit`). Logs from before had no such event.
    sql: `ALTER TABLE sessions ADD COLUMN mode text NULL;`,
  },
]

export const schemaVersion = migrations.at(-1)!.version

/** Applies the migrations not yet applied (a writer), or checks that the schema is current (a reader). */
export async function migrate(client: pg.ClientBase, readOnly: boolean, location: string): Promise<void> {
  if (readOnly) {
    const table = await client.query<{ exists: boolean }>(
      "SELECT to_regclass('tangent_migrations') IS NOT NULL AS exists",
    )
    const rows = table.rows[0]?.exists
      ? (
          await client.query<{ version: number }>(
            'SELECT coalesce(max(version), 0)::integer AS version FROM tangent_migrations',
          )
        ).rows
      : []
    const version = rows[0]?.version ?? null
    if (version === null || version < schemaVersion)
      throw new TangentError(
        'store-unreachable',
        `The database ${location} has no Tangent schema${version === null ? '' : ` of version ${schemaVersion} (it has ${version})`}: a read-only store does not create it. Open it once without read-only (tangent serve, or any writing command) to apply the migrations.`,
        { store: location },
      )
    if (version > schemaVersion) throw newerSchema(location, version)
    return
  }
  await client.query('BEGIN')
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [migrationLockKey])
    await client.query(
      `CREATE TABLE IF NOT EXISTS tangent_migrations (
         version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    )
    const { rows } = await client.query<{ version: number }>('SELECT version FROM tangent_migrations')
    const applied = new Set(rows.map((row) => row.version))
    const newest = Math.max(0, ...applied)
    if (newest > schemaVersion) throw newerSchema(location, newest)
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue
      await client.query(migration.sql)
      await client.query('INSERT INTO tangent_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ])
    }
    await client.query('COMMIT')
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined)
    throw error
  }
}

function newerSchema(location: string, version: number): TangentError {
  return new TangentError(
    'store-unreachable',
    `The database ${location} has Tangent schema version ${version}, newer than this Tangent knows (${schemaVersion}): upgrade Tangent.`,
    { store: location },
  )
}
