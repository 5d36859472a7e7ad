/**
 * The one runner of a SQLite Durable Object's numbered, append-only migrations (the cart's, a
 * stock shard's, a holder's checkouts'): entry N (1-based) moves the database from schema version
 * N-1 to N, and the applied version is stored in the object itself (`schema_version`), so each
 * object upgrades itself the first time it wakes after a deploy. Run it inside
 * `blockConcurrencyWhile` in the constructor.
 *
 * `current`, when given, creates the newest schema at once in a new database (version 0), instead of
 * replaying every step: a new cart or checkout holder is made on a shopper's first write, and
 * replaying the steps' table rebuilds and ALTERs cost that write more than its own work. It must make
 * exactly what the migrations make (same tables, columns in the same order, constraints, indexes):
 * `sameSchema` in test/helpers/sqlite-schema.ts checks each room's. Without it a new database runs
 * every step's statements in order and writes the newest version once (not a version per step:
 * four fewer writes of a new holder's checkouts object). An existing database is brought up to
 * date by the steps, its version written after each.
 *
 * `versionTable` names the table the version is kept in: two rooms can share one database (a
 * cart's object keeps its holder's checkouts too), each with its own steps and its own version.
 *
 * Returns the version it found: 0 for a new database, whose tables are then known to be empty.
 */
export function applyMigrations(
  sql: SqlStorage,
  migrations: readonly (readonly string[])[],
  current?: readonly string[],
  versionTable = "schema_version",
): number {
  sql.exec(`CREATE TABLE IF NOT EXISTS ${versionTable} (version INTEGER NOT NULL)`);
  const row = sql.exec<{ version: number }>(`SELECT version FROM ${versionTable}`).toArray()[0];
  if (!row) {
    // A new database: the newest schema and its version in one `exec` (a call per statement cost
    // a new cart or holder's first checkout more). The constructor's writes commit together, so a
    // version per step (a write each) would buy nothing here.
    const schema = [
      ...(current ?? migrations.flat()),
      `INSERT INTO ${versionTable} (version) VALUES (${migrations.length})`,
    ];
    // Each `;` on a line of its own: a statement ending in a `--` comment cannot swallow it.
    sql.exec(schema.join("\n;\n"));
    return 0;
  }
  for (let version = row.version; version < migrations.length; ) {
    for (const statement of migrations[version] ?? []) sql.exec(statement);
    version += 1;
    sql.exec(`UPDATE ${versionTable} SET version = ?`, version);
  }
  return row.version;
}
