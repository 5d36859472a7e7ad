import { applyMigrations } from "../sqlite-migrations.ts";

/**
 * The stock shard's SQLite schema as numbered, append-only migrations: entry N (1-based) moves a
 * shard from schema version N-1 to N. Never edit a shipped entry; append a new one.
 */
export const MIGRATIONS: readonly (readonly string[])[] = [
  [
    // One row per tracked variant: on-hand units (held ones included) and units held by checkouts.
    `CREATE TABLE levels (
       variant_id TEXT PRIMARY KEY,
       quantity INTEGER NOT NULL,
       held INTEGER NOT NULL DEFAULT 0 CHECK (held >= 0),
       policy TEXT NOT NULL DEFAULT 'deny' CHECK (policy IN ('deny', 'continue')),
       -- The level the last publish wrote (what the catalog's own "available" was built from).
       published INTEGER,
       updated_at INTEGER NOT NULL
     )`,
    // Holds by the caller's id; lines below. Settled holds are kept (a late retry replays them).
    `CREATE TABLE holds (
       hold_id TEXT PRIMARY KEY,
       state TEXT NOT NULL CHECK (state IN ('held', 'released', 'committed')),
       created_at INTEGER NOT NULL,
       expires_at INTEGER,
       settled_at INTEGER,
       result TEXT
     )`,
    `CREATE TABLE hold_lines (
       hold_id TEXT NOT NULL,
       variant_id TEXT NOT NULL,
       quantity INTEGER NOT NULL CHECK (quantity > 0),
       PRIMARY KEY (hold_id, variant_id)
     )`,
    `CREATE INDEX holds_open_by_expiry ON holds (expires_at) WHERE state = 'held'`,
    `CREATE INDEX holds_settled ON holds (settled_at) WHERE state != 'held'`,
    // Set/adjust batches by the caller's id (an Idempotency-Key, a catalog version): a retry replays.
    `CREATE TABLE batches (
       batch_id TEXT PRIMARY KEY,
       fingerprint TEXT NOT NULL,
       result TEXT NOT NULL,
       created_at INTEGER NOT NULL
     )`,
    `CREATE INDEX batches_by_age ON batches (created_at)`,
    // Append-only: every change of a level or of held units, with who made it.
    `CREATE TABLE movements (
       seq INTEGER PRIMARY KEY AUTOINCREMENT,
       at INTEGER NOT NULL,
       variant_id TEXT NOT NULL,
       source TEXT NOT NULL,
       ref TEXT NOT NULL,
       kind TEXT NOT NULL,
       delta_quantity INTEGER NOT NULL,
       delta_held INTEGER NOT NULL,
       quantity INTEGER NOT NULL,
       held INTEGER NOT NULL
     )`,
    `CREATE INDEX movements_by_variant ON movements (variant_id, seq)`,
    `CREATE INDEX movements_by_age ON movements (at)`,
  ],
  [
    // The coordinator (the object named `stock/<shards>/publish`): versions whose levels are written.
    `CREATE TABLE synced_versions (
       version TEXT PRIMARY KEY,
       tracked INTEGER NOT NULL,
       changed INTEGER NOT NULL,
       at INTEGER NOT NULL
     )`,
  ],
  [
    // Each shard: its variants whose live stock differs from what the last publish wrote (the
    // catalog's own answer), pushed to the coordinator after every change (seq orders the pushes).
    `CREATE TABLE overlay (
       variant_id TEXT PRIMARY KEY,
       in_stock INTEGER NOT NULL,
       available INTEGER NOT NULL,
       base_in_stock INTEGER NOT NULL,
       base_available INTEGER NOT NULL
     )`,
    `CREATE TABLE overlay_push (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), seq INTEGER NOT NULL, dirty INTEGER NOT NULL)`,
    // The coordinator: every shard's last fragment, and what it last wrote to KV.
    `CREATE TABLE fragments (shard TEXT PRIMARY KEY, seq INTEGER NOT NULL, entries TEXT NOT NULL)`,
    `CREATE TABLE overlay_written (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), gen INTEGER NOT NULL, at INTEGER NOT NULL, digest TEXT NOT NULL)`,
    // A write held back by the one-a-second rule, done by the alarm.
    `CREATE TABLE overlay_pending (singleton INTEGER PRIMARY KEY CHECK (singleton = 1))`,
  ],
  [
    // 1: the operator started tracking the variant (a set on an untracked one): no catalog version
    // stops it. A level no publish wrote (published NULL) was always the operator's.
    `ALTER TABLE levels ADD COLUMN operator INTEGER NOT NULL DEFAULT 0`,
    `UPDATE levels SET operator = 1 WHERE published IS NULL`,
    // Whose checkout holds (the holder's cart object id): a level read for that holder counts its
    // own held units as its own.
    `ALTER TABLE holds ADD COLUMN owner TEXT`,
    `CREATE INDEX holds_open_by_owner ON holds (owner) WHERE state = 'held'`,
    // The newest catalog version (by its publish's place in the history) whose levels this shard
    // wrote: an older one going live again is a rollback, which never changes a level.
    `CREATE TABLE synced_seq (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), seq INTEGER NOT NULL)`,
    // A sync's whole result (written, kept, untracked), as JSON.
    `ALTER TABLE synced_versions ADD COLUMN detail TEXT`,
  ],
];

/** Brings `sql` up to the newest schema; returns the version it found (0: a new shard). */
export function migrateFrom(sql: SqlStorage): number {
  return applyMigrations(sql, MIGRATIONS);
}
