import { applyMigrations } from "../../src/sqlite-migrations.ts";

/** A statement's text without what does not change its meaning: quotes around names, spacing. */
function normalised(sql: string | null): string | null {
  return sql === null
    ? null
    : sql
        .replaceAll('"', "")
        .replace(/\s+/g, " ")
        .replace(/\( /g, "(")
        .replace(/ ([),])/g, "$1");
}

/**
 * What a database's schema is, as SQLite itself reports it: every table and index with its
 * statement (normalised), each table's columns in order (type, NOT NULL, default, key) and each
 * index's columns. Internal tables (`sqlite_*`, workerd's `_cf_*`) are left out.
 */
export function schemaOf(sql: SqlStorage): Record<string, unknown> {
  const objects = sql
    .exec<{ type: string; name: string; tbl_name: string; sql: string | null }>(
      "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' ORDER BY name",
    )
    .toArray();
  const out: Record<string, unknown> = {};
  for (const o of objects) {
    const detail =
      o.type === "table"
        ? sql.exec(`PRAGMA table_xinfo("${o.name}")`).toArray()
        : sql.exec(`PRAGMA index_xinfo("${o.name}")`).toArray();
    out[`${o.type} ${o.name}`] = { on: o.tbl_name, sql: normalised(o.sql), detail };
  }
  for (const t of objects.filter((o) => o.type === "table"))
    out[`indexes of ${t.name}`] = sql.exec(`PRAGMA index_list("${t.name}")`).toArray();
  return out;
}

/** Drops every table of the database but SQLite's and workerd's own, so migrations start from nothing. */
export function dropAll(sql: SqlStorage): void {
  const tables = sql
    .exec<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'",
    )
    .toArray();
  for (const { name } of tables) sql.exec(`DROP TABLE "${name}"`);
}

/**
 * The schema the numbered migrations make from nothing, and the one `current` makes at once, in the
 * same database one after the other (applyMigrations' two paths for a new database).
 */
export function bothWays(
  sql: SqlStorage,
  migrations: readonly (readonly string[])[],
  current: readonly string[],
): { stepByStep: Record<string, unknown>; atOnce: Record<string, unknown>; versions: number[] } {
  const version = () => sql.exec<{ version: number }>("SELECT version FROM schema_version").one().version;
  dropAll(sql);
  applyMigrations(sql, migrations);
  const stepByStep = schemaOf(sql);
  const stepVersion = version();
  dropAll(sql);
  const found = applyMigrations(sql, migrations, current);
  return { stepByStep, atOnce: schemaOf(sql), versions: [stepVersion, version(), found] };
}
