import { expect } from "vitest";
import type { SourceCatalog, SourceProduct } from "../../src/catalog/schema.ts";
import { ImportError, type ImportIssue, importCatalog, type ImportOptions } from "../../src/publish/import/index.ts";

/**
 * What the importer tests share. The fixtures
 * beside this file are shaped like real Shopify exports: a classic-header CSV (BOM, CRLF,
 * multi-line quoted HTML, trailing empty columns, Excel-mangled barcodes), a current-header CSV,
 * an Admin-style products.json and a storefront-style bare array. What the API then answers for
 * them is in import-api.test.ts.
 */

export const STORE = "Harbor & Pine";

export function run(text: string, file: string, opts: Partial<ImportOptions> = {}) {
  return importCatalog(text, { file, store: STORE, ...opts });
}

export function product(catalog: SourceCatalog, handle: string): SourceProduct {
  const found = catalog.products.find((p) => p.handle === handle);
  if (!found) throw new Error(`no product ${handle}`);
  return found;
}

/** The issues of the ImportError `text` must raise. */
export async function issuesOf(text: string | AsyncIterable<Uint8Array>, file = "bad.csv"): Promise<ImportIssue[]> {
  const error = await importCatalog(text, { file, store: STORE }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ImportError);
  return (error as ImportError).issues;
}

export const CLASSIC_HEAD =
  "Handle,Title,Body (HTML),Vendor,Type,Tags,Published,Option1 Name,Option1 Value,Option2 Name,Option2 Value,Variant SKU,Variant Inventory Tracker,Variant Inventory Qty,Variant Inventory Policy,Variant Price,Variant Compare At Price,Image Src,Image Position,Image Alt Text,Status";

/** The records of CSV text, each with its line end: a line break ends one only outside quotes. */
export function records(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '"') quoted = !quoted;
    else if (text[i] === "\n" && !quoted) {
      out.push(text.slice(start, i + 1));
      start = i + 1;
    }
  }
  return out;
}
