import { describe, expect, it } from "vitest";
import { generateCatalog } from "../../src/publish/generate.ts";
import { countErrors, percentile } from "./figures.ts";
import type { LoadResult } from "./load.ts";
import { type BenchReport, evaluateTargets, type Scenario, scaleRatios } from "./report.ts";
import { cartWorkloads, catalogWorkloads } from "./workloads.ts";

// The benchmark itself runs outside `npm test` (it needs minutes and a quiet machine); these
// check the parts that decide what its figures mean, none of which depends on timing.

function result(name: string, rps: number, p50Ms = 2, errors = 0): LoadResult & { ratioToCeiling: number } {
  return { name, requests: rps, durationS: 1, rps, p50Ms, p99Ms: p50Ms * 2, errors, statuses: { "200": rps }, workerdCpuUsPerRequest: 100, ratioToCeiling: rps / 1000 };
}

const CATALOG = ["list first page", "list deep page", "product detail", "variants + selectors", "collection page", "304 revalidation"];

function scenario(catalog: string, edgeCache: boolean, rps: number, p50Ms: number, extra: Scenario["workloads"] = []): Scenario {
  return {
    catalog,
    products: 1,
    edgeCache,
    ceiling: result("ceiling", 1000),
    ceilingRuns: [1000, 1000],
    workloads: [...CATALOG.map((name) => result(name, rps, p50Ms)), ...extra],
  };
}

function report(scenarios: Scenario[], gzipBytes = 50 * 1024): Omit<BenchReport, "targets"> {
  return {
    mode: "quick",
    date: "",
    machine: { cpus: 2, node: "", platform: "" },
    settings: { connections: 10, durationS: 1, warmupS: 0, cartTokens: 1, rateLimitPerMinute: 1 },
    bundle: { rawBytes: gzipBytes * 4, gzipBytes },
    startToFirstResponseMs: 1,
    publish: {},
    generateMs: 0,
    scenarios,
    counts: [],
    scale: scaleRatios(scenarios, "seed", "100k"),
  };
}

function target(targets: ReturnType<typeof evaluateTargets>, start: string) {
  const found = targets.find((t) => t.name.startsWith(start));
  if (!found) throw new Error(`no target ${start}`);
  return found;
}

describe("what counts as an error", () => {
  it("counts a 304 as success only for a workload that expects it", () => {
    expect(countErrors({ "304": 10 }, [304], 0)).toBe(0);
    expect(countErrors({ "200": 5, "304": 10 }, [200], 0)).toBe(10);
  });

  it("counts every non-200 of a cart write, and connection errors, as errors", () => {
    expect(countErrors({ "200": 7, "429": 2, "500": 1 }, [200], 3)).toBe(6);
  });
});

describe("latency percentiles", () => {
  it("uses the nearest rank, so p50 of 1..4 is 2 and p99 is the largest", () => {
    expect(percentile([1, 2, 3, 4], 0.5)).toBe(2);
    expect(percentile([1, 2, 3, 4], 0.99)).toBe(4);
    expect(percentile([], 0.5)).toBeNaN();
  });
});

describe("targets", () => {
  const cart = [result("add to cart, distinct carts", 500)];

  it("meets the hot-read target at 80% of the ceiling and misses it just below", () => {
    const met = evaluateTargets(report([scenario("seed", true, 800, 2, cart)]), "100k");
    const missed = evaluateTargets(report([scenario("seed", true, 799, 2, cart)]), "100k");
    expect(target(met, "product detail (seed)").met).toBe(true);
    expect(target(missed, "product detail (seed)").met).toBe(false);
  });

  it("judges scale by the worst p50 ratio, per edge-cache mode", () => {
    const within = evaluateTargets(report([scenario("seed", true, 800, 2, cart), scenario("100k", true, 800, 2.4)]), "100k");
    const beyond = evaluateTargets(report([scenario("seed", true, 800, 2, cart), scenario("100k", true, 800, 2.5)]), "100k");
    expect(target(within, "100k p50 within 1.2x of seed, every catalog workload (edge cache on)").met).toBe(true);
    expect(target(beyond, "100k p50 within 1.2x of seed, every catalog workload (edge cache on)").met).toBe(false);
  });

  it("fails zero-errors when any workload has an error or could not be measured", () => {
    const clean = evaluateTargets(report([scenario("seed", true, 800, 2, cart)]), "100k");
    const erred = evaluateTargets(report([scenario("seed", true, 800, 2, [result("add to cart, distinct carts", 500, 2, 1)])]), "100k");
    const skipped = evaluateTargets(report([scenario("seed", true, 800, 2, [{ name: "add to cart, distinct carts", skipped: "404" }])]), "100k");
    expect(target(clean, "zero errors").met).toBe(true);
    expect(target(erred, "zero errors").met).toBe(false);
    expect(target(skipped, "zero errors").met).toBe(false);
    expect(target(skipped, "add to cart, distinct carts").met).toBe(false);
  });

  it("holds the bundle to 100 KiB gzip", () => {
    expect(target(evaluateTargets(report([], 100 * 1024), "100k"), "bundle").met).toBe(true);
    expect(target(evaluateTargets(report([], 100 * 1024 + 1), "100k"), "bundle").met).toBe(false);
  });
});

describe("workloads", () => {
  const catalog = generateCatalog({ products: 2000 });

  it("puts the deep page's cursor 51 products from the end, so the page is the last full one", () => {
    const deep = catalogWorkloads(catalog).find((w) => w.name === "list deep page");
    expect(deep?.requests[0]?.path).toBe(`/api/v1/products?starting_after=${catalog.products[catalog.products.length - 51]?.handle}`);
  });

  it("expects 304 from revalidation and 200 from every other catalog read", () => {
    for (const w of catalogWorkloads(catalog)) expect(w.ok).toEqual(w.name === "304 revalidation" ? [304] : [200]);
  });

  it("gives each distinct-cart request its own token and keeps the hot cart under the 250-line cap", () => {
    const tokens = Array.from({ length: 300 }, (_, i) => `sf_live_token${i}`);
    const [fresh, distinct, hot] = cartWorkloads(catalog, tokens, "sf_live_hot");
    const bearer = (w: typeof fresh) => new Set(w?.requests.map((r) => r.headers?.authorization));
    expect(fresh?.amount).toBe(300);
    expect(bearer(distinct).size).toBe(300);
    expect(bearer(hot)).toEqual(new Set(["Bearer sf_live_hot"]));
    const hotVariants = new Set(hot?.requests.map((r) => (JSON.parse(r.body ?? "{}") as { variant_id: string }).variant_id));
    expect(hotVariants.size).toBeLessThanOrEqual(250);
    for (const w of [fresh, distinct, hot]) expect(w?.ok).toEqual([200]);
  });
});
