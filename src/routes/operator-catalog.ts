import * as z from "zod/mini";
import { MAX_BATCH_BYTES, ReleaseRequestSchema } from "../catalog/changes-api.ts";
import { notFound } from "../catalog/errors.ts";
import { isHandle } from "../catalog/fields.ts";
import { VERSION_NAME } from "../version-name.ts";
import { productDetail } from "../catalog/pages.ts";
import { CatalogStore } from "../catalog/store.ts";
import { Hono } from "../http/hono.ts";
import type { AppEnv } from "../http/app-env.ts";
import { ApiError } from "../http/errors.ts";
import { noStore } from "../http/no-store.ts";
import { requireOperator } from "../http/operator-auth.ts";
import { parseJsonBody } from "../http/validate.ts";
import { describe } from "../openapi/describe.ts";
import { idempotencyKeyOf } from "./idempotency-key.ts";

/**
 * The operator's catalog change batches (contract section 11). This Worker authenticates, reads
 * the body (up to 8 MiB) and its Idempotency-Key; the catalog writer Worker behind the service
 * binding `CATALOG_WRITER` (src/writer/) validates, applies and answers, so the catalog schema,
 * the sanitiser and the batch writer stay out of this bundle.
 */
export const operatorCatalog = new Hono<AppEnv>()
  .use("*", noStore)
  .use("*", requireOperator)
  .post("/changes", describe("applyCatalogChanges"), async (c) => {
    const key = idempotencyKeyOf(c);
    const batch = await parseJsonBody(c, z.unknown(), MAX_BATCH_BYTES);
    const reply = await c.env.CATALOG_WRITER.applyChanges({ batch, key, releaseAt: c.req.query("release_at") });
    if (reply.replayed) c.header("Idempotent-Replayed", "true");
    if (reply.ok) return c.json(reply.version, reply.status);
    // The writer logged what failed; the answer is the usual 500 with its request id.
    if (reply.status === 500) throw new Error("The catalog writer could not apply a batch.");
    const headers: Record<string, string> = {};
    if (reply.retryAfter !== undefined) headers["Retry-After"] = String(reply.retryAfter);
    throw new ApiError(reply.status, reply.error, headers);
  })
  .post("/releases", describe("armCatalogRelease"), async (c) => {
    const release = await parseJsonBody(c, ReleaseRequestSchema);
    await c.env.CATALOG_WRITER.armRelease(release);
    return c.json({ object: "catalog_release", ...release }, 202);
  })
  // A kept version's product, live or not (a release scheduled for later, one rolled back from) as
  // its detail will answer once live, with every include and without live stock; never cached.
  .get("/versions/:version/products/:handle", describe("previewCatalogProduct"), async (c) => {
    const store = new CatalogStore(c.env.CATALOG);
    const { version, handle } = c.req.param();
    const meta = VERSION_NAME.test(version) ? await store.versionMeta(version) : null;
    if (!meta) throw notFound("No kept catalog version has this name (see catalog:rollback --list).", "version");
    if (!isHandle(handle)) throw notFound("No product has this handle.", "handle");
    const body = await productDetail(store, meta, handle, ["description", "images", "seo", "variants"]);
    c.header("X-Catalog-Version", meta.version);
    return c.body(body, 200, { "Content-Type": "application/json" });
  });
