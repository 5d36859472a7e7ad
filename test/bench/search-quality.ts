/**
 * Ranking quality on the labelled store catalogs (test/browse/store-catalogs.ts: four stores of
 * several hundred products, shopper queries judged on the products' facts): nDCG@10, P@3 and MRR
 * of the project's `q`, side by side with Orama 3.1 (`tolerance: 1`, its default threshold, the
 * project's field weights as boosts) and MiniSearch (prefix + fuzzy 0.2, title boosted x2), on
 * the same products and fields; and, with `--before <dir>`, of the engine of another checkout
 * (its `src/` under `<dir>`, inside this checkout so its imports resolve):
 *
 *   git archive <commit> src | tar -x -C test-results/before     # the engine before a change
 *   npm exec -- node test/bench/search-quality.ts --before test-results/before
 *
 * Metrics, per query, then averaged over the queries that have something to find: nDCG@10 with
 * gains 2^grade - 1 (grade 2: what was asked for, 1: close), P@3 as the share of the first three
 * that are relevant (grade >= 1) out of min(3, relevant products), MRR as 1 / rank of the first
 * relevant one in the first 10 (0 when none). Queries with nothing to find (`nothing`) count
 * apart: how many each engine answers with an empty list. `--by-kind` adds nDCG@10 by query
 * kind, `--misses` each query an engine scores below 0.5 nDCG on, `--per-query` every query's
 * nDCG@10 per engine.
 */
import { engineAt, engineOf, miniSearch, miniSearchOf, ours, oramaOf, type Search, theirs } from "./search-engines.ts";
import { measure, type QueryKind, type Scores, type Store, storeCatalogs } from "../browse/store-catalogs.ts";

const args = process.argv.slice(2);
const beforeAt = args.includes("--before") ? args[args.indexOf("--before") + 1] : undefined;
const byKind = args.includes("--by-kind");
const showMisses = args.includes("--misses");
const perQuery = args.includes("--per-query");

type Engines = Record<string, Search>;

async function enginesFor(store: Store, before?: (c: Store["catalog"]) => Promise<Search>): Promise<Engines> {
  const { index } = await engineOf(store.catalog);
  const { db } = await oramaOf(store.catalog);
  const mini = miniSearchOf(store.catalog);
  return {
    ...(before ? { "ours, before": await before(store.catalog) } : {}),
    ours: (q, limit) => ours(index, q, limit),
    "Orama 3.1 (tolerance 1)": (q, limit) => theirs(db, q, limit, 1, 1),
    "MiniSearch (prefix, fuzzy 0.2)": async (q, limit) => miniSearch(mini, q, limit),
  };
}

const before = beforeAt ? await engineAt(`${process.cwd()}/${beforeAt}`) : undefined;
const totals = new Map<string, { sum: Scores; n: number; empty: number; nothing: number }>();
const kinds = new Map<string, Map<QueryKind, { sum: number; n: number }>>();
const misses: string[] = [];
const rows: string[] = [];
for (const store of storeCatalogs()) {
  const engines = await enginesFor(store, before);
  for (const { q, kind, grade } of store.queries) {
    const grades = new Map([...store.facts].map(([handle, facts]) => [handle, grade(facts)]));
    const findable = [...grades.values()].some((g) => g > 0);
    const row: string[] = [];
    for (const [name, search] of Object.entries(engines)) {
      const answer = await search(q, 10);
      const t = totals.get(name) ?? { sum: { ndcg: 0, p3: 0, mrr: 0 }, n: 0, empty: 0, nothing: 0 };
      totals.set(name, t);
      if (!findable) {
        t.nothing++;
        if (answer.length === 0) t.empty++;
        row.push(answer.length === 0 ? "empty" : `${answer.length} found`);
        continue;
      }
      const s = measure(answer, grades);
      row.push(s.ndcg.toFixed(2));
      t.sum.ndcg += s.ndcg;
      t.sum.p3 += s.p3;
      t.sum.mrr += s.mrr;
      t.n++;
      const byName = kinds.get(name) ?? new Map();
      kinds.set(name, byName);
      const k = byName.get(kind) ?? { sum: 0, n: 0 };
      byName.set(kind, k);
      k.sum += s.ndcg;
      k.n++;
      if (showMisses && s.ndcg < 0.5) misses.push(`${name} | ${store.name} | ${q} | nDCG ${s.ndcg.toFixed(2)}`);
    }
    rows.push(`| ${store.name} | \`${q}\` | ${kind} | ${row.join(" | ")} |`);
  }
}

const stores = storeCatalogs();
console.log(
  `${stores.length} stores (${stores.map((s) => `${s.name} ${s.catalog.products.length}`).join(", ")} products), ` +
    `${stores.reduce((n, s) => n + s.queries.length, 0)} labelled queries\n`,
);
console.log("| engine | nDCG@10 | P@3 | MRR | nothing to find: empty answers |\n|---|---|---|---|---|");
for (const [name, t] of totals)
  console.log(
    `| ${name} | ${(t.sum.ndcg / t.n).toFixed(3)} | ${(t.sum.p3 / t.n).toFixed(3)} | ${(t.sum.mrr / t.n).toFixed(3)} | ${t.empty}/${t.nothing} |`,
  );
if (byKind) {
  const names = [...kinds.keys()];
  const all = [...new Set(names.flatMap((n) => [...(kinds.get(n)?.keys() ?? [])]))];
  console.log(
    `\nnDCG@10 by kind of query\n\n| kind (queries) | ${names.join(" | ")} |\n|---|${names.map(() => "---|").join("")}`,
  );
  for (const kind of all) {
    const n = kinds.get(names[0] as string)?.get(kind)?.n ?? 0;
    console.log(
      `| ${kind} (${n}) | ${names
        .map((name) => {
          const k = kinds.get(name)?.get(kind);
          return k ? (k.sum / k.n).toFixed(3) : "-";
        })
        .join(" | ")} |`,
    );
  }
}
if (showMisses) console.log(`\nbelow 0.5 nDCG@10:\n${misses.join("\n")}`);
if (perQuery) console.log(`\n| store | q | kind | ${[...totals.keys()].join(" | ")} |\n${rows.join("\n")}`);
