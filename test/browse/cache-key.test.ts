import { env, exports } from "cloudflare:workers";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { browseCacheKey, type BrowsePageQuery, parseBrowseFacets, parseBrowsePage } from "../../src/browse/query.ts";
import { BrowseService } from "../../src/browse/service.ts";
import { BrowseStore } from "../../src/browse/source.ts";
import { d1Target } from "../../src/publish/browse-index.ts";
import { publishCatalog } from "../../src/publish/publish.ts";
import { seedCatalog } from "../helpers/catalog.ts";
import type { SourceCatalog } from "../../src/catalog/schema.ts";

/**
 * Regression, issue 33 point 1 (browse cache poisoning): the cache key of `q` kept each word and
 * whether it was exact but dropped the joined form a hyphenated q carries (`t-shirt` also matches
 * `tshirt`), so `q=t-shirt` and `q="t" "shirt"` shared one cached answer, set by whoever asked
 * first. The key must hold everything that decides the answer: two queries answered differently
 * never share a key (checked on the parsed query, and on the engine's real answers, uncached).
 */

const BASE = "https://shop.example/api/v1";
const RUNS = Number((import.meta as unknown as { env: Record<string, string | undefined> }).env.FUZZ_RUNS ?? 150);

/** The seed plus a product whose title has `tshirt` written together: `t-shirt` finds it, `"t" "shirt"` does not. */
function catalog() {
  const seed: SourceCatalog = seedCatalog();
  const base = seed.products[0];
  if (!base) throw new Error("the seed has no product");
  seed.products.push({
    ...structuredClone(base),
    id: "gid://shopify/Product/8012345679901",
    handle: "classic-tshirt-pack",
    title: "Classic Tshirt Pack",
    tags: ["Basics"],
    variants: base.variants.map((v, i) => ({ ...v, id: String(44102938479900 + i) })),
  });
  return seed;
}

let version = "";
beforeAll(async () => {
  version = (await publishCatalog(env.CATALOG, catalog(), { browse: d1Target(env.BROWSE, env.BROWSE_SNAPSHOTS) }))
    .version;
});

async function get(path: string) {
  const response = await exports.default.fetch(`${BASE}${path}`);
  const body = (await response.json()) as { count: number; data: { handle: string }[] };
  return { status: response.status, etag: response.headers.get("ETag"), body };
}

const keyOf = (q: BrowsePageQuery) => JSON.stringify(browseCacheKey(q, q));

/** What the engine reads of a page query: all of it but the spellings (facets only) and the checked version. */
function engineInput(q: BrowsePageQuery) {
  const { given: _given, catalog_version: _version, ...rest } = q;
  return rest;
}

function parsed(q: string, extra: [string, string][] = []): BrowsePageQuery | null {
  try {
    return parseBrowsePage([["q", q], ...extra]);
  } catch {
    return null;
  }
}

/** q text built from the words and separators that decide exactness and joined forms. */
const WORDS = ["t", "shirt", "T", "Shirt", "tshirt", "Tshirt", "tee", "crew", "black", "classic", "pack", "7"];
const SEPARATORS = [" ", "-", "  ", "\u2010", "_", "/", ""];
const qText = fc
  .tuple(
    fc.array(fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...SEPARATORS), fc.boolean()), {
      minLength: 1,
      maxLength: 4,
    }),
    fc.boolean(),
  )
  .map(([parts, quoteAll]) => {
    const text = parts
      .map(([word, sep, quoted], i) => `${quoted ? `"${word}"` : word}${i < parts.length - 1 ? sep : ""}`)
      .join("");
    return quoteAll ? `"${text}"` : text;
  });
/** A second spelling of a q: case, separators and quotes changed, so many pairs are near misses of each other. */
const respelled = (q: string) =>
  fc.tuple(fc.boolean(), fc.constantFrom(" ", "-", '" "', ""), fc.boolean()).map(([upper, sep, strip]) => {
    let out = upper ? q.toUpperCase() : q.toLowerCase();
    out = out.replace(/[-\u2010 ]/, sep);
    return strip ? out.replaceAll('"', "") : out;
  });
const pairs = qText.chain((a) => fc.tuple(fc.constant(a), fc.oneof(respelled(a), qText)));
const EXTRA = fc.constantFrom<[string, string][]>(
  [],
  [["sort", "price_asc"]],
  [["available", "true"]],
  [["limit", "3"]],
);

describe("the browse cache key (issue 33 point 1)", () => {
  it('never lets q=t-shirt and q="t" "shirt" share a key or an answer, whichever is asked first', async () => {
    const hyphen = parsed("t-shirt");
    const quoted = parsed('"t" "shirt"');
    expect(hyphen && quoted && keyOf(hyphen) !== keyOf(quoted)).toBe(true);

    // The reported case over HTTP: the hyphenated one asked first, as the red team did.
    const first = await get("/products?q=t-shirt");
    const second = await get(`/products?q=${encodeURIComponent('"t" "shirt"')}`);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(first.body.data.map((p) => p.handle)).toContain("classic-tshirt-pack");
    expect(second.body.data.map((p) => p.handle)).not.toContain("classic-tshirt-pack");
    expect(second.body.count).toBeLessThan(first.body.count);
    expect(second.etag).not.toBe(first.etag);
    // And the other order, on facets: each answer counts its own matches.
    const quotedFacets = await get(`/products/facets?q=${encodeURIComponent('"t" "shirt"')}`);
    const hyphenFacets = await get("/products/facets?q=t-shirt");
    expect(quotedFacets.body.count).toBe(second.body.count);
    expect(hyphenFacets.body.count).toBe(first.body.count);
  });

  it("keys equal only for queries the engine reads as equal (property over parsed queries)", () => {
    fc.assert(
      fc.property(pairs, EXTRA, ([a, b], extra) => {
        const qa = parsed(a, extra);
        const qb = parsed(b, extra);
        if (!qa || !qb) return;
        if (keyOf(qa) === keyOf(qb)) expect(engineInput(qb)).toEqual(engineInput(qa));
        const fa = parseBrowseFacets([["q", a]]);
        const fb = parseBrowseFacets([["q", b]]);
        if (JSON.stringify(browseCacheKey(fa)) === JSON.stringify(browseCacheKey(fb))) {
          const { given: ga, ...ra } = fa;
          const { given: gb, ...rb } = fb;
          expect(rb).toEqual(ra);
          expect([...gb]).toEqual([...ga]);
        }
      }),
      { numRuns: RUNS * 10, examples: [[["t-shirt", '"t" "shirt"'], []]] },
    );
  });

  it("never gives one key to two queries the engine answers differently (property over real, uncached answers)", async () => {
    // The engine itself, over the published D1 and R2, without the HTTP caches in between.
    const service = new BrowseService(new BrowseStore(env.BROWSE), env.BROWSE_SNAPSHOTS);
    let differing = 0;
    await fc.assert(
      fc.asyncProperty(pairs, async ([a, b]) => {
        const qa = parsed(a);
        const qb = parsed(b);
        if (!qa || !qb) return;
        const [ra, rb] = await Promise.all([service.page(version, {}, qa), service.page(version, {}, qb)]);
        if (JSON.stringify(ra) !== JSON.stringify(rb)) {
          differing++;
          expect(keyOf(qb), `${a} | ${b}`).not.toBe(keyOf(qa));
        }
      }),
      { numRuns: RUNS, examples: [[["t-shirt", '"t" "shirt"']], [["T-Shirt", '"t" "shirt"']]] },
    );
    expect(differing).toBeGreaterThan(0);
  });
});
