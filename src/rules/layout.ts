import type { RulesDocument } from "./schema.ts";

/**
 * Where the live rules document lives in KV for its readers (the carts), shared by the writer
 * (rules-object.ts) and the reader (store.ts) so the two cannot disagree. The same shape as the
 * catalog's (docs/decisions/0001): each version's document under its own key, written once and
 * never changed, and one pointer naming the live version and the one a rollback returns to. The
 * keys sit in the CATALOG namespace beside `catalog:pointer`, outside `v/`, so no catalog
 * cleanup ever touches them.
 */

/** The one key that selects the live rules version. Switching it is the publish. */
export const RULES_POINTER_KEY = "rules:pointer";

/** A version's document, as JSON text (the document as it was published). */
export function rulesDocumentKey(version: string): string {
  return `rules:v/${version}`;
}

/** What one version is, beside its document: enough to list it and check it without reading it. */
export interface RulesMeta {
  version: string;
  /** SHA-256 of the document's JSON text: the same digest, the same document. */
  digest: string;
  published_at: string;
  /** The catalog currency the document was checked against when it was published. */
  currency: string;
  /** Counts an operator reads in a listing. */
  discounts: number;
  codes: number;
  zones: number;
  /** `tax.mode`, or null when the document has no tax. */
  tax: string | null;
}

/** The value under RULES_POINTER_KEY. */
export interface RulesPointer {
  current: RulesMeta;
  previous: RulesMeta | null;
}

/** A document's counts for its meta (it was validated: the shape is the schema's). */
export function summarize(document: RulesDocument): Pick<RulesMeta, "discounts" | "codes" | "zones" | "tax"> {
  const discounts = document.discounts ?? [];
  return {
    discounts: discounts.length,
    codes: discounts.filter((d) => d.code !== undefined).length,
    zones: document.shipping?.zones?.length ?? 0,
    tax: document.tax?.mode ?? null,
  };
}
