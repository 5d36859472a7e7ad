/**
 * The three search engines the search benches compare, built over one catalog in Node: the
 * project's (its publish SQL written into an in-memory node:sqlite database and read back, as a
 * BrowseEngine reads D1: no Worker), Orama 3.1 and MiniSearch (dev dependencies only: never in
 * the Worker bundle), the same fields each (title, vendor, product type, tags, option values,
 * SKUs, description text). Used by search-vs-orama.ts (speed) and search-quality.ts (ranking).
 */
import { DatabaseSync } from "node:sqlite";
import { create, insertMultiple, search } from "@orama/orama";
import MiniSearch from "minisearch";
import { parseBrowsePage } from "../../src/browse/query.ts";
import { FIELD_WEIGHTS } from "../../src/browse/text.ts";
import { BrowseStore, readBrowseData } from "../../src/browse/source.ts";
import type { SourceCatalog, SourceProduct } from "../../src/catalog/schema.ts";
import { VersionIndex } from "../../src/browse/index/version-index.ts";
import { browseIndexSql } from "../../src/publish/browse-index.ts";
import { prepareContent } from "../../src/publish/sanitize.ts";

/** node:sqlite behind the two D1 calls BrowseStore makes. */
function sqliteD1(db: DatabaseSync): D1Database {
  const prepare = (sql: string) => ({
    sql,
    params: [] as unknown[],
    bind(...params: unknown[]) {
      return { ...this, params };
    },
  });
  const batch = async (statements: { sql: string; params: unknown[] }[]) =>
    statements.map((s) => ({ results: db.prepare(s.sql).all(...(s.params as never[])) }));
  return { prepare, batch } as unknown as D1Database;
}

/** The project's index of `catalog`, built as a BrowseEngine builds it from D1. */
export async function engineOf(catalog: SourceCatalog): Promise<{ index: VersionIndex; seconds: number }> {
  const t = performance.now();
  const db = new DatabaseSync(":memory:");
  for await (const sql of browseIndexSql(catalog, "bench")) db.exec(sql);
  const index = new VersionIndex(await readBrowseData(new BrowseStore(sqliteD1(db)), "bench"));
  db.close();
  return { index, seconds: (performance.now() - t) / 1000 };
}

/**
 * The project's engine as another checkout of it builds it (`root`: a directory holding that
 * checkout's `src/`, inside this one so its imports resolve, e.g. `git archive <commit> src`
 * unpacked under test-results/): the engine before a change, for side-by-side figures.
 */
export async function engineAt(root: string): Promise<(catalog: SourceCatalog) => Promise<Search>> {
  const at = (path: string) => import(new URL(`${path}`, `file://${root.replace(/\/?$/, "/")}`).href);
  const { browseIndexSql: sqlOf } = await at("src/publish/browse-index.ts");
  const { BrowseStore: Store, readBrowseData: read } = await at("src/browse/source.ts");
  const { VersionIndex: Index } = await at("src/browse/index/version-index.ts");
  const { parseBrowsePage: parse } = await at("src/browse/query.ts");
  return async (catalog) => {
    const db = new DatabaseSync(":memory:");
    for await (const sql of sqlOf(catalog, "bench") as AsyncIterable<string>) db.exec(sql);
    const index = new Index(await read(new Store(sqliteD1(db)), "bench")) as VersionIndex;
    db.close();
    return async (q, limit) => {
      const page = await index.page({}, parse(new URLSearchParams({ q, limit: String(limit) })));
      return (JSON.parse(page) as { data: { handle: string }[] }).data.map((p) => p.handle);
    };
  };
}

/** A search engine as the quality bench asks it: q to the first `limit` handles. */
export type Search = (q: string, limit: number) => Promise<string[]>;

/** Our answer as served: q parsed, the page's JSON text. */
export function ourPage(index: VersionIndex, q: string, limit: number): Promise<string> {
  return index.page({}, parseBrowsePage(new URLSearchParams({ q, limit: String(limit) })));
}

/** Our answer's handles, read back from its JSON. */
export async function ours(index: VersionIndex, q: string, limit: number): Promise<string[]> {
  const body = JSON.parse(await ourPage(index, q, limit)) as { data: { handle: string }[] };
  return body.data.map((p) => p.handle);
}

/** A product as the other engines index it: the fields the project searches. */
export interface SearchDoc {
  id: number;
  handle: string;
  title: string;
  vendor: string;
  product_type: string;
  tags: string[];
  options: string[];
  sku: string[];
  description: string;
}

export function docOf(p: SourceProduct, id: number): SearchDoc {
  return {
    id,
    handle: p.handle,
    title: p.title,
    vendor: p.vendor,
    product_type: p.product_type,
    tags: p.tags,
    options: p.options.flatMap((o) => o.values),
    sku: p.variants.map((v) => v.sku ?? "").filter(Boolean),
    description: p.description_html ? prepareContent(p.description_html).text : "",
  };
}

export const PROPERTIES = ["title", "vendor", "product_type", "tags", "options", "sku", "description"] as const;
export const BOOST = Object.fromEntries(PROPERTIES.map((p) => [p, FIELD_WEIGHTS[p]])) as Record<
  (typeof PROPERTIES)[number],
  number
>;

const ORAMA_SCHEMA = {
  handle: "enum",
  title: "string",
  vendor: "string",
  product_type: "string",
  tags: "string[]",
  options: "string[]",
  sku: "string[]",
  description: "string",
} as const;

export async function oramaOf(catalog: SourceCatalog) {
  const t = performance.now();
  const db = create({ schema: ORAMA_SCHEMA });
  const docs = catalog.products.map((p, i) => {
    const { id: _, ...doc } = docOf(p, i);
    return doc;
  });
  await insertMultiple(db, docs, 1000);
  return { db, seconds: (performance.now() - t) / 1000 };
}

export type Orama = Awaited<ReturnType<typeof oramaOf>>["db"];

/** Orama's answer: `threshold` 0 asks every term to match (1: any term, Orama's default). */
export async function theirs(db: Orama, q: string, limit: number, tolerance: number, threshold = 0): Promise<string[]> {
  const result = await search(db, {
    term: q.replaceAll('"', ""),
    properties: [...PROPERTIES],
    boost: BOOST,
    tolerance,
    threshold,
    limit,
  });
  return result.hits.map((h) => (h.document as { handle: string }).handle);
}

/** MiniSearch over the same fields: prefix and fuzzy 0.2 on every term, the title boosted (the configuration). */
export function miniSearchOf(catalog: SourceCatalog): MiniSearch<SearchDoc> {
  const mini = new MiniSearch<SearchDoc>({
    fields: [...PROPERTIES],
    storeFields: ["handle"],
    extractField: (doc, field) => {
      const value = doc[field as keyof SearchDoc];
      return Array.isArray(value) ? value.join(" ") : String(value ?? "");
    },
    searchOptions: { prefix: true, fuzzy: 0.2, boost: { title: 2 } },
  });
  mini.addAll(catalog.products.map(docOf));
  return mini;
}

export function miniSearch(mini: MiniSearch<SearchDoc>, q: string, limit: number): string[] {
  return mini
    .search(q)
    .slice(0, limit)
    .map((r) => r.handle as string);
}
