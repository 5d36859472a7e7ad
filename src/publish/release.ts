/**
 * Releases that switch at a set second (issue 45, point 5): `catalog:publish --at TIME` and
 * `catalog:apply --at TIME` write their version as usual but, instead of the pointer switch,
 * record it in the history as `scheduled` with its `release_at`. The history is the schedule:
 * the catalog writer's release clock (a Durable Object alarm, src/writer/release-clock.ts) only
 * wakes at the earliest `release_at` and calls `releaseDue`, which, under the same lock as every
 * publish, batch and rollback, makes each due version live by the same recorded compare-and-swap
 * of the pointer. A scheduled version is kept by every cleanup until it is released or canceled
 * (`cancelRelease`, `catalog:rollback --cancel VERSION`), then handled like any other.
 *
 * A change batch's version is derived from the version live when it was prepared; released onto
 * another one it would undo what went live in between, so at its second it goes live only if its
 * base still is, and is otherwise canceled with the reason in the history (and the clock's log).
 */
import { type HistoryEntry, keys, type Pointer } from "../catalog/layout.ts";
import type { BrowseTarget } from "./browse-index.ts";
import type { CatalogLock } from "./lock.ts";
import { type CatalogKvTarget, cleanUp, settleInterrupted, switchRecorded, underLock } from "./publish.ts";

/** Who switches a scheduled release, in the history and the lock (`catalog:rollback --list`). */
export const RELEASE_CLOCK = "scheduled release";

/** The latest a release may be scheduled: a year ahead (a typo in the year is refused, not kept for a decade). */
export const MAX_RELEASE_AHEAD_MS = 366 * 24 * 3600 * 1000;

const WITH_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/**
 * A release time as `--at` and `?release_at=` take it: ISO 8601 with its zone, in the future, at
 * most a year ahead. Returns the time, or why it cannot be one (the tools and the writer word the rest).
 */
export function releaseTime(value: string, now = Date.now()): Date | string {
  const at = WITH_ZONE.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(at))
    return `takes a time with its zone, such as 2026-12-01T09:00:00Z or 2026-12-01T10:00:00+01:00, not "${value}"`;
  if (at <= now) return `${value} has passed: give a time to come`;
  if (at - now > MAX_RELEASE_AHEAD_MS)
    return `${value} is more than a year ahead: a release is scheduled a year ahead at most`;
  return new Date(at);
}

/** The scheduled entries, soonest first. */
export function scheduled(history: readonly HistoryEntry[]): HistoryEntry[] {
  return history
    .filter((e) => e.state === "scheduled")
    .sort((a, b) => Date.parse(a.release_at ?? "") - Date.parse(b.release_at ?? "") || a.seq - b.seq);
}

export interface ReleaseRun {
  /** Versions made live, in the order they went live. */
  released: string[];
  /** Batches whose base was no longer live at their second, with the reason recorded. */
  canceled: { version: string; reason: string }[];
  /** The next scheduled `release_at`, or null when nothing more is scheduled. */
  next: string | null;
}

function withState(
  history: readonly HistoryEntry[],
  seq: number,
  change: Pick<HistoryEntry, "state" | "reason">,
): HistoryEntry[] {
  return history.map((e) => (e.seq === seq ? { ...e, ...change } : e));
}

/**
 * Makes every release due by `now` live, soonest first, under the catalog lock; what a killed
 * run left is settled like a killed publish's (its `publishing` entry), and a release whose
 * version is already live (a run killed after its switch) is only marked `released`.
 */
export async function releaseDue(
  target: CatalogKvTarget,
  opts: { lock: CatalogLock; browse: BrowseTarget | null; now?: Date },
): Promise<ReleaseRun> {
  const now = (opts.now ?? new Date()).getTime();
  return underLock(opts.lock, { action: "rollback", by: RELEASE_CLOCK }, async (held) => {
    let { pointer, history } = await settleInterrupted(target, opts.browse, held);
    const run: ReleaseRun = { released: [], canceled: [], next: null };
    for (const entry of scheduled(history)) {
      if (Date.parse(entry.release_at ?? "") > now) break;
      const live = pointer?.current.version ?? null;
      if (live !== entry.version && entry.action === "batch" && live !== entry.from) {
        const reason =
          `its batch was derived from catalog ${entry.from}, and ${live ?? "nothing"} was live at ` +
          `${entry.release_at}: going live would undo what went live in between. Apply the batch again.`;
        history = withState(history, entry.seq, { state: "canceled", reason });
        await target.writeHistory(history);
        run.canceled.push({ version: entry.version, reason });
        continue;
      }
      if (live !== entry.version) {
        // Its place in the history is where it goes live, not where it was scheduled: a Stock shard
        // writes no level for a version older than the newest it wrote (src/stock/stock-object.ts).
        const meta = { ...entry.meta, stock_seq: (history.at(-1)?.seq ?? 0) + 1 };
        await target.writeEntries([{ key: keys.meta(entry.version), value: JSON.stringify(meta) }], () => {});
        const next: Pointer = { current: meta, previous: pointer?.current ?? null };
        const { seq: _seq, at: _at, state: _state, reason: _reason, ...recorded } = entry;
        history = await switchRecorded(target, held, pointer, next, history, {
          ...recorded,
          from: live,
          meta,
        });
        pointer = next;
      }
      history = withState(history, entry.seq, { state: "released" });
      await target.writeHistory(history);
      run.released.push(entry.version);
    }
    if (pointer && run.released.length + run.canceled.length > 0)
      await cleanUp(target, opts.browse, pointer, history, held.abandoned);
    run.next = scheduled(history)[0]?.release_at ?? null;
    return run;
  });
}

/** `cancelRelease` found no scheduled release of the version. */
export class NoSuchReleaseError extends Error {
  constructor(version: string) {
    super(`No release of catalog ${version} is scheduled (see catalog:rollback --list): nothing was changed.`);
    this.name = "NoSuchReleaseError";
  }
}

/**
 * Cancels the scheduled release of `version` under the lock: its entry becomes `canceled` and its
 * version is deleted by the cleanup like any version no longer kept. Returns the entry as it was.
 */
export async function cancelRelease(
  target: CatalogKvTarget,
  version: string,
  opts: { lock: CatalogLock; browse: BrowseTarget | null; by?: string },
): Promise<HistoryEntry> {
  return underLock(opts.lock, { action: "rollback", version, ...(opts.by ? { by: opts.by } : {}) }, async (held) => {
    const { pointer, history } = await settleInterrupted(target, opts.browse, held);
    const entry = history.find((e) => e.version === version && e.state === "scheduled");
    if (!entry) throw new NoSuchReleaseError(version);
    const recorded = withState(history, entry.seq, {
      state: "canceled",
      reason: `canceled${opts.by ? ` by ${opts.by}` : ""} at ${new Date().toISOString()}`,
    });
    await target.writeHistory(recorded);
    if (pointer) await cleanUp(target, opts.browse, pointer, recorded, held.abandoned);
    return entry;
  });
}
