import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { HISTORY_KEY, type HistoryEntry, type Pointer, POINTER_KEY } from "../../src/catalog/layout.ts";
import { MAX_BATCH_PRODUCTS } from "../../src/catalog/changes.ts";
import { CHANGES_EXAMPLE } from "../../src/routes/reference/operator-catalog.ts";
import { publishSeedCatalog, seedCatalog } from "../helpers/catalog.ts";
import { call, operator } from "../helpers/cart.ts";
import { d1Query, sqlLock } from "../../src/publish/lock.ts";

/**
 * POST /operator/catalog/changes (contract section 11, issue 45 point 1): the storefront reads and
 * authenticates, the catalog writer behind the CATALOG_WRITER service binding applies the batch
 * with the code `catalog:apply` runs (src/publish/batch/, whose answers batches.test.ts and
 * batch-equivalence.test.ts check), under the catalog lock, with the Idempotency-Key honoured.
 */

const pointer = async () => (await env.CATALOG.get<Pointer>(POINTER_KEY, "json")) as Pointer;
const history = async () => (await env.CATALOG.get<HistoryEntry[]>(HISTORY_KEY, "json")) ?? [];

function changes(batch: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return operator("/catalog/changes", { method: "POST", body: JSON.stringify(batch), headers });
}

/** A seed product with its first variant at `price` (the catalog file's own format). */
function repriced(handle: string, price: string) {
  const product = seedCatalog().products.find((p) => p.handle === handle)!;
  product.variants[0]!.price = price;
  return product;
}

async function errorOf(res: Response): Promise<Record<string, unknown>> {
  return ((await res.json()) as { error: Record<string, unknown> }).error;
}

/** Holds the catalog lock as another publish would: the same D1 lease (src/publish/lock.ts), until released. */
function holdLock(): Promise<{ release: () => Promise<void> }> {
  return sqlLock(d1Query(env.BROWSE), { waitMs: 0 }).acquire({
    action: "publish",
    version: "v-held",
    by: "someone@elsewhere",
  });
}

beforeAll(async () => {
  await publishSeedCatalog();
});

describe("POST /operator/catalog/changes", () => {
  it("applies a batch as a new live version: the product answers its new price, the history says batch", async () => {
    const before = await pointer();
    const res = await changes({ upsert: [repriced("canvas-market-tote", "31.50")] });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toEqual({
      object: "catalog_version",
      version: expect.any(String),
      previous_version: before.current.version,
      changed: { products: 1, collections: 0 },
    });
    expect(body.version).not.toBe(before.current.version);
    expect((await pointer()).current.version).toBe(body.version);

    const product = await call("/api/v1/products/canvas-market-tote?include=variants");
    expect(product.headers.get("x-catalog-version")).toBe(body.version);
    const detail = (await product.json()) as { variants: { price: { amount: string } }[] };
    expect(detail.variants[0]!.price.amount).toBe("31.50");

    const last = (await history()).at(-1)!;
    expect(last).toMatchObject({
      action: "batch",
      version: body.version,
      from: before.current.version,
      by: "operator API",
    });
  });

  it("logs what a batch wrote for the operator: its version, what changed, its KV entries and bytes", async () => {
    const logged: string[] = [];
    const spy = vi.spyOn(console, "log").mockImplementation((line: unknown) => void logged.push(String(line)));
    try {
      const res = await changes({ upsert: [repriced("canvas-market-tote", "32.50")] });
      expect(res.status).toBe(200);
      const { version } = (await res.json()) as { version: string };
      const line = logged
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .find((l) => l.message === "A catalog change batch was applied." && l.version === version);
      expect(line).toMatchObject({
        level: "info",
        message: "A catalog change batch was applied.",
        changed: { products: 1, collections: 0 },
        entries: expect.any(Number),
        bytes: expect.any(Number),
      });
      expect(line?.entries).toBeGreaterThan(1);
      expect(line?.bytes).toBeGreaterThan(100);
    } finally {
      spy.mockRestore();
    }
  });

  it("answers the reference's example: a price edit, and a collection reordered", async () => {
    const res = await changes(CHANGES_EXAMPLE);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { changed: unknown };
    expect(body.changed).toEqual({ products: 1, collections: 1 });
    const accessories = (await (await call("/api/v1/collections/accessories")).json()) as {
      products: { data: { handle: string }[] };
    };
    expect(accessories.products.data.map((p) => p.handle)).toEqual(CHANGES_EXAMPLE.collections.upsert[0]!.products);
  });

  it("answers a batch that names nothing with the live version, writing nothing", async () => {
    const live = (await pointer()).current.version;
    const before = (await history()).length;
    const res = await changes({});
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      object: "catalog_version",
      version: live,
      previous_version: live,
      changed: { products: 0, collections: 0 },
    });
    expect((await pointer()).current.version).toBe(live);
    expect((await history()).length).toBe(before);
  });

  it.each([
    [
      "a price the schema refuses",
      { upsert: [{ ...repriced("canvas-market-tote", "12.345") }] },
      "parameter_invalid",
      "upsert.0.variants.0.price",
    ],
    ["a field the format does not have", { upsert: [], colour: "red" }, "parameter_unknown", "colour"],
    [
      "a required field left out",
      { upsert: [{ ...repriced("canvas-market-tote", "30.00"), title: undefined }] },
      "parameter_missing",
      "upsert.0.title",
    ],
    ["a handle to delete the catalog does not have", { delete: ["no-such-product"] }, "parameter_invalid", "delete.0"],
    [
      `more than ${MAX_BATCH_PRODUCTS} products`,
      { delete: Array.from({ length: MAX_BATCH_PRODUCTS + 1 }, (_, i) => `gone-${i}`) },
      "parameter_invalid",
      "upsert",
    ],
  ])("refuses %s with 400, its dotted path in param, and changes nothing", async (_name, batch, code, param) => {
    const live = (await pointer()).current.version;
    const res = await changes(batch);
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect(error).toMatchObject({ type: "invalid_request_error", code, param });
    expect(error.message).toEqual(expect.stringContaining("Nothing was changed"));
    expect((await pointer()).current.version).toBe(live);
  });

  it("replays a retry with the same Idempotency-Key, and refuses the key with another batch (422)", async () => {
    const key = `changes-${crypto.randomUUID()}`;
    const batch = { upsert: [repriced("canvas-market-tote", "29.00")] };
    const first = await changes(batch, { "Idempotency-Key": key });
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const applied = (await first.json()) as { version: string };
    const entries = (await history()).length;

    const again = await changes(batch, { "Idempotency-Key": key });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.json()).toEqual(applied);
    expect((await history()).length).toBe(entries);

    const other = await changes({ upsert: [repriced("canvas-market-tote", "28.00")] }, { "Idempotency-Key": key });
    expect(other.status).toBe(422);
    expect(await errorOf(other)).toMatchObject({ type: "idempotency_error", code: "idempotency_key_reused" });
    expect((await pointer()).current.version).toBe(applied.version);
  });

  it("replays a 400 under its key, and refuses a malformed key", async () => {
    const key = `changes-${crypto.randomUUID()}`;
    const bad = { delete: ["no-such-product"] };
    expect((await changes(bad, { "Idempotency-Key": key })).status).toBe(400);
    const replay = await changes(bad, { "Idempotency-Key": key });
    expect(replay.status).toBe(400);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    const malformed = await changes({}, { "Idempotency-Key": "x".repeat(256) });
    expect(malformed.status).toBe(400);
    expect(await errorOf(malformed)).toMatchObject({ param: "Idempotency-Key" });
  });

  it("waits for a publish holding the lock, then answers 503 catalog_busy with Retry-After; a retry with the key runs", async () => {
    const held = await holdLock();
    const key = `changes-${crypto.randomUUID()}`;
    const batch = { upsert: [repriced("canvas-market-tote", "27.00")] };
    try {
      const live = (await pointer()).current.version;
      // Meanwhile the same key again is 409: the first is still waiting for the lock.
      const first = changes(batch, { "Idempotency-Key": key });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const racing = await changes(batch, { "Idempotency-Key": key });
      expect(racing.status).toBe(409);
      expect(await errorOf(racing)).toMatchObject({ type: "idempotency_error", code: "idempotency_key_in_use" });

      const busy = await first;
      expect(busy.status).toBe(503);
      expect(busy.headers.get("retry-after")).toBe("30");
      expect(await errorOf(busy)).toMatchObject({ type: "api_error", code: "catalog_busy" });
      expect((await pointer()).current.version).toBe(live);
    } finally {
      await held.release();
    }
    const retried = await changes(batch, { "Idempotency-Key": key });
    expect(retried.status).toBe(200);
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
  });

  it("is the operator's: no secret is 401, and the body may be 8 MiB (413 past it)", async () => {
    const anonymous = await call("/api/v1/operator/catalog/changes", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{}",
    });
    expect(anonymous.status).toBe(401);
    const large = await changes({ upsert: [], pad: "x".repeat(8 * 1024 * 1024) });
    expect(large.status).toBe(413);
    expect(await errorOf(large)).toMatchObject({ code: "body_too_large" });
    // Just under the limit, read whole: refused by the batch's format, not by the size.
    const under = await changes({ upsert: [], pad: "x".repeat(7 * 1024 * 1024) });
    expect(under.status).toBe(400);
    expect(await errorOf(under)).toMatchObject({ code: "parameter_unknown", param: "pad" });
  });
});
