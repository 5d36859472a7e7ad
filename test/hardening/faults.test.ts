import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CartSchema, type Cart as CartView } from "../../src/cart/api.ts";
import { cartFor, requestFingerprint } from "../../src/cart/cart-client.ts";
import type { Cart } from "../../src/cart/cart-object.ts";
import { addLine, cartCall, issueToken, readCart, seedVariants, type SeedVariants } from "../helpers/cart.ts";
import { fuzzRuns, printFigures, timeoutFor } from "./run-config.ts";

/**
 * Concurrency and faults, in workerd with real KV and cart Durable Objects: several clients
 * writing one cart at once, idempotent retries racing each other, the cart object evicted while
 * requests are in flight, and expiry alarms delivered twice. Faults around catalog publishes are
 * in faults-publish.test.ts.
 * What is already proven elsewhere is not repeated (see the README's Reliability section).
 */

let seed: SeedVariants;
const figures = {
  concurrent_clients: 0,
  concurrent_writes: 0,
  accepted_writes: 0,
  lost_writes: 0,
  doubled_writes: 0,
  evictions: 0,
  crashes: 0,
  reads_under_publish: 0,
  publishes: 0,
  mixed_versions: 0,
  unexpected_5xx: 0,
  alarms_redelivered: 0,
};

beforeAll(async () => {
  seed = await seedVariants();
});

afterAll(() => printFigures("faults", figures));

function quantities(cart: CartView): Map<string, number> {
  return new Map(cart.lines.map((l) => [l.variant_id, l.quantity]));
}

describe("several clients writing one cart at once", () => {
  const RUNS = fuzzRuns(4);
  it(
    "keep every accepted add and update: each client's own line ends as its own sequence says, a shared line counts every accepted add",
    async () => {
      const op = fc.oneof(
        fc.record({ kind: fc.constant("add" as const), quantity: fc.integer({ min: 1, max: 9 }) }),
        fc.record({ kind: fc.constant("set" as const), quantity: fc.integer({ min: 1, max: 50 }) }),
      );
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.array(op, { minLength: 1, maxLength: 8 }), { minLength: 2, maxLength: 6 }),
          fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 4, maxLength: 24 }),
          async (clients, sharedAdds) => {
            const { token } = await issueToken("concurrent clients");
            const own = seed.available.slice(1, 1 + clients.length);
            const shared = seed.available[0]!;
            // Each client's line exists first, so its PATCHes have an id to aim at.
            for (const variant of own) expect((await addLine(token, variant.id, 1)).status).toBe(200);
            const start = await readCart(token);
            const lineOf = new Map(start.lines.map((l) => [l.variant_id, l.id]));

            let writes = 0;
            const ownClients = clients.map(async (ops, i) => {
              const variant = own[i]!;
              let expected = 1;
              for (const o of ops) {
                writes += 1;
                const res =
                  o.kind === "add"
                    ? await addLine(token, variant.id, o.quantity)
                    : await cartCall(token, `/cart/lines/${lineOf.get(variant.id)}`, {
                        method: "PATCH",
                        body: { quantity: o.quantity },
                      });
                if (res.status >= 500) figures.unexpected_5xx += 1;
                expect(res.status).toBe(200);
                await res.body?.cancel();
                figures.accepted_writes += 1;
                expected = o.kind === "add" ? expected + o.quantity : o.quantity;
              }
              return expected;
            });
            // Shared-line writers: two clients interleaving adds to one line.
            const sharedClients = [0, 1].map(async (half) => {
              let accepted = 0;
              for (const [j, quantity] of sharedAdds.entries()) {
                if (j % 2 !== half) continue;
                writes += 1;
                const res = await addLine(token, shared.id, quantity);
                expect(res.status).toBe(200);
                await res.body?.cancel();
                figures.accepted_writes += 1;
                accepted += quantity;
              }
              return accepted;
            });
            const [ownExpected, sharedExpected] = await Promise.all([
              Promise.all(ownClients),
              Promise.all(sharedClients),
            ]);
            figures.concurrent_clients += clients.length + 2;
            figures.concurrent_writes += writes;

            const final = quantities(await readCart(token));
            for (const [i, variant] of own.entries()) {
              const got = final.get(variant.id) ?? 0;
              if (got < ownExpected[i]!) figures.lost_writes += 1;
              if (got > ownExpected[i]!) figures.doubled_writes += 1;
              expect(got).toBe(ownExpected[i]);
            }
            const sharedTotal = sharedExpected.reduce((a, b) => a + b, 0);
            if ((final.get(shared.id) ?? 0) !== sharedTotal) figures.lost_writes += 1;
            expect(final.get(shared.id)).toBe(sharedTotal);
          },
        ),
        { numRuns: RUNS },
      );
    },
    timeoutFor(RUNS, 3_000),
  );
});

describe("idempotent retries racing each other", () => {
  it("apply each of many keys exactly once when every key is sent five times at once, mixed with keyless adds", async () => {
    const { token } = await issueToken("racing keys");
    const [keyed, plain] = [seed.available[2]!, seed.available[3]!];
    const keys = Array.from({ length: 8 }, (_, i) => ({ key: `race-${i}`, quantity: i + 1 }));
    const sends = keys.flatMap(({ key, quantity }) =>
      Array.from({ length: 5 }, () => () => addLine(token, keyed.id, quantity, key)),
    );
    const plainSends = Array.from({ length: 10 }, () => () => addLine(token, plain.id, 1));
    const order = [...sends, ...plainSends].sort(() => Math.random() - 0.5);
    const responses = await Promise.all(order.map((send) => send()));
    figures.concurrent_writes += responses.length;
    for (const res of responses) {
      expect([200, 409]).toContain(res.status);
      await res.body?.cancel();
    }
    // A retry of every key after the race: each is now a replay, whatever happened during it.
    for (const { key, quantity } of keys) {
      const retry = await addLine(token, keyed.id, quantity, key);
      expect(retry.status).toBe(200);
      expect(retry.headers.get("idempotent-replayed")).toBe("true");
      await retry.body?.cancel();
    }
    const final = quantities(await readCart(token));
    const expected = keys.reduce((sum, k) => sum + k.quantity, 0);
    const got = final.get(keyed.id) ?? 0;
    if (got > expected) figures.doubled_writes += got - expected;
    if (got < expected) figures.lost_writes += expected - got;
    figures.accepted_writes += keys.length + 10;
    expect(got).toBe(expected);
    expect(final.get(plain.id)).toBe(10);
  });
});

describe("the cart object evicted mid-sequence", () => {
  it("loses no accepted write when evicted while writes are in flight, twice", async () => {
    const issued = await issueToken("eviction");
    const stub = cartFor(env, issued.holder);
    const variants = seed.available.slice(0, 3);
    expect((await addLine(issued.token, variants[0]!.id, 1)).status).toBe(200);
    const accepted = new Map<string, number>([[variants[0]!.id, 1]]);
    for (let round = 0; round < 2; round += 1) {
      const inFlight = Array.from({ length: 24 }, (_, i) =>
        addLine(issued.token, variants[i % 3]!.id, (i % 4) + 1).then(async (res) => ({
          res,
          variant: variants[i % 3]!.id,
          quantity: (i % 4) + 1,
        })),
      );
      // Evict while the burst is running: eviction drains in-flight requests, then tears the instance down.
      const evicted = await evictDurableObject(stub).then(
        () => true,
        () => false,
      );
      expect(evicted, "the object was running, so it could be evicted").toBe(true);
      figures.evictions += 1;
      for (const { res, variant, quantity } of await Promise.all(inFlight)) {
        figures.concurrent_writes += 1;
        if (res.status >= 500) figures.unexpected_5xx += 1;
        expect(res.status, await res.clone().text()).toBe(200);
        await res.body?.cancel();
        figures.accepted_writes += 1;
        accepted.set(variant, (accepted.get(variant) ?? 0) + quantity);
      }
    }
    const final = quantities(await readCart(issued.token));
    for (const [variant, quantity] of accepted) {
      const got = final.get(variant) ?? 0;
      if (got < quantity) figures.lost_writes += quantity - got;
      if (got > quantity) figures.doubled_writes += got - quantity;
      expect(got).toBe(quantity);
    }
  });

  it("replays an Idempotency-Key recorded before an eviction, after it", async () => {
    const issued = await issueToken("eviction replay");
    const variant = seed.available[4]!;
    const first = await addLine(issued.token, variant.id, 3, "before-eviction");
    expect(first.status).toBe(200);
    await evictDurableObject(cartFor(env, issued.holder));
    figures.evictions += 1;
    const retry = await addLine(issued.token, variant.id, 3, "before-eviction");
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(quantities(await readCart(issued.token)).get(variant.id)).toBe(3);
  });
});

describe("the cart object crashing mid-write", () => {
  it("applies a write cut off by a crash once, when its Idempotency-Key is retried, with no stale in-use lock", async () => {
    const issued = await issueToken("crash");
    const variant = seed.available[5]!;
    const stub = cartFor(env, issued.holder);
    const fingerprint = await requestFingerprint("POST", "/api/v1/cart/lines", { variant_id: variant.id, quantity: 2 });
    // The add is admitted (its key marked running) and awaits the catalog; the object is then
    // reset as by a crash, so the add never finishes and its in-memory claim dies with it.
    const crashed = await runInDurableObject(stub, async (instance: Cart, state) => {
      const pending = instance.addLine({
        tokenId: issued.id,
        variantId: variant.id,
        quantity: 2,
        idempotency: { key: "cut-off", fingerprint },
      });
      pending.catch(() => undefined);
      state.abort("injected crash");
      return pending;
    }).then(
      () => false,
      () => true,
    );
    expect(crashed).toBe(true);
    figures.crashes += 1;
    expect(quantities(await readCart(issued.token)).get(variant.id) ?? 0).toBe(0);
    const retry = await addLine(issued.token, variant.id, 2, "cut-off");
    expect(retry.status).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    const again = await addLine(issued.token, variant.id, 2, "cut-off");
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const got = quantities(await readCart(issued.token)).get(variant.id) ?? 0;
    if (got > 2) figures.doubled_writes += got - 2;
    if (got < 2) figures.lost_writes += 2 - got;
    expect(got).toBe(2);
  });
});

describe("expiry alarms delivered twice", () => {
  it("clears an expired cart once and does no harm the second time; the cart then works and re-arms", async () => {
    const issued = await issueToken("alarm twice");
    const stub = cartFor(env, issued.holder);
    expect((await addLine(issued.token, seed.available[0]!.id, 2)).status).toBe(200);
    await runInDurableObject(stub, (_instance: Cart, state) => {
      state.storage.sql.exec("UPDATE cart SET expires_at = ?", Date.now() - 1);
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    // At-least-once delivery: the same alarm handler runs again on an already-cleared cart.
    await runInDurableObject(stub, async (instance: Cart) => {
      await instance.alarm();
      await instance.alarm();
    });
    figures.alarms_redelivered += 2;
    expect((await readCart(issued.token)).lines).toEqual([]);
    const res = await addLine(issued.token, seed.available[1]!.id, 1);
    expect(res.status).toBe(200);
    const cart = CartSchema.parse(await res.json());
    expect(cart.lines.map((l) => [l.variant_id, l.quantity])).toEqual([[seed.available[1]!.id, 1]]);
    expect(await runInDurableObject(stub, (_i: Cart, state) => state.storage.getAlarm())).toBe(
      Date.parse(cart.expires_at),
    );
  });

  it("keeps a live cart and its alarm when the alarm fires twice early", async () => {
    const issued = await issueToken("alarm twice early");
    const stub = cartFor(env, issued.holder);
    const cart = CartSchema.parse(await (await addLine(issued.token, seed.available[0]!.id, 4)).json());
    await runInDurableObject(stub, async (instance: Cart) => {
      await Promise.all([instance.alarm(), instance.alarm()]);
    });
    figures.alarms_redelivered += 2;
    expect((await readCart(issued.token)).lines.map((l) => l.quantity)).toEqual([4]);
    expect(await runInDurableObject(stub, (_i: Cart, state) => state.storage.getAlarm())).toBe(
      Date.parse(cart.expires_at),
    );
  });
});
