/**
 * The project's q next to Orama (@orama/orama, a dev dependency only: never in the Worker
 * bundle), on the same catalog and the same queries:
 *
 *   npm run catalog:generate -- --products 100000 --seed 1 --out /tmp/c100k.json
 *   npm exec -- node test/bench/search-vs-orama.ts /tmp/c100k.json
 *
 * Builds the engine's VersionIndex the way a BrowseEngine does (browseIndexSql written into an
 * in-memory node:sqlite database, read back by readBrowseData: no Worker, no D1 round trips) and
 * an Orama database of the same fields (title, vendor, product type, tags, option values, SKUs,
 * description text) with the same field weights as boosts. Per query shape it prints both
 * engines' p50 (a first page of 10: our query parse and page JSON text as served, not read
 * back; Orama's search, its hits as objects) and the overlap of
 * their top 10; then both on the labelled seed queries (test/browse/search-labelled.ts): the
 * share with an expected product in the top 3. Also the engine's index bytes, with and without
 * descriptions searched (`--no-descriptions-cost` skips that second build).
 *
 * Orama gets `threshold: 0` (every term must match, as q does), `tolerance: 2` on the typo
 * shape only (Levenshtein, where a swap costs 2; 0 elsewhere: its fastest setting). Two shapes
 * do not ask both engines for the same work, and the output says so:
 * - SKU: Orama's tokenizer keeps `-` inside a token, so a SKU is one token to it, found by one
 *   lookup; the engine cuts it into words (`tee`, `3335`, `l`, `navy`) and intersects them.
 * - synonym: Orama cannot know the catalog's synonyms and finds nothing (0% overlap) at once.
 *   A second row gives it the work an Orama user would write: one search per phrase of the
 *   query's synonym group, hits merged by score.
 */
import { readFileSync } from "node:fs";
import { search } from "@orama/orama";
import type { SourceCatalog } from "../../src/catalog/schema.ts";
import { generateCatalog } from "../../src/publish/generate.ts";
import { LABELLED, SEED_SEARCH } from "../browse/search-labelled.ts";
import { BOOST, engineOf, type Orama, oramaOf, ourPage, ours, PROPERTIES, theirs } from "./search-engines.ts";

const file = process.argv.slice(2).find((a) => !a.startsWith("--"));
const skipCost = process.argv.includes("--no-descriptions-cost");
const RUNS = 15;

/** Orama told the synonyms: one search per phrase of q's group (q alone when it has none), hits merged by score. */
async function theirsExpanded(db: Orama, q: string, limit: number): Promise<string[]> {
  const group = catalog.search?.synonyms?.find((g) => g.includes(q)) ?? [q];
  const best = new Map<string, number>();
  for (const phrase of group) {
    const result = await search(db, { term: phrase, properties: [...PROPERTIES], boost: BOOST, threshold: 0, limit });
    for (const h of result.hits) {
      const handle = (h.document as { handle: string }).handle;
      best.set(handle, Math.max(best.get(handle) ?? 0, h.score));
    }
  }
  return [...best]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([handle]) => handle);
}

async function p50(run: () => unknown): Promise<number> {
  await run();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const s = performance.now();
    await run();
    times.push(performance.now() - s);
  }
  return times.sort((a, b) => a - b)[RUNS >> 1] as number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? 0;

/** Shared hits over the larger list (1 when both are empty). */
function overlap(a: string[], b: string[]): number {
  if (a.length === 0 && b.length === 0) return 1;
  const set = new Set(b);
  return a.filter((h) => set.has(h)).length / Math.max(a.length, b.length);
}

const catalog: SourceCatalog = file
  ? (JSON.parse(readFileSync(file, "utf8")) as SourceCatalog)
  : generateCatalog({ products: 100_000, seed: 1 });
// The operator's synonyms for this store; Orama has no equivalent.
catalog.search = {
  synonyms: [
    ["tee", "t-shirt", "tshirt"],
    ["hoodie", "hoody"],
    ["chino", "trousers"],
    ["tote", "shopper"],
  ],
  stop_words: ["the", "a", "and", "for"],
};
const skus = catalog.products.flatMap((p) => p.variants.map((v) => v.sku ?? "")).filter(Boolean);
const SHAPES: { shape: string; queries: string[]; tolerance: number; expand?: boolean }[] = [
  { shape: "one word", queries: ["hoodie", "jacket", "candle", "walnut", "charcoal"], tolerance: 0 },
  {
    shape: "two words",
    queries: ["washed tee", "heavyweight hoodie", "classic chino", "alpine jacket", "olive shirt"],
    tolerance: 0,
  },
  { shape: "prefix (last word)", queries: ["ho", "vint", "jack", "washed te", "sea sal"], tolerance: 0 },
  // Orama's tolerance is Levenshtein: a swap of two neighbours costs it 2 (1 here, Damerau).
  { shape: "typo", queries: ["hoodei", "jakcet", "vintgae tee", "heavywieght", "charcaol"], tolerance: 2 },
  {
    shape: "description words",
    queries: ["tagless label", "kiln fired", "double needle stitching", "studio"],
    tolerance: 0,
  },
  {
    shape: "SKU",
    queries: [skus[17] ?? "", skus[12_345] ?? "", skus[Math.floor(skus.length * 0.9)] ?? ""],
    tolerance: 0,
  },
  { shape: "synonym (Orama finds nothing)", queries: ["tshirt", "hoody", "trousers"], tolerance: 0 },
  { shape: "synonym (Orama given the group)", queries: ["tshirt", "hoody", "trousers"], tolerance: 0, expand: true },
];

const mib = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;
const built = await engineOf(catalog);
console.log(
  `engine: ${catalog.products.length} products indexed in ${built.seconds.toFixed(1)} s (SQL + read + build), ${mib(built.index.bytes)} in typed arrays`,
);
if (!skipCost) {
  const bare = structuredClone(catalog);
  for (const p of bare.products) delete p.description_html;
  const without = await engineOf(bare);
  console.log(
    `engine without descriptions searched: ${mib(without.index.bytes)}; descriptions cost ${mib(built.index.bytes - without.index.bytes)}`,
  );
}
const heap = process.memoryUsage().heapUsed;
const orama = await oramaOf(catalog);
console.log(`orama: indexed in ${orama.seconds.toFixed(1)} s, heap +${mib(process.memoryUsage().heapUsed - heap)}`);

/** A duration in ms as µs below 1 ms, else ms. */
const time = (ms: number) => (ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(ms < 10 ? 2 : 0)} ms`);
console.log("\n| shape | queries | ours p50 | Orama p50 | Orama / ours | top-10 overlap |\n|---|---|---|---|---|---|");
for (const { shape, queries, tolerance, expand } of SHAPES) {
  const a: number[] = [];
  const b: number[] = [];
  const o: number[] = [];
  const other = (q: string) => (expand ? theirsExpanded(orama.db, q, 10) : theirs(orama.db, q, 10, tolerance));
  for (const q of queries) {
    a.push(await p50(() => ourPage(built.index, q, 10)));
    b.push(await p50(() => other(q)));
    o.push(overlap(await ours(built.index, q, 10), await other(q)));
  }
  const [x, y] = [median(a), median(b)];
  console.log(
    `| ${shape} | ${queries.map((q) => `\`${q}\``).join(", ")} | ${time(x)} | ${time(y)} | ${(y / x).toFixed(y / x < 10 ? 1 : 0)}x | ${((o.reduce((s, v) => s + v, 0) / o.length) * 100).toFixed(0)}% |`,
  );
}
console.log(
  "\nSKU: Orama keeps `-` inside tokens, so a SKU is one token and one lookup to it; the engine intersects the SKU's words" +
    "\n  and renders the page's JSON (each engine's whole answer is a few µs: a ratio of two such figures says little)." +
    "\nsynonym: Orama cannot know the catalog's synonyms; the first row is its search finding nothing, the second one search per phrase of the group, merged.",
);

// The labelled set on the seed, both engines (ours with the seed's search settings).
const seed = {
  ...(JSON.parse(readFileSync(new URL("../../seed/catalog.json", import.meta.url).pathname, "utf8")) as SourceCatalog),
  search: SEED_SEARCH,
};
const small = await engineOf(seed);
const smallOrama = await oramaOf(seed);
const hits = { ours: 0, orama: 0 };
const missed: string[] = [];
for (const { q, kind, expect } of LABELLED) {
  const mine = await ours(small.index, q, 3);
  const other = await theirs(smallOrama.db, q, 3, kind === "typo" ? 2 : 0);
  if (mine.some((h) => expect.includes(h))) hits.ours++;
  else missed.push(`ours: ${q}`);
  if (other.some((h) => expect.includes(h))) hits.orama++;
  else missed.push(`orama: ${q}`);
}
console.log(
  `\nlabelled seed queries with an expected product in the top 3: ours ${hits.ours}/${LABELLED.length}, Orama ${hits.orama}/${LABELLED.length}`,
);
console.log(`misses: ${missed.join("; ")}`);
