/**
 * What crosses between the storefront Worker's `POST /operator/catalog/changes` and the catalog
 * writer Worker (src/writer/) over their service binding (contract section 11): types, the
 * answer's schema (pure, so out of the bundle) and one constant. The storefront carries none of
 * the catalog schema, the sanitiser or the batch writer (docs/decisions/0015-change-batches.md, "The operator's endpoint").
 */
import * as z from "zod/mini";
import { VERSION_NAME } from "../version-name.ts";

/** The largest batch body the operator endpoint reads (413 past it). */
export const MAX_BATCH_BYTES = 8 * 1024 * 1024;

/** A batch as the route read it: the parsed JSON body, and the request's Idempotency-Key if sent. */
export interface ChangesRequest {
  batch: unknown;
  key?: string | undefined;
  /** `?release_at=`: write the version now, make it live at that second (the writer checks it). */
  releaseAt?: string | undefined;
}

/**
 * The answer of a batch applied (or of a batch that changed nothing: `version` = `previous_version`).
 * Built by a pure arrow function called at once: the storefront never parses it, so its bundle
 * leaves it out (docs/decisions/0009-schema-docs-out-of-the-worker.md).
 */
export const CatalogVersionSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    object: z.literal("catalog_version"),
    version: z.string(),
    previous_version: z.string(),
    changed: z.strictObject({
      products: z.int().check(z.minimum(0)),
      collections: z.int().check(z.minimum(0)),
    }),
    /** A batch scheduled with `?release_at=` (answered 202): when it goes live. */
    release_at: z.optional(z.iso.datetime({ offset: true })),
  }))();
export type CatalogVersionReply = z.infer<typeof CatalogVersionSchema>;

/**
 * `POST /operator/catalog/releases`: wake the release clock for a version `catalog:publish --at` or
 * `catalog:apply --at` wrote and scheduled (issue 45, point 5). Parsed by the storefront's route.
 */
export const ReleaseRequestSchema = z.strictObject({
  version: z.string().check(z.regex(VERSION_NAME)),
  release_at: z.iso.datetime({ offset: true }),
});
export type ReleaseRequest = z.infer<typeof ReleaseRequestSchema>;

/** The answer of `POST /operator/catalog/releases` (pure: the storefront only builds it). */
export const CatalogReleaseSchema = /* @__PURE__ */ (() =>
  z.strictObject({
    object: z.literal("catalog_release"),
    version: z.string(),
    release_at: z.iso.datetime({ offset: true }),
  }))();

/** The query of `POST /operator/catalog/changes` (documentation only: pure; the writer checks the value). */
export const ChangesQuerySchema = /* @__PURE__ */ (() =>
  z.strictObject({ release_at: z.optional(z.iso.datetime({ offset: true })) }))();

/** The path of `GET /operator/catalog/versions/{version}/products/{handle}` (documentation only: pure). */
export const VersionNameSchema = /* @__PURE__ */ (() => z.string().check(z.regex(VERSION_NAME)))();

/** The contract's error object, as the writer words it (the route puts it in the envelope). */
export interface ChangesError {
  type: "invalid_request_error" | "idempotency_error" | "api_error";
  code: string;
  message: string;
  param?: string;
}

export type ChangesReply =
  | { ok: true; status: 200 | 202; version: CatalogVersionReply; replayed: boolean }
  | { ok: false; status: 400 | 409 | 422 | 500 | 503; error: ChangesError; retryAfter?: number; replayed: boolean };
