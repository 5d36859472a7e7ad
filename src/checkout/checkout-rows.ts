import { applyMigrations } from "../sqlite-migrations.ts";
import type { CheckoutStatus } from "./api.ts";
import type { CompletedBy, FrozenLine } from "./orders.ts";

/**
 * The checkout object's SQLite schema as numbered, append-only migrations (entry N moves a
 * database from version N-1 to N; never edit a shipped entry).
 */
const MIGRATIONS: readonly (readonly string[])[] = [
  [
    `CREATE TABLE holder (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), holder TEXT NOT NULL)`,
    `CREATE TABLE checkouts (
       id TEXT PRIMARY KEY,
       status TEXT NOT NULL CHECK (status IN ('open', 'completed', 'expired', 'canceled')),
       content TEXT NOT NULL,
       return_url TEXT,
       url TEXT,
       created_at INTEGER NOT NULL,
       expires_at INTEGER NOT NULL,
       payment TEXT,
       order_id TEXT,
       settled_at INTEGER
     )`,
    `CREATE INDEX checkouts_by_status ON checkouts (status, expires_at)`,
    `CREATE TABLE idempotency_keys (
       key TEXT PRIMARY KEY,
       fingerprint TEXT NOT NULL,
       reply TEXT NOT NULL,
       created_at INTEGER NOT NULL
     )`,
  ],
  [
    // The holder's hold window per variant it held (hold-windows.ts): holds cannot be hoarded.
    `CREATE TABLE hold_windows (
       variant_id TEXT PRIMARY KEY,
       started_at INTEGER NOT NULL,
       ends_at INTEGER NOT NULL
     )`,
  ],
];

/** Brings `sql` up to the newest schema. */
export function migrateCheckouts(sql: SqlStorage): void {
  applyMigrations(sql, MIGRATIONS);
}

/** What a checkout froze: its lines priced at the live catalog, and the cart's note and attributes. */
export interface CheckoutContent {
  lines: FrozenLine[];
  currency: string;
  note: string | null;
  attributes: Record<string, string>;
}

/** How a checkout was paid: recorded before the order is written, so a crash mid-way resumes it. */
export interface Payment {
  reference: string;
  by: CompletedBy;
  at: number;
}

export interface CheckoutRecord {
  id: string;
  status: CheckoutStatus;
  content: CheckoutContent;
  return_url: string | null;
  url: string | null;
  created_at: number;
  expires_at: number;
  payment: Payment | null;
  order_id: string | null;
}

interface Row extends Record<string, SqlStorageValue> {
  id: string;
  status: CheckoutStatus;
  content: string;
  return_url: string | null;
  url: string | null;
  created_at: number;
  expires_at: number;
  payment: string | null;
  order_id: string | null;
}

function toRecord(row: Row): CheckoutRecord {
  return {
    id: row.id,
    status: row.status,
    content: JSON.parse(row.content) as CheckoutContent,
    return_url: row.return_url,
    url: row.url,
    created_at: row.created_at,
    expires_at: row.expires_at,
    payment: row.payment ? (JSON.parse(row.payment) as Payment) : null,
    order_id: row.order_id,
  };
}

/** The checkout object's rows behind named operations, every value bound as `?`. */
export class CheckoutRows {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  holder(): string | undefined {
    return this.#sql.exec<{ holder: string }>("SELECT holder FROM holder").toArray()[0]?.holder;
  }

  setHolder(holder: string): void {
    this.#sql.exec("INSERT OR IGNORE INTO holder (singleton, holder) VALUES (1, ?)", holder);
  }

  get(id: string): CheckoutRecord | undefined {
    const row = this.#sql.exec<Row>("SELECT * FROM checkouts WHERE id = ?", id).toArray()[0];
    return row ? toRecord(row) : undefined;
  }

  /** Open checkouts (at most one, but an interrupted replacement may leave two). */
  open(): CheckoutRecord[] {
    return this.#sql
      .exec<Row>("SELECT * FROM checkouts WHERE status = 'open' ORDER BY created_at")
      .toArray()
      .map(toRecord);
  }

  /** Checkouts whose payment was recorded but whose order was not yet written (a crash in between). */
  paidUnfinished(): CheckoutRecord[] {
    return this.#sql
      .exec<Row>("SELECT * FROM checkouts WHERE payment IS NOT NULL AND status != 'completed' ORDER BY created_at")
      .toArray()
      .map(toRecord);
  }

  /** Forgets a checkout that never held anything (its hold was refused). */
  remove(id: string): void {
    this.#sql.exec("DELETE FROM checkouts WHERE id = ?", id);
  }

  /** Every checkout, oldest first: what `orders -- check` reconciles. */
  all(): CheckoutRecord[] {
    return this.#sql.exec<Row>("SELECT * FROM checkouts ORDER BY created_at").toArray().map(toRecord);
  }

  /** The earliest `expires_at` of an open checkout, for the alarm. */
  nextExpiry(): number | undefined {
    return (
      this.#sql
        .exec<{ at: number | null }>("SELECT MIN(expires_at) AS at FROM checkouts WHERE status = 'open'")
        .toArray()[0]?.at ?? undefined
    );
  }

  insert(record: CheckoutRecord): void {
    this.#sql.exec(
      `INSERT INTO checkouts (id, status, content, return_url, url, created_at, expires_at, payment, order_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL)`,
      record.id,
      record.status,
      JSON.stringify(record.content),
      record.return_url,
      record.url,
      record.created_at,
      record.expires_at,
    );
  }

  setStatus(id: string, status: CheckoutStatus, now: number): void {
    this.#sql.exec("UPDATE checkouts SET status = ?, settled_at = ? WHERE id = ?", status, now, id);
  }

  /** Keeps the first payment recorded: a later completion of the same checkout finds it. */
  setPayment(id: string, payment: Payment): void {
    this.#sql.exec("UPDATE checkouts SET payment = ? WHERE id = ? AND payment IS NULL", JSON.stringify(payment), id);
  }

  complete(id: string, orderId: string, now: number): void {
    this.#sql.exec(
      "UPDATE checkouts SET status = 'completed', order_id = ?, settled_at = ? WHERE id = ?",
      orderId,
      now,
      id,
    );
  }

  /** Forgets settled checkouts older than `before` (their orders stay in D1). */
  purgeSettled(before: number): void {
    this.#sql.exec("DELETE FROM checkouts WHERE status != 'open' AND settled_at < ?", before);
  }
}
