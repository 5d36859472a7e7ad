import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { CatalogStore } from "../../src/catalog/store.ts";
import { beforeAll, describe, expect, it } from "vitest";
import type { SourceCatalog } from "../../src/catalog/schema.ts";
import { publishCatalog } from "../../src/publish/publish.ts";
import type { ShardChange } from "../../src/stock/api.ts";
import { StockBatchResultSchema, StockDetailSchema } from "../../src/stock/results.ts";
import { batchFingerprint, stockStore } from "../../src/stock/store.ts";
import { addLine, call, issueToken, operator } from "../helpers/cart.ts";
import { postCheckout } from "../helpers/checkout.ts";
import { seedCatalog } from "../helpers/catalog.ts";

/** POST /api/v1/operator/stock and GET /api/v1/operator/stock/{variant_id}, over the real worker. */

const stock = stockStore(env);
let catalog: SourceCatalog;
/** Tracked variants of this file's catalog: every size of the black tee, 10 each. */
let tracked: string[];
const UNTRACKED = "44102938475608"; // essential-crew-tee-white, S

function post(body: unknown, key?: string): Promise<Response> {
  return operator("/stock", {
    method: "POST",
    body: JSON.stringify(body),
    ...(key ? { headers: { "Idempotency-Key": key } } : {}),
  });
}

/** Live levels as the operator sees them: their shards hold the live version's levels first. */
async function levels(ids: readonly string[]): Promise<number[]> {
  const meta = await new CatalogStore(env.CATALOG).currentMeta();
  if (meta) await stock.ensureSynced(meta, ids);
  const found = await stock.levels(ids);
  return ids.map((id) => found.get(id)!.quantity);
}

beforeAll(async () => {
  catalog = seedCatalog();
  for (const v of catalog.products[0]!.variants) v.inventory_quantity = 10;
  tracked = catalog.products[0]!.variants.map((v) => v.id);
  await publishCatalog(env.CATALOG, catalog, { browse: null });
});

describe("POST /operator/stock", () => {
  it("applies a batch of set and adjust changes in order and answers each change and the new levels", async () => {
    const [a, b] = tracked as [string, string];
    const res = await post({
      changes: [
        { variant_id: a, set: 4 },
        { variant_id: `gid://shopify/ProductVariant/${b}`, adjust: -3 },
        { variant_id: a, adjust: 2 },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    const body = StockBatchResultSchema.parse(await res.json());
    expect(body.changes).toEqual([
      { index: 0, variant_id: a, previous: 10, quantity: 4, applied: "now" },
      { index: 1, variant_id: b, previous: 10, quantity: 7, applied: "now" },
      { index: 2, variant_id: a, previous: 4, quantity: 6, applied: "now" },
    ]);
    expect(body.levels.find((l) => l.variant_id === a)).toMatchObject({
      quantity: 6,
      available_quantity: 6,
      in_stock: true,
    });
    const shown = StockDetailSchema.parse(await (await operator(`/stock/${a}`)).json());
    expect(shown.level.quantity).toBe(6);
    expect(shown.movements.map((m) => [m.source, m.kind, m.delta_quantity, m.quantity])).toEqual([
      ["publish", "set", 10, 10],
      ["operator", "set", -6, 4],
      ["operator", "adjust", 2, 6],
    ]);
  });

  it("checks every variant against the live catalog first: 400 naming each unknown one, nothing changed", async () => {
    const [a] = tracked as [string];
    const before = await levels([a]);
    const res = await post({
      changes: [
        { variant_id: a, adjust: 1 },
        { variant_id: "99999999999", set: 1 },
        { variant_id: UNTRACKED, set: 1 },
        { variant_id: "88888888888", set: 1 },
      ],
    });
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { code: string; param: string; message: string } };
    expect(error).toMatchObject({
      type: "invalid_request_error",
      code: "parameter_invalid",
      param: "changes.1.variant_id",
    });
    expect(error.message).toContain("99999999999 (changes.1)");
    expect(error.message).toContain("88888888888 (changes.3)");
    expect(await levels([a])).toEqual(before);
    expect(await stock.level(UNTRACKED)).toMatchObject({ tracked: false });
  });

  it("refuses an adjust of a variant live stock does not track, naming each one: set a level first", async () => {
    const [a] = tracked as [string];
    const before = await levels([a]);
    const res = await post({
      changes: [
        { variant_id: a, adjust: 1 },
        { variant_id: UNTRACKED, adjust: 2 },
      ],
    });
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { param: string; message: string } };
    expect(error.param).toBe("changes.1.adjust");
    expect(error.message).toContain(`${UNTRACKED} (changes.1)`);
    expect(error.message).toContain("set a level to start tracking it");
    expect(await levels([a])).toEqual(before);
  });

  it("refuses bad batches with the envelope, naming the change and field", async () => {
    const [a] = tracked as [string];
    const cases: [unknown, string][] = [
      [{ changes: [] }, "changes"],
      [{ changes: Array.from({ length: 1001 }, () => ({ variant_id: a, adjust: 1 })) }, "changes"],
      [
        {
          changes: [
            { variant_id: a, set: 1 },
            { variant_id: a, set: 1.5 },
          ],
        },
        "changes.1.set",
      ],
      [{ changes: [{ variant_id: a, set: -1 }] }, "changes.0.set"],
      [{ changes: [{ variant_id: a, adjust: 2_000_000_000 }] }, "changes.0.adjust"],
      [{ changes: [{ variant_id: a }] }, "changes.0"],
      [{ changes: [{ variant_id: a, set: 1, adjust: 1 }] }, "changes.0"],
      [{ changes: [{ variant_id: "x1", set: 1 }] }, "changes.0.variant_id"],
      [{ changes: [{ variant_id: a, set: "3" }] }, "changes.0.set"],
    ];
    for (const [body, param] of cases) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      const { error } = (await res.json()) as { error: { type: string; param?: string } };
      expect(error.type).toBe("invalid_request_error");
      expect(error.param, JSON.stringify(body).slice(0, 80)).toBe(param);
    }
    const unknownField = await post({ changes: [{ variant_id: a, set: 1, note: "x" }] });
    expect(unknownField.status).toBe(400);
    expect(await unknownField.json()).toMatchObject({ error: { code: "parameter_unknown" } });
  });

  it("refuses an adjust that would overflow, naming the change's index, and changes nothing", async () => {
    const [a, b] = tracked.slice(2) as [string, string];
    expect((await post({ changes: [{ variant_id: a, set: 999_999_999 }] })).status).toBe(200);
    const before = await levels([a, b]);
    const res = await post({
      changes: [
        { variant_id: b, adjust: 1 },
        { variant_id: a, adjust: 5 },
      ],
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: "parameter_invalid", param: "changes.1.adjust" } });
    expect(await levels([a, b])).toEqual(before);
  });

  it("takes a batch of 1,000 changes (a body over the usual 16 KiB)", async () => {
    const ids = [tracked[0]!, tracked[1]!, tracked[6]!, tracked[7]!];
    const before = await levels(ids);
    const changes = Array.from({ length: 1000 }, (_, i) => ({
      variant_id: `gid://shopify/ProductVariant/${ids[i % 4]}`,
      adjust: i % 2 === 0 ? 3 : -1,
    }));
    const res = await post({ changes });
    expect(res.status).toBe(200);
    const body = StockBatchResultSchema.parse(await res.json());
    expect(body.changes).toHaveLength(1000);
    expect(await levels(ids)).toEqual(before.map((q, i) => q + (i % 2 === 0 ? 750 : -250)));
  });

  it("replays a batch retried with its Idempotency-Key, and refuses the key with other changes (422)", async () => {
    const [a] = tracked.slice(5) as [string];
    const key = `k-${crypto.randomUUID()}`;
    const first = await post({ changes: [{ variant_id: a, adjust: 2 }] }, key);
    expect(first.status).toBe(200);
    const again = await post({ changes: [{ variant_id: a, adjust: 2 }] }, key);
    expect(again.status).toBe(200);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(StockBatchResultSchema.parse(await again.json()).changes[0]).toMatchObject({
      applied: "earlier",
      quantity: 12,
    });
    expect(await levels([a])).toEqual([12]);
    const other = await post({ changes: [{ variant_id: a, adjust: 3 }] }, key);
    expect(other.status).toBe(422);
    expect(await other.json()).toMatchObject({ error: { type: "idempotency_error", code: "idempotency_key_reused" } });
    expect(await levels([a])).toEqual([12]);
  });

  it("refuses a key reused for a batch of a variant in another shard (422), applying nothing (regression: issue 42 point 7)", async () => {
    // On main each shard remembered only its own batch ids: the second batch, all in another
    // shard, found its key unknown there and was applied (200).
    const byShard = new Map<number, string>();
    for (const id of tracked) if (!byShard.has(stock.shardOf(id))) byShard.set(stock.shardOf(id), id);
    const [a, b] = [...byShard.values()] as [string, string];
    expect(b).toBeDefined();
    const key = `cross-${crypto.randomUUID()}`;
    const first = await post({ changes: [{ variant_id: a, adjust: 1 }] }, key);
    expect(first.status).toBe(200);
    const before = await levels([a, b]);
    const reused = await post({ changes: [{ variant_id: b, adjust: 1 }] }, key);
    expect(reused.status).toBe(422);
    expect(await reused.json()).toMatchObject({ error: { type: "idempotency_error", code: "idempotency_key_reused" } });
    expect(await levels([a, b])).toEqual(before);
    // The first batch still replays under its key.
    const again = await post({ changes: [{ variant_id: a, adjust: 1 }] }, key);
    expect(again.status).toBe(200);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
  });

  it("completes a batch cut short when retried with the same key, saying which changes an earlier try applied", async () => {
    // Two variants on different shards; the first try reached only the first one's shard.
    const byShard = new Map<number, string>();
    for (const id of tracked) if (!byShard.has(stock.shardOf(id))) byShard.set(stock.shardOf(id), id);
    const [a, b] = [...byShard.values()] as [string, string];
    expect(b).toBeDefined();
    const before = await levels([a, b]);
    const key = `cut-${crypto.randomUUID()}`;
    const changes: ShardChange[] = [
      { index: 0, variantId: a, op: "adjust", value: 1 },
      { index: 1, variantId: b, op: "adjust", value: 1 },
    ];
    const partial = await stock.shardFor(a).apply({
      batchId: `op:${key}`,
      fingerprint: await batchFingerprint(changes),
      source: "operator",
      changes: [changes[0]!],
    });
    expect(partial.ok).toBe(true);
    const res = await post(
      {
        changes: [
          { variant_id: a, adjust: 1 },
          { variant_id: b, adjust: 1 },
        ],
      },
      key,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("Idempotent-Replayed")).toBeNull();
    expect(StockBatchResultSchema.parse(await res.json()).changes.map((c) => c.applied)).toEqual(["earlier", "now"]);
    expect(await levels([a, b])).toEqual(before.map((q) => q + 1));
  });

  it("starts tracking a variant the catalog does not track with a set, keeps it across publishes, and stops it with track: false (regression: issue 42 point 4)", async () => {
    // On main a set on a variant the live catalog did not track was refused ("does not track"):
    // starting to track one needed a full publish.
    const started = "44102938475609"; // essential-crew-tee-white, M: untracked in the file
    const res = await post({ changes: [{ variant_id: started, set: 2 }] });
    expect(res.status).toBe(200);
    const body = StockBatchResultSchema.parse(await res.json());
    expect(body.changes[0]).toMatchObject({ previous: 0, quantity: 2, applied: "now", tracking: "started" });
    expect(body.levels[0]).toMatchObject({ tracked: true, tracked_by: "operator", quantity: 2 });
    // The level decides the add too, once the stock overlay names the variant (within seconds).
    await new Promise((r) => setTimeout(r, 1100));
    await runDurableObjectAlarm(stock.coordinator());
    await new Promise((r) => setTimeout(r, 1100));
    const { token } = await issueToken();
    const tooMany = await addLine(token, started, 3);
    expect(tooMany.status).toBe(409);
    expect(await tooMany.json()).toMatchObject({ error: { code: "insufficient_stock", available_quantity: 2 } });
    expect((await addLine(token, started, 2)).status).toBe(200);
    // A publish that gives it no quantity does not stop what the operator started.
    const again = structuredClone(catalog);
    again.products[1]!.variants[0]!.price = "1.00";
    await publishCatalog(env.CATALOG, again, { browse: null });
    expect(
      await stock.coordinator().syncVersion((await new CatalogStore(env.CATALOG).currentMeta())!.version),
    ).toMatchObject({
      untracked: 0,
    });
    expect(await stock.level(started)).toMatchObject({ tracked: true, tracked_by: "operator", quantity: 2 });
    const checkout = await postCheckout(token);
    expect(checkout.status).toBe(201);
    expect(await stock.level(started)).toMatchObject({ held: 2, available_quantity: 0 });
    // Tracking the catalog gave is the catalog's to end.
    const refused = await post({ changes: [{ variant_id: tracked[0]!, track: false }] });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { code: "parameter_invalid", param: "changes.0.track" } });
    const stop = await post({ changes: [{ variant_id: started, track: false }] });
    expect(stop.status).toBe(200);
    const stopped = StockBatchResultSchema.parse(await stop.json());
    expect(stopped.changes[0]).toMatchObject({ tracking: "stopped" });
    expect(stopped.levels[0]).toMatchObject({ tracked: false, tracked_by: null });
    const detail = StockDetailSchema.parse(await (await operator(`/stock/${started}`)).json());
    expect(detail.movements.map((m) => m.kind)).toEqual(["set", "hold", "untrack"]);
  }, 30_000);

  // Regression (Schemathesis, 2026-11-28): a path segment whose `%` decodes to nothing was a
  // URIError and a 500; it is not a variant id, so 400 parameter_invalid. A gid percent-encoded
  // in the path still reads as its digits.
  it("answers a malformed percent-encoded variant id 400, and reads a percent-encoded gid", async () => {
    const bad = await operator("/stock/%E0%A4%A");
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: "parameter_invalid", param: "variant_id" } });
    const gid = await operator(`/stock/${encodeURIComponent(`gid://shopify/ProductVariant/${tracked[0]}`)}`);
    expect(gid.status).toBe(200);
  });

  it("is behind the operator secret", async () => {
    const res = await call("/api/v1/operator/stock", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ changes: [{ variant_id: tracked[0], set: 1 }] }),
    });
    expect(res.status).toBe(401);
    expect((await call(`/api/v1/operator/stock/${tracked[0]}`)).status).toBe(401);
  });
});
