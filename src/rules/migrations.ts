import { applyMigrations } from "../sqlite-migrations.ts";

/**
 * The rules publisher's SQLite schema (numbered, append-only; see src/sqlite-migrations.ts):
 * every kept version's document, the append-only history of publishes and rollbacks, and the
 * one row saying which version is live and whether KV's pointer says so yet (`mirrored`).
 */
const MIGRATIONS: readonly (readonly string[])[] = [
  [
    `CREATE TABLE versions (
       version TEXT PRIMARY KEY,
       document TEXT NOT NULL,
       meta TEXT NOT NULL
     )`,
    `CREATE TABLE history (
       seq INTEGER PRIMARY KEY,
       at INTEGER NOT NULL,
       action TEXT NOT NULL CHECK (action IN ('publish', 'rollback')),
       version TEXT NOT NULL,
       from_version TEXT
     )`,
    `CREATE TABLE live (
       singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
       current TEXT,
       previous TEXT,
       mirrored INTEGER NOT NULL
     )`,
    "INSERT INTO live (singleton, current, previous, mirrored) VALUES (1, NULL, NULL, 1)",
  ],
];

export function migrateRules(sql: SqlStorage): number {
  return applyMigrations(sql, MIGRATIONS);
}
