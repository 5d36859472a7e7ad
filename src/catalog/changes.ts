import * as z from "zod/mini";
import {
  CatalogChecks,
  describePath,
  HandleSchema,
  inEnglish,
  SourceCollectionSchema,
  SourceProductSchema,
} from "./schema.ts";

/**
 * A change batch (contract section 11, issue 45): products upserted (in the catalog file's own
 * format) and deleted by handle, collections upserted and deleted, applied as a new catalog
 * version derived from the live one. Validated by the same schemas and the same checks as a
 * publish (CatalogChecks), here for what the batch holds by itself; what depends on the catalog
 * (a handle to delete must exist, ids unique in the whole catalog, collection members) is checked
 * by whoever applies it (src/publish/batch/).
 */

/** The most products one batch names (upserted and deleted together). */
export const MAX_BATCH_PRODUCTS = 1000;

export const ChangeBatchSchema = z.strictObject({
  upsert: z._default(z.array(SourceProductSchema), []),
  delete: z._default(z.array(HandleSchema), []),
  collections: z._default(
    z.strictObject({
      upsert: z._default(z.array(SourceCollectionSchema), []),
      delete: z._default(z.array(HandleSchema), []),
    }),
    { upsert: [], delete: [] },
  ),
});
export type ChangeBatch = z.infer<typeof ChangeBatchSchema>;

/** The API's code for a refused batch: a field the format does not have, one it requires, or any other mistake. */
export type BatchIssueCode = "parameter_unknown" | "parameter_missing" | "parameter_invalid";

/** A batch refused before anything was written: its first mistake, by dotted path (`upsert.3.variants.0.price`). */
export class ChangeBatchError extends Error {
  /** Dotted, as the API's `param` (`upsert.3.variants.0.price`); empty for the batch as a whole. */
  readonly param: string;
  /** The first mistake's kind, as the API's `code`. */
  readonly code: BatchIssueCode;
  /** Every mistake found, as an operator reads it (`upsert[3] (handle "x").variants[0].price: ...`), at most 20. */
  readonly issues: string[];
  constructor(param: string, message: string, issues: string[], code: BatchIssueCode = "parameter_invalid") {
    super(message);
    this.name = "ChangeBatchError";
    this.param = param;
    this.code = code;
    this.issues = issues;
  }
}

/**
 * A batch the live catalog cannot take, whatever it holds: nothing is published yet
 * (`catalog_unavailable`), or the live version was published before change batches existed and
 * must be published once more (`catalog_republish_required`). Nothing was written.
 */
export class CatalogStateError extends Error {
  readonly code: "catalog_unavailable" | "catalog_republish_required";
  constructor(code: CatalogStateError["code"], message: string) {
    super(message);
    this.name = "CatalogStateError";
    this.code = code;
  }
}

/** What a batch is refused for: its path and why, in the catalog's words. */
export interface BatchIssue {
  path: readonly PropertyKey[];
  message: string;
  code?: BatchIssueCode;
}

/** Throws the ChangeBatchError of `issues` (the first one decides `param` and `code`), or returns when there are none. */
export function refuse(input: unknown, issues: readonly BatchIssue[]): void {
  const first = issues[0];
  if (!first) return;
  const lines = issues.slice(0, 20).map((i) => `${describeBatchPath(input, i.path)}: ${i.message}`);
  if (issues.length > 20) lines.push(`... and ${issues.length - 20} more`);
  throw new ChangeBatchError(first.path.map(String).join("."), `${lines[0]}`, lines, first.code);
}

/** Whether `input` has a value (null included) at `path`: a type mistake there is an invalid field, not a missing one. */
function present(input: unknown, path: readonly PropertyKey[]): boolean {
  let at: unknown = input;
  for (const key of path) {
    if (at === null || typeof at !== "object" || !Object.hasOwn(at, key)) return false;
    at = (at as Record<PropertyKey, unknown>)[key];
  }
  return at !== undefined;
}

/** `upsert[3] (handle "black-tee").variants[1].price`, as describePath words a catalog's. */
export function describeBatchPath(input: unknown, path: readonly PropertyKey[]): string {
  if (path[0] === "upsert" && typeof path[1] === "number") {
    const products = (input as { upsert?: unknown } | null)?.upsert;
    return describePath({ products }, ["products", ...path.slice(1)]).replace(/^products/, "upsert");
  }
  if (path[0] === "collections" && path[1] === "upsert" && typeof path[2] === "number") {
    const collections = (input as { collections?: { upsert?: unknown } } | null)?.collections?.upsert;
    return describePath({ collections }, ["collections", ...path.slice(2)]).replace(
      /^collections/,
      "collections.upsert",
    );
  }
  return describePath(input, path);
}

/**
 * The batch, valid by itself for a catalog with these own fields (its currency, whether it allows
 * http URLs), or a ChangeBatchError naming its first mistake: the schema first (as zod words it),
 * then the limit, then the catalog's checks of each upserted product (unique handles, ids and
 * variant ids within the batch, options, prices in the currency), then the collections' handles.
 */
export function parseChangeBatch(
  input: unknown,
  head: { currency: string; allow_http_urls?: boolean | undefined },
): ChangeBatch {
  const parsed = ChangeBatchSchema.safeParse(input, inEnglish());
  if (!parsed.success)
    refuse(
      input,
      parsed.error.issues.map((issue): BatchIssue => {
        if (issue.code === "unrecognized_keys")
          return { path: [...issue.path, issue.keys[0] ?? ""], message: "unknown field", code: "parameter_unknown" };
        const missing = issue.code === "invalid_type" && !present(input, issue.path);
        return { path: issue.path, message: issue.message, code: missing ? "parameter_missing" : "parameter_invalid" };
      }),
    );
  const batch = (parsed as { data: ChangeBatch }).data;
  const named = batch.upsert.length + batch.delete.length;
  if (named > MAX_BATCH_PRODUCTS)
    refuse(input, [
      {
        path: ["upsert"],
        message: `a batch changes at most ${MAX_BATCH_PRODUCTS} products (this one names ${named}: upserted and deleted); split it`,
      },
    ]);
  const issues: BatchIssue[] = [];
  const checks = new CatalogChecks(head, {
    addIssue: (issue: { path?: PropertyKey[]; message?: string }) =>
      issues.push({
        path: ["upsert", ...(issue.path ?? []).slice(1)],
        message: issue.message ?? "invalid",
      }),
  } as unknown as z.core.$RefinementCtx);
  batch.upsert.forEach((product, index) => checks.product(product, index));
  const upserted = new Set(batch.upsert.map((p) => p.handle));
  const deleted = new Set<string>();
  batch.delete.forEach((handle, index) => {
    if (upserted.has(handle))
      issues.push({ path: ["delete", index], message: `"${handle}" is also upserted by this batch` });
    else if (deleted.has(handle)) issues.push({ path: ["delete", index], message: `"${handle}" is listed twice` });
    deleted.add(handle);
  });
  const collections = new Set<string>();
  batch.collections.upsert.forEach((collection, index) => {
    if (collections.has(collection.handle))
      issues.push({
        path: ["collections", "upsert", index, "handle"],
        message: `handle "${collection.handle}" is used twice`,
      });
    collections.add(collection.handle);
    const members = new Set<string>();
    collection.products.forEach((handle, p) => {
      if (members.has(handle))
        issues.push({
          path: ["collections", "upsert", index, "products", p],
          message: `"${handle}" is listed twice`,
        });
      if (deleted.has(handle))
        issues.push({
          path: ["collections", "upsert", index, "products", p],
          message: `"${handle}" is deleted by this batch`,
        });
      members.add(handle);
    });
  });
  const gone = new Set<string>();
  batch.collections.delete.forEach((handle, index) => {
    if (collections.has(handle) || gone.has(handle))
      issues.push({
        path: ["collections", "delete", index],
        message: collections.has(handle) ? `"${handle}" is also upserted by this batch` : `"${handle}" is listed twice`,
      });
    gone.add(handle);
  });
  refuse(input, issues);
  return batch;
}
