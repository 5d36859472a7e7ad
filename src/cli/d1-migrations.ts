import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Where the orders database's numbered migrations live (wrangler.toml `migrations_dir`). */
export const ORDERS_MIGRATIONS_DIR = "src/checkout/migrations";

/** A migration file's statements: comments dropped, split at each `;` that ends a line. */
export function statementsOf(sql: string): string[] {
  return sql
    .split("\n")
    .filter((line) => !line.trim().startsWith("--"))
    .join("\n")
    .split(/;\s*(?:\n|$)/)
    .map((statement) => statement.trim())
    .filter((statement) => statement !== "");
}

/**
 * Applies the migrations of `dir` that `db` has not seen, in file-name order, each in one batch
 * (one transaction), recording each in `d1_migrations` exactly as `wrangler d1 migrations apply`
 * does, so either may run after the other. Answers the names it applied.
 */
export async function applyD1Migrations(db: D1Database, dir: string = ORDERS_MIGRATIONS_DIR): Promise<string[]> {
  await db.batch([
    db.prepare(
      `CREATE TABLE IF NOT EXISTS d1_migrations (
         id INTEGER PRIMARY KEY AUTOINCREMENT,
         name TEXT UNIQUE,
         applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL
       )`,
    ),
  ]);
  const { results } = await db.prepare("SELECT name FROM d1_migrations").all<{ name: string }>();
  const done = new Set(results.map((row) => row.name));
  const applied: string[] = [];
  for (const name of readdirSync(dir)
    .filter((file) => file.endsWith(".sql"))
    .sort()) {
    if (done.has(name)) continue;
    const statements = statementsOf(readFileSync(join(dir, name), "utf8"));
    await db.batch([
      ...statements.map((statement) => db.prepare(statement)),
      db.prepare("INSERT INTO d1_migrations (name) VALUES (?)").bind(name),
    ]);
    applied.push(name);
  }
  return applied;
}
