import { Hono } from "../http/hono.ts";
import { idempotencyKeyOf } from "./idempotency-key.ts";
import { variantDigits } from "../catalog/ids.ts";
import { CatalogStore, pointerTtlMs } from "../catalog/store.ts";
import type { AppEnv } from "../http/app-env.ts";
import { ApiError, catalogUnavailable, invalidRequest } from "../http/errors.ts";
import { noStore } from "../http/no-store.ts";
import { requireOperator } from "../http/operator-auth.ts";
import { validJson } from "../http/validate.ts";
import { describe } from "../openapi/describe.ts";
import { levelView, type ShardChange, StockBatchRequestSchema, type StockLevel } from "../stock/api.ts";
import { batchFingerprint, stockStore } from "../stock/store.ts";

/** A batch of 1,000 changes in the gid form with the widest numbers is about 90 KiB. */
export const STOCK_BATCH_MAX_BYTES = 128 * 1024;

/**
 * Refuses the whole batch, changing nothing, when `faults` is not empty: one message naming each
 * change at fault (`<what> <variant> (changes.<i>)`), `param` the first one's `field`.
 */
function refuse(faults: readonly ShardChange[], what: string, field: string, advice?: string): void {
  if (faults.length === 0) return;
  const named = faults.map((ch) => `${ch.variantId} (changes.${ch.index})`).join(", ");
  throw invalidRequest(
    "parameter_invalid",
    `Nothing changed: ${what} ${named}${advice ? `: ${advice}` : ""}.`,
    `changes.${faults[0]!.index}.${field}`,
  );
}

/**
 * The operator's stock surface, used by `npm run stock`. Behind OPERATOR_SECRET like the token
 * surface; every variant is checked against the live catalog before anything is applied. A `set`
 * on a variant the catalog does not track starts tracking it (stock state, no catalog version);
 * `track: false` stops what the operator started.
 */
export const operatorStock = new Hono<AppEnv>()
  .use("*", noStore)
  .use("*", requireOperator)
  .post("/", describe("changeStock"), validJson(StockBatchRequestSchema, STOCK_BATCH_MAX_BYTES), async (c) => {
    const body = c.req.valid("json");
    const key = idempotencyKeyOf(c);
    const catalog = new CatalogStore(c.env.CATALOG, { pointerTtlMs: pointerTtlMs(c.env.CATALOG_POINTER_TTL_MS) });
    const meta = await catalog.currentMeta();
    if (!meta) throw catalogUnavailable();
    const changes: ShardChange[] = body.changes.map((change, index) => {
      const variantId = variantDigits(change.variant_id);
      if (change.set !== undefined) return { index, variantId, op: "set", value: change.set };
      if (change.adjust !== undefined) return { index, variantId, op: "adjust", value: change.adjust };
      return { index, variantId, op: "untrack", value: 0 };
    });
    const found = await catalog.getVariants(meta.version, [...new Set(changes.map((ch) => ch.variantId))]);
    refuse(
      changes.filter((ch) => !found.has(ch.variantId)),
      "the live catalog has no variant",
      "variant_id",
    );
    // Tracking the catalog gave ends with a version that gives no quantity, not with the operator.
    refuse(
      changes.filter((ch) => ch.op === "untrack" && found.get(ch.variantId)?.tracked),
      "the live catalog tracks the stock of",
      "track",
      "publish a version without its inventory_quantity to stop",
    );
    const stock = stockStore(c.env);
    // The version's published levels first (in the shards the batch touches), so a late publish
    // sync never overwrites this batch.
    await stock.ensureSynced(
      meta,
      changes.map((ch) => ch.variantId),
    );
    // An adjust needs a level: live stock tracks the variant, or a set earlier in the batch starts it.
    const adjusted = changes.filter((ch) => ch.op === "adjust").map((ch) => ch.variantId);
    const levels = adjusted.length > 0 ? await stock.levels(adjusted) : new Map<string, StockLevel>();
    const tracked = new Set([...levels.values()].filter((l) => l.tracked).map((l) => l.variant_id));
    const untracked: ShardChange[] = [];
    for (const ch of changes) {
      if (ch.op === "set") tracked.add(ch.variantId);
      else if (ch.op === "untrack") tracked.delete(ch.variantId);
      else if (!tracked.has(ch.variantId)) untracked.push(ch);
    }
    refuse(untracked, "live stock does not track", "adjust", "set a level to start tracking it");
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
      const field = change?.op === "set" ? "set" : change?.op === "untrack" ? "track" : "adjust";
      throw invalidRequest("parameter_invalid", outcome.message, `changes.${outcome.index}.${field}`);
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
          ...(a.tracking ? { tracking: a.tracking } : {}),
        })),
        levels: outcome.levels.map(levelView),
      },
      200,
    );
  })
  .get("/", describe("stockStatus"), async (c) => {
    const stock = stockStore(c.env);
    const meta = await new CatalogStore(c.env.CATALOG).currentMeta();
    const sync = meta ? await stock.coordinator().syncVersion(meta.version) : null;
    if (meta) await stock.ensureSynced(meta);
    return c.json(
      {
        object: "stock_status" as const,
        catalog_version: meta?.version ?? null,
        shards: stock.shards,
        tracked: meta?.stock_tracked ?? 0,
        changed_by_publish: sync?.changed ?? 0,
        written_by_publish: sync?.written ?? 0,
        kept_by_publish: sync?.kept ?? 0,
        untracked_by_publish: sync?.untracked ?? 0,
      },
      200,
    );
  })
  .get("/:variant_id", describe("showStock"), async (c) => {
    // The path segment as sent: a gid arrives percent-encoded (`gid%3A%2F%2F…`); a stray `%`
    // that decodes to nothing is not a variant id (400 below), never a URIError (a 500 once:
    // Schemathesis, GET /operator/stock/%E0%A4%A).
    const raw = c.req.param("variant_id");
    let decoded = raw;
    try {
      decoded = decodeURIComponent(raw);
    } catch {}
    const id = variantDigits(decoded);
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
