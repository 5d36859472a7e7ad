import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { HISTORY_KEY, type HistoryEntry, type Pointer, POINTER_KEY } from "../../src/catalog/layout.ts";
import { d1Target } from "../../src/publish/browse-index.ts";
import { browseTableVersion } from "../../src/browse/layout.ts";
import { SNAPSHOT_FORMAT } from "../../src/browse/snapshot.ts";
import { processLock, LockBusyError, sqlLock, type SqlQuery } from "../../src/publish/lock.ts";
import {
  bindingTarget,
  type CatalogKvTarget,
  KEEP_VERSIONS,
  listHistory,
  PointerMovedError,
  publishCatalog,
  publishTo,
  rollbackCatalog,
  settleInterrupted,
  UnexpectedLiveVersionError,
} from "../../src/publish/publish.ts";
import { shiftedSeed } from "../helpers/catalog.ts";
import { API as BASE } from "../helpers/worker.ts";

/**
 * Publish and rollback are serialised, the pointer is
 * compare-and-swapped, the history is append-only, and cleanup keeps the last 5 versions and
 * never one being written. Regression: two publishes at once lost one ("previous" skipped it) and
 * a cleanup deleted a version still being written.
 */

const pointer = async () => (await env.CATALOG.get<Pointer>(POINTER_KEY, "json")) as Pointer;
const history = async () => (await env.CATALOG.get<HistoryEntry[]>(HISTORY_KEY, "json")) ?? [];

async function versionsStored(): Promise<Set<string>> {
  const names: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await env.CATALOG.list({ prefix: "v/", ...(cursor ? { cursor } : {}) });
    names.push(...page.keys.map((k) => k.name));
    if (page.list_complete) break;
    cursor = page.cursor;
  }
  return new Set(names.map((k) => k.split("/")[1] ?? ""));
}

/** The lowest price of the seed's first product as the worker answers it, and the version. */
async function served(): Promise<{ version: string | null; amount: string | undefined; browse: number }> {
  const res = await exports.default.fetch(`${BASE}/products?limit=1&starting_after=essential-crew-tee-black`);
  const body = (await res.json()) as { data: { price: { amount: string } }[] };
  const browse = await exports.default.fetch(`${BASE}/products?sort=price_asc&limit=1`);
  return { version: res.headers.get("x-catalog-version"), amount: body.data[0]?.price.amount, browse: browse.status };
}

/** A consistent history: numbered 1..n, each entry starting from the version the one before made live, ending at the pointer. */
function expectConsistent(entries: readonly HistoryEntry[], live: Pointer): void {
  entries.forEach((entry, i) => {
    expect(entry.seq).toBe(i + 1);
    expect(entry.from).toBe(i === 0 ? null : entries[i - 1]?.version);
    expect(entry.meta.version).toBe(entry.version);
  });
  expect(entries.at(-1)?.version).toBe(live.current.version);
  expect(entries.at(-1)?.from ?? null).toBe(live.previous?.version ?? null);
}

const browse = () => d1Target(env.BROWSE);

describe("publish history and the publish lock", () => {
  it("runs two publishes and a rollback started at once one after another: a complete, consistent history", async () => {
    // Two versions first, so the rollback has a previous version whichever runs first.
    await publishCatalog(env.CATALOG, shiftedSeed(0), { browse: browse() });
    await publishCatalog(env.CATALOG, shiftedSeed(1), { browse: browse() });
    const before = (await history()).length;
    const results = await Promise.allSettled([
      publishCatalog(env.CATALOG, shiftedSeed(2), { browse: browse(), source: "a.json", by: "ana@test" }),
      rollbackCatalog(env.CATALOG, { by: "ops@test" }),
      publishCatalog(env.CATALOG, shiftedSeed(3), { browse: browse(), source: "b.json" }),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "fulfilled"]);
    const entries = await history();
    expect(entries).toHaveLength(before + 3);
    expect(
      entries
        .slice(before)
        .map((e) => e.action)
        .sort(),
    ).toEqual(["publish", "publish", "rollback"]);
    const live = await pointer();
    expectConsistent(entries, live);
    // No lost update: each publish's "previous" is the version live just before it.
    const published = results.flatMap((r) => (r.status === "fulfilled" && "entries" in r.value ? [r.value] : []));
    for (const p of published) expect(entries.find((e) => e.version === p.version)?.from).toBe(p.previous);
    expect(entries.find((e) => e.version === published[0]?.version)).toMatchObject({
      source: "a.json",
      by: "ana@test",
    });
    // The pointer names a fully written version: the worker answers from it, browse included.
    const now = await served();
    expect(now.version).toBe(live.current.version);
    expect(now.browse).toBe(200);
  }, 60_000);

  it("can roll back to every version the history keeps, and refuses one cleanup deleted", async () => {
    const published: { version: string; cents: number }[] = [];
    for (const cents of [10, 20, 30, 40, 50, 60, 70])
      published.push({
        version: (await publishCatalog(env.CATALOG, shiftedSeed(cents), { browse: browse() })).version,
        cents,
      });
    const stored = await versionsStored();
    const kept = published.slice(-KEEP_VERSIONS);
    for (const { version } of kept) expect(stored.has(version)).toBe(true);
    for (const { version } of published.slice(0, -KEEP_VERSIONS)) expect(stored.has(version)).toBe(false);
    // Every kept version goes live again, whole: its own prices, its browse index.
    for (const { version, cents } of [...kept].reverse()) {
      if (version === (await pointer()).current.version) continue;
      await rollbackCatalog(env.CATALOG, { to: version });
      const now = await served();
      expect(now.version).toBe(version);
      expect(now.amount).toBe((28 + cents / 100).toFixed(2));
      expect(now.browse).toBe(200);
    }
    await expect(rollbackCatalog(env.CATALOG, { to: published[0]?.version ?? "" })).rejects.toThrow(
      /deleted by a cleanup/,
    );
    await expect(rollbackCatalog(env.CATALOG, { to: "never-published" })).rejects.toThrow(
      /No catalog version never-published in the publish history/,
    );
    expectConsistent(await history(), await pointer());
    // Rollbacks are appended, never rewritten: the first entries are as they were.
    const lines = await listHistory(bindingTarget(env.CATALOG));
    expect(lines.filter((l) => l.live)).toHaveLength(1);
    expect(lines.find((l) => l.version === published[0]?.version)).toMatchObject({ kept: false, live: false });
  }, 60_000);

  it("never deletes a version being written, and a publish that bypassed the lock cannot switch over another (CAS)", async () => {
    await publishCatalog(env.CATALOG, shiftedSeed(100), { browse: null });
    const base = bindingTarget(env.CATALOG);
    let halfWritten!: () => void;
    const reachedHalf = new Promise<void>((resolve) => (halfWritten = resolve));
    let resume!: () => void;
    const resumed = new Promise<void>((resolve) => (resume = resolve));
    // A publisher in "another process": its own lock, writing slowly.
    const slow: CatalogKvTarget = {
      ...base,
      async writeEntries(entries, onWritten) {
        let n = 0;
        for await (const entry of entries) {
          await base.writeEntries([entry], onWritten);
          if (++n === 5) {
            halfWritten();
            await resumed;
          }
        }
      },
    };
    const slowPublish = publishTo(slow, shiftedSeed(200), {
      browse: null,
      version: "being-written",
      lock: processLock({}),
    });
    await reachedHalf;
    // Meanwhile more publishes than cleanup keeps, each cleaning up.
    for (const cents of [300, 400, 500, 600, 700, 800])
      await publishCatalog(env.CATALOG, shiftedSeed(cents), { browse: null });
    expect((await versionsStored()).has("being-written")).toBe(true);
    resume();
    await expect(slowPublish).rejects.toBeInstanceOf(PointerMovedError);
    expect((await pointer()).current.version).not.toBe("being-written");
    expectConsistent(await history(), await pointer());
  }, 60_000);

  it("deletes the half-written version of a publisher that died holding the lock", async () => {
    await publishCatalog(env.CATALOG, shiftedSeed(900), { browse: null });
    await env.CATALOG.put("v/died-writing/ps/0", "{}");
    const died = {
      acquire: async () => ({ abandoned: ["died-writing"], verify: async () => {}, release: async () => {} }),
    };
    await publishCatalog(env.CATALOG, shiftedSeed(901), { browse: null, lock: died });
    expect((await versionsStored()).has("died-writing")).toBe(false);
  }, 60_000);
});

/** Browse tables of a version in the BROWSE database. */
async function browseTablesOf(version: string): Promise<string[]> {
  return (await d1Target(env.BROWSE).tables()).filter((t) => browseTableVersion(t) === version);
}

describe("a publish killed mid-way (issue 33 point 3)", () => {
  it("killed between the pointer switch and the history write: the history shows the live version, completed by the next holder of the lock", async () => {
    await publishCatalog(env.CATALOG, shiftedSeed(1000), { browse: null });
    const base = bindingTarget(env.CATALOG);
    // Dies right after the switch: its second history write (the completion) never happens.
    let writes = 0;
    const dying: CatalogKvTarget = {
      ...base,
      async writeHistory(entries) {
        if (++writes === 2) throw new Error("killed");
        await base.writeHistory(entries);
      },
    };
    await expect(
      publishTo(dying, shiftedSeed(1001), {
        browse: null,
        version: "killed-after-switch",
        lock: processLock(env.CATALOG),
      }),
    ).rejects.toThrow("killed");
    expect((await pointer()).current.version).toBe("killed-after-switch");
    // Regression: the history had no entry for the live version. Now it has one, being published...
    expect((await history()).at(-1)).toMatchObject({ version: "killed-after-switch", state: "publishing" });
    // ...which --list (under the lock) settles: the live version is listed, live and complete.
    const lines = await listHistory(base, { lock: processLock(env.CATALOG), browse: null });
    expect(lines.at(-1)).toMatchObject({ version: "killed-after-switch", live: true, kept: true });
    expect(lines.at(-1)?.state).toBeUndefined();
    expectConsistent(await history(), await pointer());
  }, 60_000);

  it("killed after the switch with its lock left behind: the version is settled as live only, never also as abandoned and deleted (issue 42, point 18)", async () => {
    await publishCatalog(env.CATALOG, shiftedSeed(1050), { browse: null });
    const base = bindingTarget(env.CATALOG);
    let writes = 0;
    const dying: CatalogKvTarget = {
      ...base,
      async writeHistory(entries) {
        if (++writes === 2) throw new Error("killed");
        await base.writeHistory(entries);
      },
    };
    await expect(
      publishTo(dying, shiftedSeed(1051), {
        browse: null,
        version: "killed-lock-left",
        lock: processLock(env.CATALOG),
      }),
    ).rejects.toThrow("killed");
    // The dead publisher's lock names its version: the next holder breaks it and reports it.
    const settled = await settleInterrupted(base, null, { abandoned: ["killed-lock-left"] });
    expect(settled.completed).toEqual(["killed-lock-left"]);
    expect(settled.abandoned).toEqual([]);
    expect((await pointer()).current.version).toBe("killed-lock-left");
    expect((await versionsStored()).has("killed-lock-left")).toBe(true);
    expect((await history()).at(-1)).toMatchObject({ version: "killed-lock-left" });
    expect((await history()).at(-1)?.state).toBeUndefined();
  }, 60_000);

  it("killed after recording the publish but before the switch: the next rollback marks it abandoned and deletes its keys, tables and snapshot", async () => {
    await publishCatalog(env.CATALOG, shiftedSeed(1100), { browse: d1Target(env.BROWSE, env.BROWSE_SNAPSHOTS) });
    const live = (await pointer()).current.version;
    const base = bindingTarget(env.CATALOG);
    // Dies at the pointer switch itself, without its catch running (a kill): state as it left it.
    const dying: CatalogKvTarget = {
      ...base,
      async writePointer() {
        throw new Error("killed");
      },
    };
    const stuck = publishTo(dying, shiftedSeed(1101), {
      browse: d1Target(env.BROWSE, env.BROWSE_SNAPSHOTS),
      version: "killed-before-switch",
      lock: processLock(env.CATALOG),
    });
    await expect(stuck).rejects.toThrow("killed");
    // The catch of a living process removed the entry; a killed one leaves it: put it back as a kill would.
    const left = await history();
    const entry = { ...(left.at(-1) as HistoryEntry), seq: (left.at(-1)?.seq ?? 0) + 1 };
    await env.CATALOG.put(
      HISTORY_KEY,
      JSON.stringify([...left, { ...entry, version: "killed-before-switch", from: live, state: "publishing" }]),
    );
    expect((await versionsStored()).has("killed-before-switch")).toBe(true);
    expect((await browseTablesOf("killed-before-switch")).length).toBeGreaterThan(0);
    expect(
      (await env.BROWSE_SNAPSHOTS.list({ prefix: `browse/v${SNAPSHOT_FORMAT}/killed-before-switch` })).objects.length,
    ).toBeGreaterThan(0);

    await rollbackCatalog(env.CATALOG, { browse: d1Target(env.BROWSE, env.BROWSE_SNAPSHOTS) });
    expect((await history()).find((e) => e.version === "killed-before-switch")?.state).toBe("abandoned");
    expect((await versionsStored()).has("killed-before-switch")).toBe(false);
    expect(await browseTablesOf("killed-before-switch")).toEqual([]);
    expect(
      (await env.BROWSE_SNAPSHOTS.list({ prefix: `browse/v${SNAPSHOT_FORMAT}/killed-before-switch` })).objects,
    ).toEqual([]);
    // An abandoned entry is never a rollback target nor counted among the kept versions.
    expect((await pointer()).current.version).not.toBe("killed-before-switch");
  }, 60_000);

  it("rollback --expect refuses, changing nothing, when the live version is not the one the operator saw", async () => {
    await publishCatalog(env.CATALOG, shiftedSeed(1200), { browse: null });
    await publishCatalog(env.CATALOG, shiftedSeed(1201), { browse: null });
    const before = await pointer();
    const entries = (await history()).length;
    await expect(rollbackCatalog(env.CATALOG, { expect: before.previous?.version ?? "x" })).rejects.toBeInstanceOf(
      UnexpectedLiveVersionError,
    );
    expect(await pointer()).toEqual(before);
    expect((await history()).length).toBe(entries);
    const seen: string[] = [];
    const done = await rollbackCatalog(env.CATALOG, {
      expect: before.current.version,
      onLive: (live, to) => seen.push(`${live}->${to}`),
    });
    expect(done.previous).toBe(before.current.version);
    expect(seen).toEqual([`${before.current.version}->${before.previous?.version}`]);
  });
});

/** The remote lock's SQL, run against a real D1 database (the BROWSE binding). */
const d1: SqlQuery = async (sql) => (await env.BROWSE.prepare(sql).all<Record<string, unknown>>()).results;

describe("the D1 publish lock (remote catalogs)", () => {
  it("lets one holder in at a time: the second waits for the first's release", async () => {
    const lock = sqlLock(d1, { waitMs: 10_000, pollMs: 20 });
    const order: string[] = [];
    const first = await lock.acquire({ action: "publish", version: "one" });
    const second = lock.acquire({ action: "rollback" }).then(async (held) => {
      order.push("second in");
      await held.release();
    });
    await new Promise((r) => setTimeout(r, 150));
    order.push("first out");
    await first.release();
    await second;
    expect(order).toEqual(["first out", "second in"]);
  });

  it("refuses at once with --wait 0, naming the holder", async () => {
    const held = await sqlLock(d1, { waitMs: 0 }).acquire({
      action: "publish",
      version: "v-busy",
      source: "big.json",
      by: "ana@laptop",
    });
    const error = await sqlLock(d1, { waitMs: 0 })
      .acquire({ action: "publish" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockBusyError);
    expect((error as Error).message).toMatch(
      /^Another catalog publish or rollback is running: publish of big\.json as version v-busy by ana@laptop since .*Nothing was done/,
    );
    await held.release();
  });

  it("takes over a lock whose lease ran out, reporting the version its holder was writing; the old holder can no longer switch", async () => {
    const old = await sqlLock(d1, { waitMs: 0, leaseMs: 1 }).acquire({ action: "publish", version: "v-old" });
    await new Promise((r) => setTimeout(r, 10));
    const next = await sqlLock(d1, { waitMs: 0 }).acquire({ action: "publish", version: "v-new" });
    expect(next.abandoned).toEqual(["v-old"]);
    await expect(old.verify()).rejects.toBeInstanceOf(LockBusyError);
    await next.verify();
    await next.release();
  });
});
