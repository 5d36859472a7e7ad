/**
 * The one runner of a SQLite Durable Object's numbered, append-only migrations (the cart's, a
 * stock shard's, a holder's checkouts'): entry N (1-based) moves the database from schema version
 * N-1 to N, and the applied version is stored in the object itself (`schema_version`), so each
 * object upgrades itself the first time it wakes after a deploy. Run it inside
 * `blockConcurrencyWhile` in the constructor.
 *
 * Returns the version it found: 0 for a new database, whose tables are then known to be empty.
 */
export function applyMigrations(sql: SqlStorage, migrations: readonly (readonly string[])[]): number {
  sql.exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
  const row = sql.exec<{ version: number }>("SELECT version FROM schema_version").toArray()[0];
  const found = row?.version ?? 0;
  let version = found;
  if (!row) sql.exec("INSERT INTO schema_version (version) VALUES (0)");
  while (version < migrations.length) {
    for (const statement of migrations[version] ?? []) sql.exec(statement);
    version += 1;
    sql.exec("UPDATE schema_version SET version = ?", version);
  }
  return found;
}
