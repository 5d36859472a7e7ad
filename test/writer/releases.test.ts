import { env } from "cloudflare:workers";
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import {
  HISTORY_KEY,
  type HistoryEntry,
  keys,
  type Pointer,
  POINTER_KEY,
  type VersionMeta,
} from "../../src/catalog/layout.ts";
import { applyBatch } from "../../src/publish/batch/apply.ts";
import { d1Target } from "../../src/publish/browse-index.ts";
import { d1Query, sqlLock } from "../../src/publish/lock.ts";
import { bindingTarget, listHistory, publishCatalog, rollbackCatalog } from "../../src/publish/publish.ts";
import { cancelRelease, NoSuchReleaseError, releaseDue } from "../../src/publish/release.ts";
import { publishSeedCatalog, seedCatalog, shiftedSeed } from "../helpers/catalog.ts";
import { call, operator } from "../helpers/cart.ts";
import { releaseClock } from "../../src/writer/env.ts";

/**
 * Releases that switch at a set second (issue 45, point 5): a version written now and recorded
 * `scheduled`, kept by every cleanup, made live by the release clock (the catalog writer's Durable
 * Object alarm) at its second and not before, canceled on request or, for a batch whose base is no
 * longer live, with the reason; readable by the operator before it is live, never publicly.
 */

const browse = () => d1Target(env.BROWSE, env.BROWSE_SNAPSHOTS);
const target = () => bindingTarget(env.CATALOG);
const lock = () => sqlLock(d1Query(env.BROWSE), { waitMs: 2_000, pollMs: 50 });
const pointer = async () => (await env.CATALOG.get<Pointer>(POINTER_KEY, "json")) as Pointer;
const history = async () => (await env.CATALOG.get<HistoryEntry[]>(HISTORY_KEY, "json")) ?? [];
const metaOf = (version: string) => env.CATALOG.get<VersionMeta>(keys.meta(version), "json");
const clock = () => releaseClock(env);
const inAnHour = () => new Date(Date.now() + 3600_000);

/** The price of a product's first variant as the public detail answers it now. */
async function publicPrice(handle: string): Promise<string> {
  const res = await call(`/api/v1/products/${handle}?include=variants`);
  return ((await res.json()) as { variants: { price: { amount: string } }[] }).variants[0]!.price.amount;
}

/** A seed product with its first variant at `price`. */
function repriced(handle: string, price: string) {
  const product = seedCatalog().products.find((p) => p.handle === handle)!;
  product.variants[0]!.price = price;
  return product;
}

/** The catalog's own first-variant price of the tote in a shifted seed. */
const totePrice = (cents: number) =>
  shiftedSeed(cents).products.find((p) => p.handle === "canvas-market-tote")!.variants[0]!.price;

beforeAll(async () => {
  await publishSeedCatalog();
});

describe("a publish scheduled for a set second", () => {
  it("is written and listed as scheduled, stays off the pointer, survives cleanups, and goes live when due", async () => {
    const live = (await pointer()).current.version;
    const at = inAnHour();
    const scheduled = await publishCatalog(env.CATALOG, shiftedSeed(300), { browse: browse(), releaseAt: at });
    expect(scheduled.release_at).toBe(at.toISOString());
    expect(scheduled.previous).toBe(live);
    expect((await pointer()).current.version).toBe(live);
    const entry = (await history()).at(-1)!;
    expect(entry).toMatchObject({ version: scheduled.version, state: "scheduled", release_at: at.toISOString() });
    const line = (await listHistory(target())).find((l) => l.version === scheduled.version)!;
    expect(line).toMatchObject({ state: "scheduled", live: false, kept: true });

    // Six publishes later (cleanup keeps five) its version is still whole.
    for (let i = 1; i <= 6; i++) await publishCatalog(env.CATALOG, shiftedSeed(i), { browse: browse() });
    expect(await metaOf(scheduled.version)).not.toBeNull();

    // Not due: nothing happens, and the next release is named.
    const early = await releaseDue(target(), { lock: lock(), browse: browse(), now: new Date(at.getTime() - 1000) });
    expect(early).toEqual({ released: [], canceled: [], next: at.toISOString() });
    expect((await pointer()).current.version).not.toBe(scheduled.version);

    const before = await pointer();
    const run = await releaseDue(target(), { lock: lock(), browse: browse(), now: at });
    expect(run).toEqual({ released: [scheduled.version], canceled: [], next: null });
    const after = await pointer();
    expect(after.current.version).toBe(scheduled.version);
    expect(after.previous?.version).toBe(before.current.version);
    expect(await publicPrice("canvas-market-tote")).toBe(totePrice(300));

    // Recorded where it went live: its entry released, a new entry at the end, and its stock place
    // (stock_seq) that entry's, so live stock takes its levels though six publishes came between.
    const entries = await history();
    expect(entries.find((e) => e.seq === entry.seq)?.state).toBe("released");
    const last = entries.at(-1)!;
    expect(last).toMatchObject({ action: "publish", version: scheduled.version, from: before.current.version });
    expect(last.state).toBeUndefined();
    expect(last.meta.stock_seq).toBe(last.seq);
    expect((await metaOf(scheduled.version))?.stock_seq).toBe(last.seq);
    expect(after.current.stock_seq).toBe(last.seq);
  });

  it("is refused by a rollback --to until it goes live, and can be canceled: its version deleted", async () => {
    const live = (await pointer()).current.version;
    const scheduled = await publishCatalog(env.CATALOG, shiftedSeed(400), { browse: browse(), releaseAt: inAnHour() });
    await expect(rollbackCatalog(env.CATALOG, { to: scheduled.version })).rejects.toThrow(/is scheduled to go live/);
    const canceled = await cancelRelease(target(), scheduled.version, {
      lock: lock(),
      browse: browse(),
      by: "ops@test",
    });
    expect(canceled.version).toBe(scheduled.version);
    const entry = (await history()).find((e) => e.version === scheduled.version)!;
    expect(entry.state).toBe("canceled");
    expect(entry.reason).toMatch(/^canceled by ops@test at /);
    expect(await metaOf(scheduled.version)).toBeNull();
    expect((await pointer()).current.version).toBe(live);
    // Nothing left to release, and nothing to cancel twice.
    expect(
      await releaseDue(target(), { lock: lock(), browse: browse(), now: new Date(Date.now() + 7200_000) }),
    ).toEqual({
      released: [],
      canceled: [],
      next: null,
    });
    await expect(cancelRelease(target(), scheduled.version, { lock: lock(), browse: browse() })).rejects.toThrow(
      NoSuchReleaseError,
    );
  });
});

describe("a change batch scheduled for a set second", () => {
  it("goes live when its base is still live", async () => {
    const base = (await pointer()).current.version;
    const at = inAnHour();
    const result = await applyBatch(
      target(),
      { upsert: [repriced("canvas-market-tote", "27.25")] },
      {
        browse: browse(),
        releaseAt: at,
      },
    );
    expect(result).toMatchObject({ previous: base, release_at: at.toISOString(), changed: { products: 1 } });
    expect(await publicPrice("canvas-market-tote")).not.toBe("27.25");
    const run = await releaseDue(target(), { lock: lock(), browse: browse(), now: at });
    expect(run.released).toEqual([result.version]);
    expect((await pointer()).current.version).toBe(result.version);
    expect(await publicPrice("canvas-market-tote")).toBe("27.25");
  });

  it("is canceled, with the reason, when another version went live after it was written", async () => {
    const at = inAnHour();
    const late = await applyBatch(
      target(),
      { upsert: [repriced("canvas-market-tote", "26.00")] },
      {
        browse: browse(),
        releaseAt: at,
      },
    );
    const meanwhile = await applyBatch(
      target(),
      { upsert: [repriced("leather-card-holder-tan", "41.00")] },
      {
        browse: browse(),
      },
    );
    const run = await releaseDue(target(), { lock: lock(), browse: browse(), now: at });
    expect(run.released).toEqual([]);
    expect(run.canceled).toEqual([{ version: late.version, reason: expect.stringContaining(meanwhile.version) }]);
    // The batch that went live in between stays live, and the canceled one's version is gone.
    expect((await pointer()).current.version).toBe(meanwhile.version);
    expect(await publicPrice("canvas-market-tote")).toBe("27.25");
    const entry = (await history()).find((e) => e.version === late.version)!;
    expect(entry).toMatchObject({ state: "canceled", reason: expect.stringMatching(/would undo what went live/) });
    expect(await metaOf(late.version)).toBeNull();
  });
});

describe("the release clock and the operator's routes", () => {
  it("switches a release at its second, not before: POST /operator/catalog/releases sets the alarm", async () => {
    const at = new Date(Date.now() + 2_500);
    const scheduled = await publishCatalog(env.CATALOG, shiftedSeed(500), { browse: browse(), releaseAt: at });
    const res = await operator("/catalog/releases", {
      method: "POST",
      body: JSON.stringify({ version: scheduled.version, release_at: at.toISOString() }),
    });
    expect(res.status).toBe(202);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await res.json()).toEqual({
      object: "catalog_release",
      version: scheduled.version,
      release_at: at.toISOString(),
    });
    let seenLiveAt = 0;
    for (let waited = 0; waited < 15_000 && seenLiveAt === 0; waited += 100) {
      const now = Date.now();
      if ((await pointer()).current.version === scheduled.version) seenLiveAt = now;
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(seenLiveAt).toBeGreaterThan(0);
    expect(seenLiveAt).toBeGreaterThanOrEqual(at.getTime());
    expect(await publicPrice("canvas-market-tote")).toBe(totePrice(500));
  });

  it("tries again in seconds while another publish holds the catalog", async () => {
    const at = new Date(Date.now() + 1_000);
    const scheduled = await publishCatalog(env.CATALOG, shiftedSeed(600), { browse: browse(), releaseAt: at });
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const held = await sqlLock(d1Query(env.BROWSE), { waitMs: 0 }).acquire({ action: "publish", by: "someone" });
    try {
      await runInDurableObject(clock(), (_instance, state) => state.storage.setAlarm(Date.now()));
      await runDurableObjectAlarm(clock());
      expect((await pointer()).current.version).not.toBe(scheduled.version);
      const next = await runInDurableObject(clock(), (_instance, state) => state.storage.getAlarm());
      expect(next).toBeGreaterThan(Date.now());
      expect(next).toBeLessThanOrEqual(Date.now() + 5_000);
    } finally {
      await held.release();
    }
    await runDurableObjectAlarm(clock());
    expect((await pointer()).current.version).toBe(scheduled.version);
  });

  it("lets the operator read a scheduled version's product, never through the public answer or cache", async () => {
    const live = (await pointer()).current.version;
    const scheduled = await publishCatalog(env.CATALOG, shiftedSeed(700), { browse: browse(), releaseAt: inAnHour() });
    const path = `/catalog/versions/${scheduled.version}/products/canvas-market-tote`;
    const res = await operator(path);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-catalog-version")).toBe(scheduled.version);
    const product = (await res.json()) as { handle: string; variants: { price: { amount: string } }[]; seo: unknown };
    expect(product.handle).toBe("canvas-market-tote");
    expect(product.variants[0]!.price.amount).toBe(totePrice(700));
    expect(product.seo).toBeDefined();
    // The public detail still answers the live version.
    const publicRes = await call("/api/v1/products/canvas-market-tote?include=variants");
    expect(publicRes.headers.get("x-catalog-version")).toBe(live);
    expect(await publicPrice("canvas-market-tote")).not.toBe(totePrice(700));
    // Without the secret: 401, whatever the version.
    expect((await call(`/api/v1/operator${path}`)).status).toBe(401);
    // An unknown version and an unknown handle: 404 naming which.
    const unknownVersion = await operator("/catalog/versions/no-such-version/products/canvas-market-tote");
    expect(unknownVersion.status).toBe(404);
    expect(((await unknownVersion.json()) as { error: { param: string } }).error.param).toBe("version");
    const unknownHandle = await operator(`/catalog/versions/${scheduled.version}/products/no-such-product`);
    expect(unknownHandle.status).toBe(404);
    expect(((await unknownHandle.json()) as { error: { param: string } }).error.param).toBe("handle");
    await cancelRelease(target(), scheduled.version, { lock: lock(), browse: browse() });
    expect((await operator(path)).status).toBe(404);
  });

  it("schedules a batch through POST /operator/catalog/changes?release_at=: 202, live at its second", async () => {
    const live = (await pointer()).current.version;
    const at = new Date(Date.now() + 2_000).toISOString();
    const batch = { upsert: [repriced("canvas-market-tote", "24.75")] };
    const send = (releaseAt: string, key = "scheduled-batch") =>
      operator(`/catalog/changes?release_at=${encodeURIComponent(releaseAt)}`, {
        method: "POST",
        body: JSON.stringify(batch),
        headers: { "Idempotency-Key": key },
      });
    const res = await send(at);
    expect(res.status).toBe(202);
    const body = (await res.json()) as { version: string; previous_version: string; release_at: string };
    expect(body).toMatchObject({ object: "catalog_version", previous_version: live, release_at: at });
    expect((await pointer()).current.version).toBe(live);
    // The key covers the time: the same batch for another second is another request.
    expect((await send(new Date(Date.now() + 3600_000).toISOString())).status).toBe(422);
    const replay = await send(at);
    expect(replay.status).toBe(202);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    for (let waited = 0; waited < 15_000 && (await pointer()).current.version !== body.version; waited += 100)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await pointer()).current.version).toBe(body.version);
    expect(await publicPrice("canvas-market-tote")).toBe("24.75");

    for (const bad of ["2030-01-01T09:00:00", "2020-01-01T09:00:00Z", "2099-01-01T09:00:00Z"]) {
      const refused = await send(bad, `bad-${bad}`);
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: { param: string } }).error.param).toBe("release_at");
    }
  });

  it("arms for any valid time: one long past wakes the clock now, one far ahead in a year (regression: the year 632 was a 500)", async () => {
    for (const [releaseAt, soonest, latest] of [
      ["0632-05-01T00:35:59.477Z", 0, 60_000],
      ["9999-12-31T23:59:59Z", 365 * 24 * 3600_000, 367 * 24 * 3600_000],
    ] as const) {
      await runInDurableObject(clock(), (_instance, state) => state.storage.deleteAlarm());
      const res = await operator("/catalog/releases", {
        method: "POST",
        body: JSON.stringify({ version: "v1", release_at: releaseAt }),
      });
      expect(res.status).toBe(202);
      const alarm = await runInDurableObject(clock(), (_instance, state) => state.storage.getAlarm());
      if (alarm !== null) {
        expect(alarm - Date.now()).toBeGreaterThanOrEqual(soonest - 60_000);
        expect(alarm - Date.now()).toBeLessThanOrEqual(latest);
      } else expect(soonest).toBe(0); // already rung: nothing was due
    }
    await runInDurableObject(clock(), (_instance, state) => state.storage.deleteAlarm());
  });

  it("refuses a release time without its zone, or a version name that cannot be one", async () => {
    for (const body of [
      { version: "v1", release_at: "2030-01-01T09:00:00" },
      { version: "v/1", release_at: "2030-01-01T09:00:00Z" },
      { version: "v1" },
    ]) {
      const res = await operator("/catalog/releases", { method: "POST", body: JSON.stringify(body) });
      expect(res.status).toBe(400);
    }
  });
});
