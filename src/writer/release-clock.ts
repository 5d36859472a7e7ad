import { DurableObject } from "cloudflare:workers";
import { d1Target } from "../publish/browse-index.ts";
import { d1Query, LockBusyError, sqlLock } from "../publish/lock.ts";
import { MAX_RELEASE_AHEAD_MS, releaseDue } from "../publish/release.ts";
import { WRITER_LEASE_MS } from "./apply.ts";
import type { ReleaseClock, WriterEnv } from "./env.ts";
import { writerTarget } from "./target.ts";

/** How soon the clock tries again when a publish, batch or rollback holds the catalog at a release's second. */
export const BUSY_RETRY_MS = 5_000;
/** How soon it tries again after a failure (logged): the release stays scheduled until it goes live. */
export const FAILED_RETRY_MS = 30_000;
/** How long it waits for the lock before it tries again later. */
const LOCK_WAIT_MS = 2_000;

/**
 * The catalog's release clock (issue 45, point 5): one Durable Object (named `catalog`) whose alarm
 * wakes at the earliest scheduled release. The history in KV is the schedule (src/publish/release.ts):
 * the clock holds nothing but its alarm, so a release canceled meanwhile only wakes it for nothing,
 * and arming it twice, or for a time already past, is harmless. Each wake makes every due release
 * live under the catalog's D1 lease and sets the alarm for the next one; held by a publish, it tries
 * again in 5 s, so a release goes live within seconds of its time, never before.
 */
export class CatalogReleaseClock extends DurableObject<WriterEnv> implements ReleaseClock {
  /**
   * Wakes the clock at `at` (ms since the epoch) unless it is already set to wake sooner. A time
   * passed wakes it now, one past a year wakes it in a year (each wake sets the next from the
   * history): an alarm cannot be set before the epoch (schemathesis sent the year 632: a 500).
   */
  async arm(at: number): Promise<void> {
    const now = Date.now();
    const when = Math.min(Math.max(at, now), now + MAX_RELEASE_AHEAD_MS);
    const set = await this.ctx.storage.getAlarm();
    if (set === null || when < set) await this.ctx.storage.setAlarm(when);
  }

  override async alarm(): Promise<void> {
    const storage = this.ctx.storage;
    try {
      const run = await releaseDue(writerTarget(this.env.CATALOG, this.env.CATALOG_WRITER), {
        lock: sqlLock(d1Query(this.env.BROWSE), { waitMs: LOCK_WAIT_MS, pollMs: 250, leaseMs: WRITER_LEASE_MS }),
        browse: d1Target(this.env.BROWSE, this.env.BROWSE_SNAPSHOTS),
      });
      for (const version of run.released)
        console.log(JSON.stringify({ level: "info", message: "A scheduled catalog release went live.", version }));
      for (const { version, reason } of run.canceled)
        console.error(
          JSON.stringify({ level: "error", message: `A scheduled catalog release was canceled: ${reason}`, version }),
        );
      if (run.next !== null) await storage.setAlarm(Math.max(Date.parse(run.next), Date.now()));
    } catch (error) {
      const busy = error instanceof LockBusyError;
      if (!busy)
        console.error(
          JSON.stringify({
            level: "error",
            message: "The catalog release clock could not release; it tries again in 30 s.",
            error: error instanceof Error ? error.message : String(error),
          }),
        );
      await storage.setAlarm(Date.now() + (busy ? BUSY_RETRY_MS : FAILED_RETRY_MS));
    }
  }
}
