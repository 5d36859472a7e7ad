/**
 * The publish lock: publish and rollback of one catalog are serialised, so two operators (or a
 * script and `npm run dev`) never interleave their pointer switches, history appends and cleanups
 *. Three homes, one interface:
 *
 * - local state: a lock file in the persist directory (lock-file.ts), because two CLI processes
 *   each open their own Miniflare on the same directory: a Durable Object inside one of them does
 *   not serialise against the other, while an exclusively created file does;
 * - the deployed catalog: a one-row table in the D1 database (`sqlLock` below, driven through
 *   `wrangler d1 execute --remote`), whose single-statement upsert is the compare-and-swap that
 *   KV cannot do;
 * - one process (tests, a caller without either): `processLock`, a queue per KV namespace.
 *
 * Under the lock the pointer is still compare-and-swapped (publish.ts): re-read just before it is
 * written and the write refused if it moved, so a lock broken as stale cannot lose an update.
 */

/** What the holder is doing, shown to whoever waits for it. */
export interface LockIntent {
  action: "publish" | "rollback" | "batch";
  /** The version a publish writes. */
  version?: string;
  /** The file published, when known. */
  source?: string;
  by?: string;
}

export interface HeldLock {
  /**
   * Versions a dead holder was writing when it died (its lock was broken as stale): no one
   * writes them any more, so the cleanup may delete them.
   */
  abandoned: string[];
  /** Throws when the lock is no longer ours (a lease ran out and another holder took it). */
  verify(): Promise<void>;
  release(): Promise<void>;
}

export interface CatalogLock {
  acquire(intent: LockIntent): Promise<HeldLock>;
}

/** Another publish or rollback holds the lock and did not finish within the wait. */
export class LockBusyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LockBusyError";
  }
}

export interface LockWaitOptions {
  /** How long to wait for a busy lock before refusing (0: refuse at once). */
  waitMs: number;
  pollMs?: number;
  /** Called once, when the lock is found busy, with a description of its holder. */
  onWait?: (holder: string) => void;
}

/** "publish of seed/catalog.json as 2026... by ana@host since 20:41:02Z (12 s)". */
export function describeHolder(h: LockIntent & { since?: string; pid?: number; host?: string }): string {
  const age = h.since ? Math.max(0, Math.round((Date.now() - Date.parse(h.since)) / 1000)) : undefined;
  return [
    h.action ?? "a publish or rollback",
    h.source ? `of ${h.source}` : "",
    h.version ? `as version ${h.version}` : "",
    h.by ? `by ${h.by}` : "",
    h.pid !== undefined ? `(pid ${h.pid}${h.host ? ` on ${h.host}` : ""})` : "",
    h.since ? `since ${h.since}${age !== undefined ? ` (${age} s)` : ""}` : "",
  ]
    .filter(Boolean)
    .join(" ");
}

export function busyMessage(holder: string, waitedMs: number, hint = ""): string {
  const waited = waitedMs > 0 ? ` after waiting ${Math.round(waitedMs / 1000)} s` : "";
  return (
    `Another catalog publish or rollback is running: ${holder}. Nothing was done${waited}. ` +
    `Run again when it ends, or give it longer with --wait SECONDS.${hint}`
  );
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const queues = new WeakMap<object, Promise<void>>();

/**
 * Serialises publishes and rollbacks of one namespace within this process: each waits for the
 * one before it. Real for concurrent calls in one isolate or one Node process; the CLIs use a
 * lock file or D1 instead, which serialise across processes too.
 */
export function processLock(key: object): CatalogLock {
  return {
    async acquire() {
      const before = queues.get(key) ?? Promise.resolve();
      let release!: () => void;
      const mine = new Promise<void>((resolve) => (release = resolve));
      queues.set(
        key,
        before.then(() => mine),
      );
      await before;
      return { abandoned: [], verify: async () => {}, release: async () => release() };
    },
  };
}

/** Runs one SQL statement and returns its rows (a D1 binding, or `wrangler d1 execute --remote`). */
export type SqlQuery = (sql: string) => Promise<Record<string, unknown>[]>;

/**
 * A D1 binding as a SqlQuery, for the lease on a binding: the catalog writer Worker's, and the
 * local tools' (inside their Miniflare, against the Worker on the same state). One statement per
 * batch call, the D1 call the local tools retry (local-env.ts `retrying`).
 */
export function d1Query(db: D1Database): SqlQuery {
  return async (sql) => (await db.batch<Record<string, unknown>>([db.prepare(sql)]))[0]?.results ?? [];
}

const LEASE_MS = 30 * 60 * 1000;

export function sqlText(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/**
 * The lock as one row of a D1 table. Taking it is a single upsert that only replaces a row whose
 * lease ran out, which SQLite applies atomically: the row then names exactly one holder, which a
 * read-back shows. The lease (30 minutes, renewed by `verify` before every pointer switch) frees
 * the lock of an operator whose machine died; its half-written version is reported as abandoned.
 */
export function sqlLock(query: SqlQuery, opts: LockWaitOptions & { leaseMs?: number; token?: string }): CatalogLock {
  const lease = opts.leaseMs ?? LEASE_MS;
  return {
    async acquire(intent) {
      const token = opts.token ?? crypto.randomUUID();
      const record = JSON.stringify({ ...intent, since: new Date().toISOString() });
      await query(
        "CREATE TABLE IF NOT EXISTS catalog_lock (id INTEGER PRIMARY KEY CHECK (id = 1), token " +
          "TEXT NOT NULL, holder TEXT NOT NULL, expires_at INTEGER NOT NULL)",
      );
      const started = Date.now();
      let told = false;
      for (;;) {
        const now = Date.now();
        const [before] = await query("SELECT token, holder, expires_at FROM catalog_lock WHERE id = 1");
        await query(
          `INSERT INTO catalog_lock (id, token, holder, expires_at) VALUES (1, ${sqlText(token)}, ` +
            `${sqlText(record)}, ${now + lease}) ` +
            `ON CONFLICT (id) DO UPDATE SET token = excluded.token, holder = excluded.holder, ` +
            `expires_at = excluded.expires_at WHERE catalog_lock.expires_at < ${now}`,
        );
        const [row] = await query("SELECT token, holder FROM catalog_lock WHERE id = 1");
        if (row?.token === token) {
          const stale =
            before && before.token !== token ? (JSON.parse(String(before.holder)) as LockIntent) : undefined;
          return {
            abandoned:
              (stale?.action === "publish" || stale?.action === "batch") && stale.version ? [stale.version] : [],
            async verify() {
              await query(`UPDATE catalog_lock SET expires_at = ${Date.now() + lease} WHERE token = ${sqlText(token)}`);
              const [held] = await query("SELECT token FROM catalog_lock WHERE id = 1");
              if (held?.token !== token)
                throw new LockBusyError(
                  "The publish lock was lost (its lease ran out and another publish or rollback took it); " +
                    "the pointer was not switched.",
                );
            },
            async release() {
              await query(`DELETE FROM catalog_lock WHERE token = ${sqlText(token)}`);
            },
          };
        }
        const holder = row ? describeHolder(JSON.parse(String(row.holder)) as LockIntent) : "unknown";
        if (Date.now() - started >= opts.waitMs) throw new LockBusyError(busyMessage(holder, opts.waitMs));
        if (!told) opts.onWait?.(holder);
        told = true;
        await sleep(opts.pollMs ?? 2000);
      }
    },
  };
}
