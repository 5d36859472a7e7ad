import { applyMigrations } from "../sqlite-migrations.ts";

/**
 * The cart's SQLite schema as numbered, append-only migrations: entry N (1-based) moves a cart
 * from schema version N-1 to N. Never edit a shipped entry; append a new one. The applied
 * version is stored in the object itself (`schema_version`), so each cart upgrades itself the
 * first time it wakes up after a deploy.
 */
export const MIGRATIONS: readonly (readonly string[])[] = [
  [
    `CREATE TABLE cart (
       singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
       created_at INTEGER NOT NULL,
       updated_at INTEGER NOT NULL,
       expires_at INTEGER NOT NULL
     )`,
    `CREATE TABLE cart_lines (
       id TEXT PRIMARY KEY,
       variant_id TEXT NOT NULL UNIQUE,
       position INTEGER NOT NULL,
       quantity INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 999),
       handle TEXT NOT NULL,
       title TEXT NOT NULL,
       variant_title TEXT NOT NULL,
       unit_price_minor INTEGER NOT NULL CHECK (unit_price_minor >= 0),
       currency TEXT NOT NULL,
       available INTEGER NOT NULL,
       catalog_version TEXT NOT NULL
     )`,
    `CREATE TABLE revoked_tokens (token_id TEXT PRIMARY KEY, revoked_at INTEGER NOT NULL)`,
    `CREATE TABLE idempotency_keys (
       key TEXT PRIMARY KEY,
       fingerprint TEXT NOT NULL,
       reply TEXT NOT NULL,
       created_at INTEGER NOT NULL
     )`,
    `CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at)`,
  ],
  // 2: the cart's note and attributes, and line attributes (contract 9.2). A line is now one
  // variant with one set of attributes (canonical JSON, keys sorted), so `cart_lines` is rebuilt:
  // SQLite cannot drop the column-level UNIQUE of `variant_id`. Existing lines get `{}`.
  [
    `ALTER TABLE cart ADD COLUMN note TEXT`,
    `ALTER TABLE cart ADD COLUMN attributes TEXT NOT NULL DEFAULT '{}'`,
    `CREATE TABLE cart_lines_v2 (
       id TEXT PRIMARY KEY,
       variant_id TEXT NOT NULL,
       attributes TEXT NOT NULL DEFAULT '{}',
       position INTEGER NOT NULL,
       quantity INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 999),
       handle TEXT NOT NULL,
       title TEXT NOT NULL,
       variant_title TEXT NOT NULL,
       unit_price_minor INTEGER NOT NULL CHECK (unit_price_minor >= 0),
       currency TEXT NOT NULL,
       available INTEGER NOT NULL,
       catalog_version TEXT NOT NULL,
       UNIQUE (variant_id, attributes)
     )`,
    `INSERT INTO cart_lines_v2 (id, variant_id, attributes, position, quantity, handle, title, variant_title,
       unit_price_minor, currency, available, catalog_version)
     SELECT id, variant_id, '{}', position, quantity, handle, title, variant_title, unit_price_minor, currency,
       available, catalog_version FROM cart_lines`,
    `DROP TABLE cart_lines`,
    `ALTER TABLE cart_lines_v2 RENAME TO cart_lines`,
  ],
  // 3: live stock (section 9.3).
  [
    // Live stock (section 9.3): whether the line's variant is tracked, and whether its quantity
    // was still covered by what was left when the cart last read the Stock object.
    "ALTER TABLE cart_lines ADD COLUMN tracked INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE cart_lines ADD COLUMN in_stock INTEGER NOT NULL DEFAULT 1",
  ],
  // 4: what a cart drawer shows of a line (issue 42 point 16) and what pricing reads of it
  // (contract 10.2-10.4), from the catalog's variant record; the shopper's buyer, shipping option
  // and discount codes. Existing lines are marked stale (catalog_version ''), so the next read
  // re-prices them from the catalog and fills the new columns.
  [
    "ALTER TABLE cart_lines ADD COLUMN options TEXT NOT NULL DEFAULT '{}'",
    "ALTER TABLE cart_lines ADD COLUMN sku TEXT",
    "ALTER TABLE cart_lines ADD COLUMN image TEXT",
    "ALTER TABLE cart_lines ADD COLUMN compare_at_minor INTEGER",
    "ALTER TABLE cart_lines ADD COLUMN requires_shipping INTEGER NOT NULL DEFAULT 1",
    "ALTER TABLE cart_lines ADD COLUMN weight_grams INTEGER",
    "ALTER TABLE cart_lines ADD COLUMN collections TEXT NOT NULL DEFAULT '[]'",
    "UPDATE cart_lines SET catalog_version = ''",
    "ALTER TABLE cart ADD COLUMN buyer TEXT",
    "ALTER TABLE cart ADD COLUMN shipping_option TEXT",
    "ALTER TABLE cart ADD COLUMN discount_codes TEXT NOT NULL DEFAULT '[]'",
  ],
];

/**
 * The newest schema as one step, for a new cart (applyMigrations' `current`): what MIGRATIONS
 * make, columns in the same order (test/cart/migrations.test.ts compares them). A new migration
 * changes this too.
 */
export const CURRENT_SCHEMA: readonly string[] = [
  `CREATE TABLE cart (
     singleton INTEGER PRIMARY KEY CHECK (singleton = 1), created_at INTEGER NOT NULL,
     updated_at INTEGER NOT NULL, expires_at INTEGER NOT NULL, note TEXT,
     attributes TEXT NOT NULL DEFAULT '{}', buyer TEXT, shipping_option TEXT,
     discount_codes TEXT NOT NULL DEFAULT '[]'
   )`,
  `CREATE TABLE revoked_tokens (token_id TEXT PRIMARY KEY, revoked_at INTEGER NOT NULL)`,
  `CREATE TABLE idempotency_keys (
     key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, reply TEXT NOT NULL, created_at INTEGER NOT NULL
   )`,
  `CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at)`,
  `CREATE TABLE cart_lines (
     id TEXT PRIMARY KEY, variant_id TEXT NOT NULL, attributes TEXT NOT NULL DEFAULT '{}',
     position INTEGER NOT NULL, quantity INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 999),
     handle TEXT NOT NULL, title TEXT NOT NULL, variant_title TEXT NOT NULL,
     unit_price_minor INTEGER NOT NULL CHECK (unit_price_minor >= 0), currency TEXT NOT NULL,
     available INTEGER NOT NULL, catalog_version TEXT NOT NULL, tracked INTEGER NOT NULL DEFAULT 0,
     in_stock INTEGER NOT NULL DEFAULT 1, options TEXT NOT NULL DEFAULT '{}', sku TEXT, image TEXT,
     compare_at_minor INTEGER, requires_shipping INTEGER NOT NULL DEFAULT 1, weight_grams INTEGER,
     collections TEXT NOT NULL DEFAULT '[]',
     UNIQUE (variant_id, attributes)
   )`,
];

/** Brings `sql` up to the newest schema and returns its version. */
export function migrate(sql: SqlStorage): number {
  migrateFrom(sql);
  return MIGRATIONS.length;
}

/**
 * Brings `sql` up to the newest schema and returns the version it found: 0 for a new database,
 * whose tables are then known to be empty. Runs inside `blockConcurrencyWhile` in the constructor.
 */
export function migrateFrom(sql: SqlStorage): number {
  return applyMigrations(sql, MIGRATIONS, CURRENT_SCHEMA);
}
