import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { STOCK_HISTORY_MS, type ShardChange, type StockMovement } from "../../src/stock/api.ts";
import { MIGRATIONS } from "../../src/stock/migrations.ts";
import type { Stock } from "../../src/stock/stock-object.ts";
import { DEFAULT_STOCK_SHARDS, StockStore, stockShards, stockStore } from "../../src/stock/store.ts";

const namespace = env.STOCK as DurableObjectNamespace<Stock>;
let counter = 0;
/** A fresh shard (by name) for each test, so tests never share levels. */
function freshShard(): DurableObjectStub<Stock> {
  counter += 1;
  return namespace.get(namespace.idFromName(`test-shard-${counter}-${crypto.randomUUID()}`));
}
/** Fresh variant ids: digits no other test uses. */
function ids(n: number): string[] {
  const base = 9_000_000_000 + Math.floor(Math.random() * 1e9);
  return Array.from({ length: n }, (_, i) => String(base + i * 7));
}
function sets(values: Record<string, number>, op: "set" | "adjust" = "set"): ShardChange[] {
  return Object.entries(values).map(([variantId, value], index) => ({ index, variantId, op, value }));
}
async function allMovements(stub: DurableObjectStub<Stock>): Promise<StockMovement[]> {
  return stub.movements({ limit: 1000 });
}
/** Replays the movement log: the level and held units it ends at, per variant. */
function replay(movements: readonly StockMovement[]): Map<string, { quantity: number; held: number }> {
  const out = new Map<string, { quantity: number; held: number }>();
  for (const m of movements) {
    const at = out.get(m.variant_id) ?? { quantity: 0, held: 0 };
    at.quantity += m.delta_quantity;
    at.held += m.delta_held;
    expect([at.quantity, at.held]).toEqual([m.quantity, m.held]);
    out.set(m.variant_id, at);
  }
  return out;
}

describe("a stock shard", () => {
  it("creates its schema through numbered migrations", async () => {
    const stub = freshShard();
    await stub.levels([]);
    await runInDurableObject(stub, (_i: Stock, state) => {
      const { version } = state.storage.sql.exec<{ version: number }>("SELECT version FROM schema_version").one();
      expect(version).toBe(MIGRATIONS.length);
    });
  });

  it("reads a variant it never saw as untracked", async () => {
    const [a] = ids(1);
    const [level] = await freshShard().levels([a!]);
    expect(level).toMatchObject({ variant_id: a, tracked: false, in_stock: true });
  });

  it("sets and adjusts levels, logging every change with its source", async () => {
    const stub = freshShard();
    const [a, b] = ids(2) as [string, string];
    const first = await stub.apply({
      batchId: "b1",
      fingerprint: "f1",
      source: "publish",
      changes: sets({ [a]: 3, [b]: 0 }),
    });
    expect(first.ok).toBe(true);
    const second = await stub.apply({
      batchId: "b2",
      fingerprint: "f2",
      source: "operator",
      changes: sets({ [a]: -2, [b]: 5 }, "adjust"),
    });
    if (!second.ok) throw new Error(second.message);
    expect(second.applied.map((c) => [c.variant_id, c.previous, c.quantity, c.flipped])).toEqual([
      [a, 3, 1, false],
      [b, 0, 5, true],
    ]);
    const levels = await stub.levels([a, b]);
    expect(levels.map((l) => [l.quantity, l.available_quantity, l.in_stock])).toEqual([
      [1, 1, true],
      [5, 5, true],
    ]);
    const log = await allMovements(stub);
    expect(log.map((m) => [m.variant_id, m.source, m.ref, m.kind, m.delta_quantity])).toEqual([
      [a, "publish", "b1", "set", 3],
      [b, "publish", "b1", "set", 0],
      [a, "operator", "b2", "adjust", -2],
      [b, "operator", "b2", "adjust", 5],
    ]);
    expect(replay(log).get(a)).toEqual({ quantity: 1, held: 0 });
  });

  it("starts tracking with an operator's set, refuses an adjust of an untracked variant, and stops with untrack", async () => {
    const stub = freshShard();
    const [a, b] = ids(2) as [string, string];
    const op = (batchId: string, changes: ShardChange[]) =>
      stub.apply({ batchId, fingerprint: batchId, source: "operator", changes });
    expect(await op("adj", [{ index: 0, variantId: a, op: "adjust", value: 2 }])).toMatchObject({
      ok: false,
      code: "not_tracked",
      index: 0,
    });
    expect((await stub.levels([a]))[0]).toMatchObject({ tracked: false, tracked_by: null });
    const started = await op("start", [
      { index: 0, variantId: a, op: "set", value: 3 },
      { index: 1, variantId: a, op: "adjust", value: 2 },
    ]);
    if (!started.ok) throw new Error(started.message);
    expect(started.applied.map((c) => c.tracking)).toEqual(["started", undefined]);
    expect((await stub.levels([a]))[0]).toMatchObject({ tracked: true, tracked_by: "operator", quantity: 5 });
    await stub.hold("h", [{ variant_id: a, quantity: 2 }]);
    const stopped = await op("stop", [
      { index: 0, variantId: a, op: "untrack", value: 0 },
      { index: 1, variantId: b, op: "untrack", value: 0 },
    ]);
    if (!stopped.ok) throw new Error(stopped.message);
    expect(stopped.applied.map((c) => [c.tracking, c.changed])).toEqual([
      ["stopped", true],
      [undefined, false],
    ]);
    expect((await stub.levels([a]))[0]).toMatchObject({ tracked: false, held: 0, in_stock: true });
    // The hold that was open settles without a level to change; the log still adds up.
    expect((await stub.release("h")).previous).toBe("held");
    const log = await allMovements(stub);
    expect(log.map((m) => m.kind)).toEqual(["set", "adjust", "hold", "untrack"]);
    expect(replay(log).get(a)).toEqual({ quantity: 0, held: 0 });
  });

  it("reads a level for a holder with its own held units as its own, and holds in place of its open hold", async () => {
    const stub = freshShard();
    const [a] = ids(1) as [string];
    await stub.apply({ batchId: "p", fingerprint: "p", source: "publish", changes: sets({ [a]: 3 }) });
    expect(await stub.hold("mine-1", [{ variant_id: a, quantity: 3 }], undefined, { owner: "me" })).toMatchObject({
      ok: true,
    });
    expect((await stub.levels([a]))[0]).toMatchObject({ available_quantity: 0, own_held: 0, in_stock: false });
    expect((await stub.levels([a], "me"))[0]).toMatchObject({ available_quantity: 3, own_held: 3, in_stock: true });
    expect((await stub.levels([a], "someone-else"))[0]).toMatchObject({ available_quantity: 0, in_stock: false });
    // Without `replaces` the holder's own units are taken; in place of its open hold they count.
    expect(await stub.hold("mine-2", [{ variant_id: a, quantity: 3 }], undefined, { owner: "me" })).toMatchObject({
      ok: false,
      refusals: [{ code: "sold_out" }],
    });
    expect(
      await stub.hold("mine-3", [{ variant_id: a, quantity: 3 }], undefined, { owner: "me", replaces: ["mine-1"] }),
    ).toMatchObject({ ok: true });
    // Both are held until the caller releases the replaced one: nobody else can take a unit meanwhile.
    expect((await stub.levels([a]))[0]).toMatchObject({ held: 6, available_quantity: 0 });
    await stub.release("mine-1");
    expect((await stub.levels([a]))[0]).toMatchObject({ held: 3, available_quantity: 0 });
    expect((await stub.levels([a], "me"))[0]).toMatchObject({ own_held: 3, available_quantity: 3 });
  });

  it("refuses to hold more than maxUnits of a deny variant (hold_limit with max_quantity), not of a continue one", async () => {
    const stub = freshShard();
    const [a, b] = ids(2) as [string, string];
    await stub.apply({ batchId: "p", fingerprint: "p", source: "publish", changes: sets({ [a]: 100 }) });
    await stub.apply({
      batchId: "c",
      fingerprint: "c",
      source: "publish",
      changes: [{ index: 0, variantId: b, op: "set", value: 100, policy: "continue" }],
    });
    expect(await stub.hold("big", [{ variant_id: a, quantity: 11 }], undefined, { maxUnits: 10 })).toEqual({
      ok: false,
      code: "hold_refused",
      refusals: [{ variant_id: a, code: "hold_limit", available_quantity: 100, max_quantity: 10 }],
    });
    expect(await stub.hold("ten", [{ variant_id: a, quantity: 10 }], undefined, { maxUnits: 10 })).toMatchObject({
      ok: true,
    });
    expect(await stub.hold("many", [{ variant_id: b, quantity: 50 }], undefined, { maxUnits: 10 })).toMatchObject({
      ok: true,
    });
  });

  it("applies a batch id once: a retry replays, a different batch under the id is refused", async () => {
    const stub = freshShard();
    const [a] = ids(1) as [string];
    // A set (an adjust needs a level: see "starts and stops tracking").
    const batch = {
      batchId: "k",
      fingerprint: "same",
      source: "operator" as const,
      changes: sets({ [a]: 4 }),
    };
    expect((await stub.apply(batch)).ok).toBe(true);
    const again = await stub.apply(batch);
    expect(again).toMatchObject({ ok: true, replayed: true });
    expect((await stub.levels([a]))[0]!.quantity).toBe(4);
    const other = await stub.apply({ ...batch, fingerprint: "other" });
    expect(other).toMatchObject({ ok: false, code: "idempotency_key_reused" });
    expect((await stub.levels([a]))[0]!.quantity).toBe(4);
    expect((await allMovements(stub)).length).toBe(1);
  });

  it("refuses a whole batch when one adjust would overflow, naming its index, and changes nothing", async () => {
    const stub = freshShard();
    const [a, b] = ids(2) as [string, string];
    await stub.apply({
      batchId: "s",
      fingerprint: "s",
      source: "operator",
      changes: sets({ [a]: 999_999_999, [b]: 1 }),
    });
    const refused = await stub.apply({
      batchId: "o",
      fingerprint: "o",
      source: "operator",
      changes: [
        { index: 0, variantId: b, op: "adjust", value: 5 },
        { index: 1, variantId: a, op: "adjust", value: 2 },
      ],
    });
    expect(refused).toMatchObject({ ok: false, code: "quantity_out_of_range", index: 1 });
    expect((await stub.levels([a, b])).map((l) => l.quantity)).toEqual([999_999_999, 1]);
    // The refused batch id was not spent: fixed, it applies.
    const fixed = await stub.apply({
      batchId: "o2",
      fingerprint: "o2",
      source: "operator",
      changes: sets({ [a]: 1 }, "adjust"),
    });
    expect(fixed.ok).toBe(true);
  });

  it("holds all lines or none, refusing with sold_out or insufficient_stock and what is left", async () => {
    const stub = freshShard();
    const [a, b, untracked] = ids(3) as [string, string, string];
    await stub.apply({ batchId: "p", fingerprint: "p", source: "publish", changes: sets({ [a]: 3, [b]: 0 }) });
    const refused = await stub.hold("h1", [
      { variant_id: a, quantity: 4 },
      { variant_id: b, quantity: 1 },
      { variant_id: untracked, quantity: 50 },
    ]);
    expect(refused).toEqual({
      ok: false,
      code: "hold_refused",
      refusals: [
        { variant_id: a, code: "insufficient_stock", available_quantity: 3 },
        { variant_id: b, code: "sold_out", available_quantity: 0 },
      ],
    });
    expect((await stub.levels([a]))[0]!.held).toBe(0);
    const held = await stub.hold("h2", [
      { variant_id: a, quantity: 2 },
      { variant_id: untracked, quantity: 50 },
    ]);
    expect(held).toMatchObject({ ok: true, replayed: false });
    expect((await stub.levels([a]))[0]).toMatchObject({ quantity: 3, held: 2, available_quantity: 1, in_stock: true });
    // The same id again replays, it does not hold twice.
    expect(await stub.hold("h2", [{ variant_id: a, quantity: 2 }])).toMatchObject({ ok: true, replayed: true });
    expect((await stub.levels([a]))[0]!.held).toBe(2);
    // A second checkout cannot take the held units.
    expect(await stub.hold("h3", [{ variant_id: a, quantity: 2 }])).toMatchObject({
      ok: false,
      refusals: [{ code: "insufficient_stock", available_quantity: 1 }],
    });
  });

  it("releases and commits holds once each, whatever the number of calls", async () => {
    const stub = freshShard();
    const [a] = ids(1) as [string];
    await stub.apply({ batchId: "p", fingerprint: "p", source: "publish", changes: sets({ [a]: 5 }) });
    await stub.hold("keep", [{ variant_id: a, quantity: 2 }]);
    await stub.hold("drop", [{ variant_id: a, quantity: 1 }]);
    expect((await stub.release("drop")).previous).toBe("held");
    expect((await stub.release("drop")).previous).toBe("released");
    expect((await stub.release("never")).previous).toBe("unknown");
    expect(await stub.hold("drop", [{ variant_id: a, quantity: 1 }])).toMatchObject({ ok: false, code: "hold_closed" });
    const first = await stub.commit("keep", [{ variant_id: a, quantity: 2 }]);
    expect(first).toMatchObject({ replayed: false, lines: [{ variant_id: a, quantity: 2, oversold: false }] });
    const second = await stub.commit("keep", [{ variant_id: a, quantity: 2 }]);
    expect(second.replayed).toBe(true);
    expect((await stub.levels([a]))[0]).toMatchObject({ quantity: 3, held: 0, available_quantity: 3 });
    // Releasing a committed hold gives nothing back.
    expect((await stub.release("keep")).previous).toBe("committed");
    expect((await stub.levels([a]))[0]).toMatchObject({ quantity: 3, held: 0 });
    const log = await allMovements(stub);
    expect(log.map((m) => m.kind)).toEqual(["set", "hold", "hold", "release", "commit"]);
    expect(replay(log).get(a)).toEqual({ quantity: 3, held: 0 });
  });

  it("commits a released or unseen hold anyway, flagging lines stock no longer covered as oversold", async () => {
    const stub = freshShard();
    const [a, b] = ids(2) as [string, string];
    await stub.apply({ batchId: "p", fingerprint: "p", source: "publish", changes: sets({ [a]: 1, [b]: 10 }) });
    await stub.hold("late", [{ variant_id: a, quantity: 1 }]);
    await stub.release("late");
    await stub.hold("other", [{ variant_id: a, quantity: 1 }]);
    const late = await stub.commit("late", [
      { variant_id: a, quantity: 1 },
      { variant_id: b, quantity: 2 },
    ]);
    expect(late.lines).toEqual([
      { variant_id: a, quantity: 1, oversold: true },
      { variant_id: b, quantity: 2, oversold: false },
    ]);
    expect((await stub.levels([a, b])).map((l) => [l.quantity, l.held])).toEqual([
      [0, 1],
      [8, 0],
    ]);
    const unseen = await stub.commit("unseen", [{ variant_id: b, quantity: 1 }]);
    expect(unseen.lines).toEqual([{ variant_id: b, quantity: 1, oversold: false }]);
    expect((await stub.commit("unseen", [{ variant_id: b, quantity: 1 }])).replayed).toBe(true);
    expect((await stub.levels([b]))[0]!.quantity).toBe(7);
  });

  it("sells a continue-policy variant past zero", async () => {
    const stub = freshShard();
    const [a] = ids(1) as [string];
    await stub.apply({
      batchId: "p",
      fingerprint: "p",
      source: "publish",
      changes: [{ index: 0, variantId: a, op: "set", value: 0, policy: "continue" }],
    });
    expect((await stub.levels([a]))[0]).toMatchObject({ in_stock: true, policy: "continue" });
    expect((await stub.hold("c", [{ variant_id: a, quantity: 3 }])).ok).toBe(true);
    await stub.commit("c", []);
    expect((await stub.levels([a]))[0]).toMatchObject({ quantity: -3, held: 0, in_stock: true });
    // An operator change keeps the policy the publish wrote.
    await stub.apply({ batchId: "o", fingerprint: "o", source: "operator", changes: sets({ [a]: 2 }) });
    expect((await stub.levels([a]))[0]!.policy).toBe("continue");
  });

  it("never holds more than is there, whatever the number of concurrent holds", async () => {
    const stub = freshShard();
    const [a] = ids(1) as [string];
    await stub.apply({ batchId: "p", fingerprint: "p", source: "publish", changes: sets({ [a]: 5 }) });
    const results = await Promise.all(
      Array.from({ length: 25 }, (_, i) => stub.hold(`race-${i}`, [{ variant_id: a, quantity: 1 }])),
    );
    expect(results.filter((r) => r.ok).length).toBe(5);
    expect((await stub.levels([a]))[0]).toMatchObject({ held: 5, available_quantity: 0, in_stock: false });
  });

  it("releases a hold still open at its expiry and prunes history older than the retention", async () => {
    const stub = freshShard();
    const [a] = ids(1) as [string];
    await stub.apply({ batchId: "p", fingerprint: "p", source: "publish", changes: sets({ [a]: 2 }) });
    await stub.hold("exp", [{ variant_id: a, quantity: 2 }], Date.now() + 60_000);
    await runInDurableObject(stub, (_i: Stock, state) => {
      state.storage.sql.exec("UPDATE holds SET expires_at = ?", Date.now() - 1);
      // A movement from before the retention window, to be pruned.
      state.storage.sql.exec("UPDATE movements SET at = ? WHERE kind = 'set'", Date.now() - STOCK_HISTORY_MS - 1000);
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await stub.holdState("exp")).toBe("released");
    expect((await stub.levels([a]))[0]).toMatchObject({ quantity: 2, held: 0, in_stock: true });
    const log = await allMovements(stub);
    expect(log.map((m) => m.kind)).toEqual(["hold", "expire"]);
    // The alarm re-armed itself for the next housekeeping.
    await runInDurableObject(stub, async (_i: Stock, state) => {
      expect(await state.storage.getAlarm()).not.toBeNull();
    });
  });
});

describe("the stock adapter", () => {
  it("reads STOCK_SHARDS as 1-256, else the default", () => {
    expect(stockShards("4")).toBe(4);
    expect(stockShards("256")).toBe(256);
    for (const bad of [undefined, "", "0", "257", "2.5", "x"]) expect(stockShards(bad)).toBe(DEFAULT_STOCK_SHARDS);
    expect(stockStore(env).shards).toBe(stockShards(env.STOCK_SHARDS));
  });

  it("routes each variant to one shard, the same every time, and spreads variants over shards", () => {
    const store = new StockStore(namespace, 8);
    const variants = ids(200);
    const shards = new Set(variants.map((v) => store.shardOf(v)));
    expect(shards.size).toBe(8);
    for (const v of variants) expect(new StockStore(namespace, 8).shardOf(v)).toBe(store.shardOf(v));
  });

  /** Variants that land on at least `n` different shards of `store`. */
  function spread(store: StockStore, n: number): string[] {
    const byShard = new Map<number, string>();
    for (const v of ids(500)) if (!byShard.has(store.shardOf(v))) byShard.set(store.shardOf(v), v);
    const picked = [...byShard.values()].slice(0, n);
    expect(picked.length).toBe(n);
    return picked;
  }

  it("holds across shards all or none: a refusal on one shard releases what the others held", async () => {
    const store = new StockStore(namespace, 5);
    const [a, b, c] = spread(store, 3) as [string, string, string];
    await store.apply(crypto.randomUUID(), "f", "publish", sets({ [a]: 5, [b]: 5, [c]: 1 }));
    const refused = await store.hold("multi", [
      { variant_id: a, quantity: 2 },
      { variant_id: b, quantity: 2 },
      { variant_id: c, quantity: 2 },
    ]);
    expect(refused).toEqual({
      ok: false,
      code: "hold_refused",
      refusals: [{ variant_id: c, code: "insufficient_stock", available_quantity: 1 }],
    });
    const levels = await store.levels([a, b, c]);
    expect([...levels.values()].map((l) => l.held)).toEqual([0, 0, 0]);
    const held = await store.hold("multi-2", [
      { variant_id: a, quantity: 2 },
      { variant_id: c, quantity: 1 },
    ]);
    expect(held.ok).toBe(true);
    const committed = await store.commit("multi-2", [
      { variant_id: a, quantity: 2 },
      { variant_id: c, quantity: 1 },
    ]);
    expect(committed.lines.every((l) => !l.oversold)).toBe(true);
    expect([...(await store.levels([a, c])).values()].map((l) => [l.quantity, l.held])).toEqual([
      [3, 0],
      [0, 0],
    ]);
  });

  it("completes a batch cut short when it is retried with the same id, saying which changes were applied before", async () => {
    const store = new StockStore(namespace, 4);
    const [a, b] = spread(store, 2) as [string, string];
    const key = crypto.randomUUID();
    const changes = sets({ [a]: 7, [b]: 9 });
    // The first try reached only a's shard (as if the caller crashed there).
    const partial = await store
      .shardFor(a)
      .apply({ batchId: key, fingerprint: "fp", source: "operator", changes: [changes[0]!] });
    expect(partial.ok).toBe(true);
    const retried = await store.apply(key, "fp", "operator", changes);
    if (!retried.ok) throw new Error(retried.message);
    expect(retried.applied.map((c) => [c.variant_id, c.quantity, c.replayed])).toEqual([
      [a, 7, true],
      [b, 9, false],
    ]);
    const again = await store.apply(key, "fp", "operator", changes);
    expect(again.ok && again.applied.every((c) => c.replayed)).toBe(true);
    expect([...(await store.levels([a, b])).values()].map((l) => l.quantity)).toEqual([7, 9]);
    const log = [...(await store.movements(a)), ...(await store.movements(b))];
    expect(log.length).toBe(2);
  });

  it("refuses a different batch under a used id before any shard applies it", async () => {
    const store = new StockStore(namespace, 4);
    const [a, b] = spread(store, 2) as [string, string];
    const key = crypto.randomUUID();
    expect((await store.apply(key, "first", "operator", sets({ [a]: 1, [b]: 1 }))).ok).toBe(true);
    const reused = await store.apply(key, "second", "operator", sets({ [a]: 50, [b]: 50 }));
    expect(reused).toMatchObject({ ok: false, code: "idempotency_key_reused" });
    expect([...(await store.levels([a, b])).values()].map((l) => l.quantity)).toEqual([1, 1]);
  });

  it("refuses an overflowing multi-shard batch before any shard applies it", async () => {
    const store = new StockStore(namespace, 4);
    const [a, b] = spread(store, 2) as [string, string];
    await store.apply(crypto.randomUUID(), "f", "operator", sets({ [a]: 1, [b]: 999_999_999 }));
    const refused = await store.apply(crypto.randomUUID(), "g", "operator", sets({ [a]: 1, [b]: 2 }, "adjust"));
    expect(refused).toMatchObject({ ok: false, code: "quantity_out_of_range", index: 1, applied: [] });
    expect([...(await store.levels([a, b])).values()].map((l) => l.quantity)).toEqual([1, 999_999_999]);
  });
});

describe("a shard's overlay pushes to the coordinator", () => {
  /** What the coordinator last received from `shard` (its seq and entries), and whether the shard still owes a push. */
  async function pushed(shard: DurableObjectStub<Stock>) {
    const coordinator = stockStore(env).coordinator();
    const received = await runInDurableObject(
      coordinator,
      (_i: Stock, state) =>
        state.storage.sql
          .exec<{ seq: number; entries: string }>(
            "SELECT seq, entries FROM fragments WHERE shard = ?",
            shard.id.toString(),
          )
          .toArray()[0],
    );
    const owed = await runInDurableObject(shard, (_i: Stock, state) =>
      state.storage.sql.exec<{ seq: number; dirty: number }>("SELECT seq, dirty FROM overlay_push").one(),
    );
    return { seq: received?.seq, entries: received ? JSON.parse(received.entries) : undefined, owed };
  }

  it("pushes the first change at once and a burst's later ones in one push by the alarm, a second on", async () => {
    const stub = freshShard();
    const [a] = ids(1) as [string];
    const set = await stub.apply({ batchId: "p1", fingerprint: "f", source: "operator", changes: sets({ [a]: 100 }) });
    expect(set.ok).toBe(true);
    // The first change after a quiet second: pushed before the call answered.
    expect(await pushed(stub)).toMatchObject({ seq: 1, owed: { seq: 1, dirty: 0 } });
    for (let i = 0; i < 4; i++) expect((await stub.hold(`burst-${i}`, [{ variant_id: a, quantity: 1 }])).ok).toBe(true);
    // Four more changes within the second: the coordinator still has the first; the shard owes the rest.
    expect(await pushed(stub)).toMatchObject({ seq: 1, owed: { seq: 5, dirty: 1 } });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const after = await pushed(stub);
    expect(after).toMatchObject({ seq: 5, owed: { seq: 5, dirty: 0 } });
    // One push carrying the burst's end: 100 set, 4 held.
    expect(after.entries).toEqual([[a, 1, 96, -1, -1]]);
  });
});
