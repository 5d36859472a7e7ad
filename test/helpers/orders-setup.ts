import { applyD1Migrations, type D1Migration, env } from "cloudflare:test";

/** vitest.config.ts reads src/checkout/migrations into this binding. */
const migrations = (env as unknown as { ORDERS_MIGRATIONS: D1Migration[] }).ORDERS_MIGRATIONS;

// The orders database as `wrangler d1 migrations apply` leaves it (src/checkout/migrations).
// Safe to run before every file: applied migrations are recorded and skipped.
await applyD1Migrations(env.ORDERS, migrations);
