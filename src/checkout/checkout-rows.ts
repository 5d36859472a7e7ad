import { applyMigrations } from "../sqlite-migrations.ts";
import type { CheckoutStatus } from "./api.ts";
import type { PaymentStatus, Received } from "../payment/amounts.ts";
import type { FrozenMoney } from "./cost.ts";
import type { FrozenLine } from "./cost.ts";
import type { CompletedBy } from "./orders.ts";

/**
 * The checkouts' SQLite schema (in the holder's cart object, or a Checkouts object made before
 * docs/decisions/0016) as numbered, append-only migrations (entry N moves a database from version
 * N-1 to N; never edit a shipped entry).
 */
export const MIGRATIONS: readonly (readonly string[])[] = [
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
    // The payment session made at the provider for the checkout (contract 10.6): {id, url}.
    `ALTER TABLE checkouts ADD COLUMN session TEXT`,
    // Sessions to expire at the provider (the checkout was canceled, replaced or expired), retried
    // by the alarm until the provider confirms; session_id NULL: the session's creation went
    // unanswered, so its id is learned by replaying the creation (same Idempotency-Key).
    `CREATE TABLE session_expiries (
       checkout_id TEXT PRIMARY KEY,
       session_id TEXT,
       attempts INTEGER NOT NULL DEFAULT 0,
       next_at INTEGER NOT NULL,
       give_up_at INTEGER NOT NULL
     )`,
  ],
  [
    // Orders whose events (contract 10.7) the alarm looks at again: any overdue one is sent to the
    // queue again (src/checkout/event-delivery.ts redriveOrderEvents), until all are delivered or given up.
    `CREATE TABLE event_checks (order_id TEXT PRIMARY KEY, check_at INTEGER NOT NULL)`,
  ],
  [
    // The holder's hold window per variant it held (hold-windows.ts): holds cannot be hoarded.
    `CREATE TABLE hold_windows (
       variant_id TEXT PRIMARY KEY,
       started_at INTEGER NOT NULL,
       ends_at INTEGER NOT NULL
     )`,
  ],
  [
    // A holder's checkouts moved into its cart's object (docs/decisions/0016), whose database has
    // an idempotency_keys table of its own: the checkouts' keys take a name of their own everywhere.
    `ALTER TABLE idempotency_keys RENAME TO checkout_idempotency_keys`,
  ],
];

/**
 * The newest schema as one step, for a database without checkouts yet (applyMigrations'
 * `current`): what MIGRATIONS make, columns in the same order (test/checkout/cart-host.test.ts
 * compares them). A new migration changes this too.
 */
export const CURRENT_SCHEMA: readonly string[] = [
  `CREATE TABLE holder (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), holder TEXT NOT NULL)`,
  `CREATE TABLE checkouts (
     id TEXT PRIMARY KEY,
     status TEXT NOT NULL CHECK (status IN ('open', 'completed', 'expired', 'canceled')),
     content TEXT NOT NULL, return_url TEXT, url TEXT, created_at INTEGER NOT NULL,
     expires_at INTEGER NOT NULL, payment TEXT, order_id TEXT, settled_at INTEGER, session TEXT
   )`,
  `CREATE INDEX checkouts_by_status ON checkouts (status, expires_at)`,
  `CREATE TABLE checkout_idempotency_keys (
     key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, reply TEXT NOT NULL, created_at INTEGER NOT NULL
   )`,
  `CREATE TABLE session_expiries (
     checkout_id TEXT PRIMARY KEY, session_id TEXT, attempts INTEGER NOT NULL DEFAULT 0,
     next_at INTEGER NOT NULL, give_up_at INTEGER NOT NULL
   )`,
  `CREATE TABLE event_checks (order_id TEXT PRIMARY KEY, check_at INTEGER NOT NULL)`,
  `CREATE TABLE hold_windows (variant_id TEXT PRIMARY KEY, started_at INTEGER NOT NULL, ends_at INTEGER NOT NULL)`,
];

/**
 * Where a cart's object keeps the version of its checkouts' schema, beside the cart's own
 * `schema_version`. A legacy Checkouts object keeps it in `schema_version` (its only room).
 */
export const CART_CHECKOUTS_VERSION_TABLE = "checkout_schema_version";

/** Brings `sql` up to the newest checkouts schema, its version kept in `versionTable`. */
export function migrateCheckouts(sql: SqlStorage, versionTable?: string): void {
  applyMigrations(sql, MIGRATIONS, CURRENT_SCHEMA, versionTable);
}

/** Whether `sql` holds checkouts at all: a cart's object makes their tables on its holder's first checkout. */
export function hasCheckouts(sql: SqlStorage, versionTable: string): boolean {
  return sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", versionTable).toArray().length > 0;
}

/** What a checkout froze: its lines priced at the live catalog, its cost, and the cart's note and attributes. */
export interface CheckoutContent extends FrozenMoney {
  lines: FrozenLine[];
  currency: string;
  note: string | null;
  attributes: Record<string, string>;
  /** The counted discounts whose use this checkout reserved (released with its holds, committed with its order). */
  uses?: string[];
  /** The codes as the shopper entered them, to name a refused one in their spelling. */
  discount_codes_entered?: string[];
}

/** How a checkout was paid: recorded before the order is written, so a crash mid-way resumes it. */
export interface Payment {
  reference: string;
  by: CompletedBy;
  at: number;
  /** What the payment moved and whether it matched the frozen total (absent: recorded before payments were checked). */
  received?: Received;
  status?: PaymentStatus;
}

/** The session a payment provider made for a checkout. */
export interface PaymentSession {
  id: string;
  url: string;
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
  session: PaymentSession | null;
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
  session: string | null;
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
    session: row.session ? (JSON.parse(row.session) as PaymentSession) : null,
  };
}

/** A holder's checkouts' rows behind named operations, every value bound as `?`. */
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

  /**
   * What the alarm waits for, in one statement (five reads cost every create, cancel and completion
   * more): whether a completion waits to be finished, the earliest open checkout's `expires_at`,
   * owed session expiry and event check, and whether any checkout is kept (settled ones too, for 30
   * days). A time is undefined when nothing waits for it.
   */
  alarmTimes(): { paidUnfinished: boolean; expiry?: number; owed?: number; eventCheck?: number; any: boolean } {
    const row = this.#sql
      .exec<{ paid: number; expiry: number | null; owed: number | null; check_at: number | null; kept: number }>(
        `SELECT EXISTS (SELECT 1 FROM checkouts WHERE payment IS NOT NULL AND status != 'completed') AS paid,
          (SELECT MIN(expires_at) FROM checkouts WHERE status = 'open') AS expiry,
          (SELECT MIN(next_at) FROM session_expiries) AS owed,
          (SELECT MIN(check_at) FROM event_checks) AS check_at,
          EXISTS (SELECT 1 FROM checkouts) AS kept`,
      )
      .one();
    return {
      paidUnfinished: row.paid === 1,
      ...(row.expiry !== null ? { expiry: row.expiry } : {}),
      ...(row.owed !== null ? { owed: row.owed } : {}),
      ...(row.check_at !== null ? { eventCheck: row.check_at } : {}),
      any: row.kept === 1,
    };
  }

  /** Forgets a checkout that never held anything (its hold was refused). */
  remove(id: string): void {
    this.#sql.exec("DELETE FROM checkouts WHERE id = ?", id);
  }

  /** Every checkout, oldest first: what `orders -- check` reconciles. */
  all(): CheckoutRecord[] {
    return this.#sql.exec<Row>("SELECT * FROM checkouts ORDER BY created_at").toArray().map(toRecord);
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

  setSession(id: string, session: PaymentSession): void {
    this.#sql.exec("UPDATE checkouts SET session = ?, url = ? WHERE id = ?", JSON.stringify(session), session.url, id);
  }

  /** Owes the provider an expiry of this checkout's session (its id, or null: learn it by replaying the creation). */
  oweExpiry(checkoutId: string, sessionId: string | null, now: number, giveUpAt: number): void {
    this.#sql.exec(
      `INSERT INTO session_expiries (checkout_id, session_id, next_at, give_up_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (checkout_id) DO UPDATE SET session_id = COALESCE(excluded.session_id, session_id)`,
      checkoutId,
      sessionId,
      now,
      giveUpAt,
    );
  }

  /** Expiries owed and due by `now`. */
  expiriesDue(now: number): { checkout_id: string; session_id: string | null; attempts: number; give_up_at: number }[] {
    return this.#sql
      .exec<{ checkout_id: string; session_id: string | null; attempts: number; give_up_at: number }>(
        "SELECT checkout_id, session_id, attempts, give_up_at FROM session_expiries WHERE next_at <= ?",
        now,
      )
      .toArray();
  }

  expiryRetry(checkoutId: string, sessionId: string | null, nextAt: number): void {
    this.#sql.exec(
      "UPDATE session_expiries SET attempts = attempts + 1, next_at = ?, session_id = COALESCE(?, session_id) WHERE checkout_id = ?",
      nextAt,
      sessionId,
      checkoutId,
    );
  }

  expiryDone(checkoutId: string): void {
    this.#sql.exec("DELETE FROM session_expiries WHERE checkout_id = ?", checkoutId);
  }

  /** Looks at an order's events again at `at`. */
  checkEventsAt(orderId: string, at: number): void {
    this.#sql.exec("INSERT OR REPLACE INTO event_checks (order_id, check_at) VALUES (?, ?)", orderId, at);
  }

  /** Orders whose events are due a look by `now`. */
  eventChecksDue(now: number): string[] {
    return this.#sql
      .exec<{ order_id: string }>("SELECT order_id FROM event_checks WHERE check_at <= ?", now)
      .toArray()
      .map((row) => row.order_id);
  }

  eventChecksDone(orderId: string): void {
    this.#sql.exec("DELETE FROM event_checks WHERE order_id = ?", orderId);
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

  /** The answer recorded under an Idempotency-Key, with the request it answered. */
  answerFor(key: string): { fingerprint: string; reply: string } | undefined {
    return this.#sql
      .exec<{ fingerprint: string; reply: string }>(
        "SELECT fingerprint, reply FROM checkout_idempotency_keys WHERE key = ?",
        key,
      )
      .toArray()[0];
  }

  recordAnswer(key: string, fingerprint: string, reply: string, now: number): void {
    this.#sql.exec(
      "INSERT OR REPLACE INTO checkout_idempotency_keys (key, fingerprint, reply, created_at) VALUES (?, ?, ?, ?)",
      key,
      fingerprint,
      reply,
      now,
    );
  }

  /** Forgets answers recorded before `before`. */
  purgeAnswers(before: number): void {
    this.#sql.exec("DELETE FROM checkout_idempotency_keys WHERE created_at <= ?", before);
  }
}
