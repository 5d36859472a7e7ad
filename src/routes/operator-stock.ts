import { Hono } from "../http/hono.ts";
import { IdempotencyKeySchema } from "../cart/api.ts";
import { variantDigits } from "../catalog/ids.ts";
import { CatalogStore, pointerTtlMs } from "../catalog/store.ts";
import type { AppEnv } from "../http/app-env.ts";
import { ApiError, catalogUnavailable, invalidRequest } from "../http/errors.ts";
import { noStore } from "../http/no-store.ts";
import { requireOperator } from "../http/operator-auth.ts";
import { validJson } from "../http/validate.ts";
import { describe } from "../openapi/describe.ts";
import { levelView, type ShardChange, StockBatchRequestSchema } from "../stock/api.ts";
import { batchFingerprint, stockStore } from "../stock/store.ts";

/** A batch of 1,000 changes in the gid form with the widest numbers is about 90 KiB. */
export const STOCK_BATCH_MAX_BYTES = 128 * 1024;

/**
 * The operator's stock surface, used by `npm run stock`. Behind OPERATOR_SECRET like the token
 * surface; every variant is checked against the live catalog before anything is applied.
 */
export const operatorStock = new Hono<AppEnv>()
  .use("*", noStore)
  .use("*", requireOperator)
  .post("/", describe("changeStock"), validJson(StockBatchRequestSchema, STOCK_BATCH_MAX_BYTES), async (c) => {
    const body = c.req.valid("json");
    const key = c.req.header("idempotency-key");
    if (key !== undefined && !IdempotencyKeySchema.safeParse(key).success)
      throw invalidRequest(
        "parameter_invalid",
        "Idempotency-Key must be 1–255 printable ASCII characters.",
        "Idempotency-Key",
      );
    const catalog = new CatalogStore(c.env.CATALOG, { pointerTtlMs: pointerTtlMs(c.env.CATALOG_POINTER_TTL_MS) });
    const meta = await catalog.currentMeta();
    if (!meta) throw catalogUnavailable();
    const changes: ShardChange[] = body.changes.map((change, index) =>
      change.set !== undefined
        ? { index, variantId: variantDigits(change.variant_id), op: "set", value: change.set }
        : { index, variantId: variantDigits(change.variant_id), op: "adjust", value: change.adjust ?? 0 },
    );
    const found = await catalog.getVariants(meta.version, [...new Set(changes.map((ch) => ch.variantId))]);
    const unknown = changes.filter((ch) => !found.has(ch.variantId));
    const untracked = changes.filter((ch) => found.get(ch.variantId)?.tracked === false);
    if (unknown.length > 0 || untracked.length > 0) {
      const first = [...unknown, ...untracked].sort((a, b) => a.index - b.index)[0]!;
      const parts = [
        unknown.length > 0 &&
          `the live catalog has no variant ${unknown.map((ch) => `${ch.variantId} (changes.${ch.index})`).join(", ")}`,
        untracked.length > 0 &&
          `the live catalog does not track the stock of ${untracked
            .map((ch) => `${ch.variantId} (changes.${ch.index})`)
            .join(", ")} (publish it with an inventory_quantity)`,
      ].filter(Boolean);
      throw invalidRequest(
        "parameter_invalid",
        `Nothing changed: ${parts.join("; ")}.`,
        `changes.${first.index}.variant_id`,
      );
    }
    const stock = stockStore(c.env);
    // The version's published levels first (in the shards the batch touches), so a late publish
    // sync never overwrites this batch.
    await stock.ensureSynced(
      meta,
      changes.map((ch) => ch.variantId),
    );
    const fingerprint = await batchFingerprint(changes);
    const batchId = `op:${key ?? crypto.randomUUID()}`;
    const outcome = await stock.apply(batchId, fingerprint, "operator", changes);
    if (!outcome.ok) {
      if (outcome.code === "idempotency_key_reused")
        throw new ApiError(422, {
          type: "idempotency_error",
          code: "idempotency_key_reused",
          message: "This Idempotency-Key was used with a different batch.",
        });
      const change = changes[outcome.index];
      throw invalidRequest("parameter_invalid", outcome.message, `changes.${outcome.index}.${change?.op ?? "adjust"}`);
    }
    if (outcome.applied.every((a) => a.replayed)) c.header("Idempotent-Replayed", "true");
    return c.json(
      {
        object: "stock_batch" as const,
        changes: outcome.applied.map((a) => ({
          index: a.index,
          variant_id: a.variant_id,
          previous: a.previous,
          quantity: a.quantity,
          applied: a.replayed ? ("earlier" as const) : ("now" as const),
        })),
        levels: outcome.levels.map(levelView),
      },
      200,
    );
  })
  .get("/", describe("stockStatus"), async (c) => {
    const stock = stockStore(c.env);
    const meta = await new CatalogStore(c.env.CATALOG).currentMeta();
    const sync = meta?.stock_tracked ? await stock.coordinator().syncVersion(meta.version) : null;
    if (meta) await stock.ensureSynced(meta);
    return c.json(
      {
        object: "stock_status" as const,
        catalog_version: meta?.version ?? null,
        shards: stock.shards,
        tracked: meta?.stock_tracked ?? 0,
        changed_by_publish: sync?.changed ?? 0,
      },
      200,
    );
  })
  .get("/:variant_id", describe("showStock"), async (c) => {
    const id = variantDigits(decodeURIComponent(c.req.param("variant_id")));
    if (!/^\d{1,20}$/.test(id))
      throw invalidRequest("parameter_invalid", "A variant id is digits or its gid.", "variant_id");
    const stock = stockStore(c.env);
    const meta = await new CatalogStore(c.env.CATALOG).currentMeta();
    if (meta) await stock.ensureSynced(meta, [id]);
    const [level, movements] = await Promise.all([stock.level(id), stock.movements(id, 50, true)]);
    return c.json(
      {
        object: "stock" as const,
        level: levelView(level),
        movements: movements.map(({ variant_id: _, at, ...m }) => ({ ...m, at: new Date(at).toISOString() })),
      },
      200,
    );
  });
