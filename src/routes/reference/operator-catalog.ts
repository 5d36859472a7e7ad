import type { OperationDoc } from "../../openapi/spec.ts";
import { IdempotencyKeySchema } from "../../cart/api.ts";
import * as z from "zod/mini";
import {
  CatalogReleaseSchema,
  CatalogVersionSchema,
  ChangesQuerySchema,
  ReleaseRequestSchema,
  VersionNameSchema,
} from "../../catalog/changes-api.ts";
import { ProductSchema } from "../../catalog/api.ts";
import { HandleSchema } from "../../catalog/fields.ts";
import { SEED_EXAMPLES } from "../../openapi/seed-examples.ts";
import { ChangeBatchSchema, MAX_BATCH_PRODUCTS } from "../../catalog/changes.ts";
import { errors, JSON_BODY_ERRORS, OPERATOR_ERRORS } from "../../openapi/errors.ts";

const NO_STORE = ["X-Request-Id", "Cache-Control"] as const;

/** A price edit of a seed product, brought to the front of its collection: the example of the operation. */
export const CHANGES_EXAMPLE = {
  upsert: [
    {
      id: "gid://shopify/Product/8012345670116",
      handle: "canvas-market-tote",
      title: "Canvas Market Tote",
      vendor: "Northwind Threads",
      product_type: "Bags",
      tags: ["canvas", "accessories"],
      available: true,
      variants: [{ id: "44102938475680", price: "32.00", available: true, sku: "NW-CMT" }],
      description_html: "<p>A heavy canvas tote with leather handles, big enough for a week of groceries.</p>",
    },
  ],
  collections: {
    upsert: [
      {
        handle: "accessories",
        title: "Accessories",
        products: [
          "insulated-bottle-750ml",
          "canvas-market-tote",
          "waffle-knit-beanie",
          "six-panel-cap-washed-black",
          "crew-sock-three-pack",
          "leather-card-holder-tan",
          "wool-blanket-scarf-plaid",
        ],
      },
    ],
  },
};

/** The OpenAPI description of src/routes/operator-catalog.ts's operation (never in the Worker bundle). */
export const OPERATOR_CATALOG_DOCS = {
  applyCatalogChanges: {
    summary: "Apply a catalog change batch",
    description:
      "Products upserted and deleted, collections upserted and deleted, as a new catalog version " +
      "derived from the live one (contract section 11; `npm run catalog:apply` takes the same file). " +
      "Products and collections are in the catalog file's own format and are validated by the same " +
      "schema, checks and description sanitiser as a publish; at most " +
      `${MAX_BATCH_PRODUCTS.toLocaleString("en-US")} products a batch (upserted and deleted ` +
      "together). An upserted product replaces the product with its handle whole, keeping its place " +
      "in the catalog and its collections; a new handle is appended to the catalog's order. An " +
      "upserted collection keeps its place, a new one is appended; a deleted product leaves every " +
      "collection it was in. A handle to delete must exist.\n\n" +
      "The batch is all or nothing: it writes only what it changes (the products it names and the " +
      "lists, collections and browse entries they are in, not the catalog), then switches the live " +
      "version, and the answer comes once it is live: `version` is the new version, " +
      "`previous_version` the one it was derived from, and `changed` counts what the batch names. " +
      "A batch that would change nothing answers 200 with `version` equal to `previous_version` and " +
      "writes nothing. Unchanged products keep their ETags; a list cursor from before the batch " +
      "answers 409 `cursor_stale`. The batch is in the history (`npm run catalog:rollback -- --list` " +
      "marks it `batch`, by `operator API`) and rolls back like any version. It never changes the " +
      "rules document, and writes a live stock level only for a variant it newly tracks or whose " +
      "`inventory_quantity` it changes.\n\n" +
      "Batches, publishes and rollbacks take turns under one lock: a batch waits up to 20 s for " +
      "another to end, then answers 503 `catalog_busy` with `Retry-After` and changes nothing. An " +
      "invalid batch is 400 naming its first mistake: `param` is its dotted path " +
      "(`upsert.3.variants.0.price`), `code` is `parameter_unknown` for a field the format does not " +
      "have, `parameter_missing` for one it requires and `parameter_invalid` otherwise, and the " +
      "message lists up to 20 mistakes in the catalog's words. With an `Idempotency-Key` (kept " +
      "24 hours) a retry of the same batch replays its answer (`Idempotent-Replayed: true`), a 400 " +
      "included; another batch with the key is 422, and a retry while the first is still running " +
      "is 409. A 503 or 500 is not kept: retrying with the same key runs the batch. The body may " +
      "be up to 8 MiB. The batch is applied by the catalog writer, a Worker of its own behind a " +
      "service binding, so the storefront Worker carries none of the catalog schema or the writer; it " +
      "spreads a batch's writes over invocations of its own, within Cloudflare's 1,000 storage " +
      "operations an invocation (docs/decisions/0015-change-batches.md).\n\n" +
      "With `?release_at=TIME` the batch is scheduled (`catalog:apply --at`): validated and written " +
      "now, recorded `scheduled` in the history, answered 202 with `release_at`, and made live at " +
      "that second by the release clock (see `POST /operator/catalog/releases`), if the version " +
      "it is derived from (`previous_version`) is still live then; otherwise it is canceled, with " +
      "the reason in the history. A time without its zone, past, or more than a year ahead is 400 " +
      "(`param: release_at`). The Idempotency-Key covers the time too: the same batch for another " +
      "second is another request (422).",
    tag: "Operator",
    auth: "operator",
    query: ChangesQuerySchema,
    requestHeaders: [{ name: "Idempotency-Key", schema: IdempotencyKeySchema }],
    body: {
      schema: ChangeBatchSchema,
      examples: {
        priceEdit: { summary: "A price edit, and a collection reordered", value: CHANGES_EXAMPLE },
      },
    },
    responses: {
      202: {
        description: "The batch is written and scheduled for `release_at` (`?release_at=`).",
        schema: CatalogVersionSchema,
        headers: [...NO_STORE, "Idempotent-Replayed"],
        examples: {
          scheduled: {
            summary: "A price edit for 09:00 UTC",
            value: {
              object: "catalog_version",
              version: "20261130T180000Z-5c2e91",
              previous_version: "20261128T090000Z-4b7e2d",
              changed: { products: 1, collections: 0 },
              release_at: "2026-12-01T09:00:00.000Z",
            },
          },
        },
      },
      200: {
        description: "The batch is live (or changed nothing: `version` equals `previous_version`).",
        schema: CatalogVersionSchema,
        headers: [...NO_STORE, "Idempotent-Replayed"],
        examples: {
          applied: {
            summary: "A product and a collection changed",
            value: {
              object: "catalog_version",
              version: "20261128T213000Z-9f3a1c",
              previous_version: "20261128T090000Z-4b7e2d",
              changed: { products: 1, collections: 1 },
            },
          },
        },
      },
      ...errors(
        ...OPERATOR_ERRORS,
        ...JSON_BODY_ERRORS,
        "parameter_unknown",
        "parameter_invalid",
        "parameter_missing",
        "idempotency_key_in_use",
        "idempotency_key_reused",
        "catalog_republish_required",
        "catalog_unavailable",
        "catalog_busy",
      ),
    },
  },
  armCatalogRelease: {
    summary: "Set the release clock for a scheduled version",
    description:
      "A release that switches at a set second: `npm run catalog:publish -- --at TIME` and " +
      "`npm run catalog:apply -- changes.json --at TIME` write the new version at once, record it in " +
      "the history as `scheduled` with its `release_at` (`npm run catalog:rollback -- --list` shows " +
      "it), and then call this operation, which sets the catalog writer's release clock (a Durable " +
      "Object alarm) to wake at `release_at`. At that second the clock makes every due release " +
      "live by the same pointer switch as a publish, under the same lock (a publish, batch or " +
      "rollback holding it delays the release by seconds), so it shows everywhere within the " +
      "catalog's freshness bound; it never goes live before its time. A change batch's version is " +
      "derived from the version live when it was written: at its second it goes live only if that " +
      "version still is, and is otherwise canceled, with the reason in the history (going live " +
      "would undo what went live in between). `npm run catalog:rollback -- --cancel VERSION` " +
      "cancels a scheduled release and deletes its version.\n\n" +
      "The history is the schedule: this operation only wakes the clock, so calling it again, for " +
      "a release since canceled, or for a time already past (the clock then runs at once) is " +
      "harmless, and answers 202 with what it was given. `release_at` is an ISO 8601 time with its " +
      "zone; the tools refuse one that has passed or is more than a year ahead.",
    tag: "Operator",
    auth: "operator",
    body: {
      schema: ReleaseRequestSchema,
      examples: {
        release: {
          summary: "A version scheduled for 09:00 UTC",
          value: { version: "20261130T180000Z-5c2e91", release_at: "2026-12-01T09:00:00Z" },
        },
      },
    },
    responses: {
      202: {
        description: "The release clock is set to wake at `release_at` (or sooner, for another release).",
        schema: CatalogReleaseSchema,
        headers: NO_STORE,
        examples: {
          armed: {
            summary: "Set for 09:00 UTC",
            value: {
              object: "catalog_release",
              version: "20261130T180000Z-5c2e91",
              release_at: "2026-12-01T09:00:00Z",
            },
          },
        },
      },
      ...errors(...OPERATOR_ERRORS, ...JSON_BODY_ERRORS, "parameter_unknown", "parameter_invalid", "parameter_missing"),
    },
  },
  previewCatalogProduct: {
    summary: "Read a product of a kept catalog version",
    description:
      "A product as a kept catalog version has it, whether or not that version is live: a release " +
      "scheduled for later (`--at`), the version a rollback would return to, or the live one. The " +
      "answer is the body `GET /products/{handle}?include=description,images,seo,variants` will " +
      "have once the version is live, from the version's own entries: availability is the " +
      "version's as published, without live stock. It is an operator read, never cached " +
      "(`Cache-Control: no-store`) and never in the public cache; `X-Catalog-Version` names the " +
      "version. An unknown or deleted version (`catalog:rollback --list` says which are kept) and " +
      "an unknown handle are 404 `resource_missing` (`param` says which); a product the version " +
      "has sold out is 404 `sold_out`, as its detail would answer.",
    tag: "Operator",
    auth: "operator",
    params: z.strictObject({ version: VersionNameSchema, handle: HandleSchema }),
    responses: {
      200: {
        description: "The product, with its description, images, SEO and variants.",
        schema: ProductSchema,
        headers: [...NO_STORE, "X-Catalog-Version"],
        examples: { product: { summary: "A product of a scheduled version", value: SEED_EXAMPLES.productWithContent } },
      },
      ...errors(...OPERATOR_ERRORS, "resource_missing", "sold_out"),
    },
  },
} satisfies Record<string, OperationDoc>;
