import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { catalogJsonChunks } from "../../src/cli/catalog-file.ts";
import { readCatalogFile } from "../../src/cli/catalog-stream.ts";
import { CheckedCatalog } from "../../src/publish/catalog-input.ts";
import { generateCatalog } from "../../src/publish/generate.ts";
import { countErrors, percentile } from "./figures.ts";
import { STRIPE_HOST } from "./entry.ts";
import type { LoadResult } from "./load.ts";
import {
  applyBareCeiling,
  applyCartCeilings,
  type BenchReport,
  type CeilingFigures,
  CHECKOUT_ROWS,
  evaluateTargets,
  ISSUE_CART,
  type MeasuredWorkload,
  PLAIN_ADD,
  renderReport,
  RULES_ROWS,
  type Scenario,
  scaleRatios,
  STOCK_ROWS,
} from "./report.ts";
import {
  addedVariant,
  cartCeilingWorkloads,
  cartWorkloads,
  checkoutCreateWorkload,
  checkoutStripeWorkload,
  shopperCartWorkloads,
  catalogWorkloads,
  stockFlipTarget,
  stockReadWorkloads,
  trackedAddWorkload,
} from "./workloads.ts";

// The benchmark itself runs outside `npm test` (it needs minutes and a quiet machine); these
// check the parts that decide what its figures mean, none of which depends on timing.

function result(
  name: string,
  rps: number,
  p50Ms = 2,
  errors = 0,
  cpuUs = 100,
): LoadResult & { ratioToCeiling: number } {
  return {
    name,
    requests: rps,
    durationS: 1,
    rps,
    p50Ms,
    p99Ms: p50Ms * 2,
    errors,
    statuses: { "200": rps },
    workerdCpuUsPerRequest: cpuUs,
    workerdPeakRssMiB: 300,
    ratioToCeiling: rps / 1000,
  };
}

function ceiling(name: string, rps: number, errors = 0, cpuUs = 100): CeilingFigures {
  return { ...result(name, rps, 2, errors, cpuUs), runs: [rps, rps] };
}

const CATALOG = [
  "list first page",
  "list deep page",
  "product detail",
  "variants + selectors",
  "collection page",
  "304 revalidation",
];

function scenario(
  catalog: string,
  edgeCache: boolean,
  rps: number,
  p50Ms: number,
  extra: Scenario["workloads"] = [],
): Scenario {
  return {
    catalog,
    products: 1,
    edgeCache,
    ceiling: result("ceiling", 1000),
    ceilingRuns: [1000, 1000],
    workloads: [...CATALOG.map((name) => result(name, rps, p50Ms)), ...extra],
    workerdRss: { afterStartMiB: 90, peakMiB: 400, afterWorkloadsMiB: 350 },
  };
}

/**
 * A hot scenario with its bare ceilings: the bare Worker at 100 µs of workerd CPU per request,
 * the bare Hono app at 110, `/health` at `healthUs`, and every catalog workload at `readUs`.
 */
function bareScenario(catalog: string, readUs: number, healthUs = 110, extra: Scenario["workloads"] = []): Scenario {
  const s = scenario(catalog, true, 900, 2, extra);
  s.workloads = [...CATALOG.map((name) => result(name, 900, 2, 0, readUs)), ...extra];
  s.ceiling = result("ceiling", 1000, 2, 0, healthUs);
  s.bareWorker = ceiling("bare Worker: fixed JSON", 3000, 0, 100);
  s.bareHono = ceiling("bare Hono: one route", 2800, 0, 110);
  applyBareCeiling(s);
  return s;
}

/** The seed's edge-cache-on scenario with the three cart workloads and their ceilings. */
function cartScenario(
  adds: { fresh: number; distinct: number; hot: number },
  ceilings = { fresh: 100, distinct: 500, hot: 400 },
  errors = 0,
): Scenario {
  const s = scenario("seed", true, 900, 2, [
    result("add to cart, new carts", adds.fresh),
    result("add to cart, distinct carts", adds.distinct),
    result("add to cart, one hot cart", adds.hot),
  ]);
  s.cartCeilingNewObjects = ceiling("cart ceiling: new objects", ceilings.fresh);
  s.cartCeiling = ceiling("cart ceiling: existing objects", ceilings.distinct, errors);
  s.cartCeilingHot = ceiling("cart ceiling: one hot object", ceilings.hot);
  applyCartCeilings(s);
  return s;
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
    benchPeakRssMiB: 600,
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
  const adds = { fresh: 90, distinct: 450, hot: 360 };

  it("meets the cold-start target when the large catalog's first browse after publish takes at most 500 ms", () => {
    const withCold = (snapshotMs: number) => {
      const r = report([]);
      r.publish["100k"] = {
        products: 100_000,
        entries: 1,
        ms: 1,
        validateMs: 0,
        writeMs: 1,
        rssBeforeMiB: 1,
        peakRssMiB: 1,
        workerdPeakRssMiB: 1,
        coldStart: { snapshotBytes: 1, snapshotMs, warmMs: 1, replicaMs: 1, d1Ms: 1 },
      };
      return evaluateTargets(r, "100k");
    };
    const name = "cold start 100k: first browse after publish <= 500 ms";
    expect(target(withCold(500), name)).toMatchObject({ value: "500 ms", met: true });
    expect(target(withCold(501), name)).toMatchObject({ value: "501 ms", met: false });
    expect(target(evaluateTargets(report([]), "100k"), name)).toMatchObject({ value: "not measured", met: false });
  });

  it("holds catalog:publish of the large catalog's file under 2 GiB of peak RSS, and judges no in-process publish", () => {
    const withPublish = (peakRssMiB: number, publisher?: "catalog:publish") => {
      const r = report([]);
      r.publish["1000k in 10 shards"] = {
        products: 1_000_000,
        entries: 1,
        ms: 1,
        validateMs: 0,
        writeMs: 1,
        rssBeforeMiB: Number.NaN,
        peakRssMiB,
        workerdPeakRssMiB: undefined,
        ...(publisher ? { publisher } : {}),
      };
      return evaluateTargets(r, "1000k in 10 shards");
    };
    const name = "publish 1000k in 10 shards: catalog:publish peak RSS < 2048 MiB";
    expect(target(withPublish(2047, "catalog:publish"), name)).toMatchObject({ value: "2047 MiB", met: true });
    expect(target(withPublish(2048, "catalog:publish"), name)).toMatchObject({ value: "2048 MiB", met: false });
    expect(withPublish(900).some((t) => t.name === name)).toBe(false);
  });

  it("holds a hot read to 1.5x the bare Worker's CPU per request and /health to 1.2x, per catalog", () => {
    const met = evaluateTargets(report([bareScenario("seed", 150, 120), bareScenario("100k", 150, 120)]), "100k");
    const missed = evaluateTargets(report([bareScenario("seed", 151, 121), bareScenario("100k", 151, 121)]), "100k");
    for (const catalog of ["seed", "100k"]) {
      expect(target(met, `GET /health (${catalog}, edge cache on) workerd CPU/req <= 1.2x`)).toMatchObject({
        value: "1.20x",
        met: true,
      });
      expect(target(missed, `GET /health (${catalog}, edge cache on) workerd CPU/req <= 1.2x`)).toMatchObject({
        value: "1.21x",
        met: false,
      });
      for (const name of ["product detail", "list first page", "collection page", "304 revalidation"]) {
        expect(
          target(met, `${name} (${catalog}, edge cache on) workerd CPU/req <= 1.5x the bare Worker's`),
        ).toMatchObject({ value: "1.50x", met: true });
        expect(
          target(missed, `${name} (${catalog}, edge cache on) workerd CPU/req <= 1.5x the bare Worker's`),
        ).toMatchObject({ value: "1.51x", met: false });
      }
    }
  });

  it("judges hot reads by CPU against the bare Worker, not by req/s against /health", () => {
    // Far below /health's req/s (0.5), yet within 1.5x of the bare Worker's CPU: met.
    const s = bareScenario("seed", 140);
    for (const w of s.workloads) if ("rps" in w) w.ratioToCeiling = 0.5;
    expect(target(evaluateTargets(report([s]), "100k"), "product detail (seed, edge cache on)").met).toBe(true);
  });

  it("does not meet a bare target where the run measured no bare Worker", () => {
    const targets = evaluateTargets(report([scenario("seed", true, 1000, 2), bareScenario("100k", 100)]), "100k");
    expect(target(targets, "product detail (seed, edge cache on)")).toMatchObject({
      value: "not measured",
      met: false,
    });
    expect(target(targets, "GET /health (seed, edge cache on)")).toMatchObject({ value: "not measured", met: false });
    expect(target(targets, "product detail (100k, edge cache on)").met).toBe(true);
  });

  it("holds cache misses (edge cache off) to 0.6 of the ceiling, not 0.9", () => {
    const met = evaluateTargets(report([scenario("seed", false, 600, 2), scenario("100k", false, 600, 2)]), "100k");
    const missed = evaluateTargets(report([scenario("seed", false, 599, 2), scenario("100k", false, 600, 2)]), "100k");
    expect(target(met, "product detail (seed, edge cache off) >= 0.6").met).toBe(true);
    expect(target(met, "product detail (100k, edge cache off) >= 0.6").met).toBe(true);
    expect(target(missed, "product detail (seed, edge cache off) >= 0.6").met).toBe(false);
    expect(target(missed, "product detail (100k, edge cache off) >= 0.6").met).toBe(true);
  });

  it("does not meet a read target for a catalog or edge-cache mode the run did not measure", () => {
    const targets = evaluateTargets(report([bareScenario("seed", 100)]), "100k");
    expect(target(targets, "product detail (100k, edge cache on)")).toMatchObject({
      value: "not measured",
      met: false,
    });
    expect(target(targets, "product detail (seed, edge cache off)")).toMatchObject({
      value: "not measured",
      met: false,
    });
  });

  it("judges scale by the worst p50 ratio, 1.15x, per edge-cache mode", () => {
    const on = "100k p50 within 1.15x of the seed's, every catalog workload (edge cache on)";
    const within = evaluateTargets(report([scenario("seed", true, 900, 2), scenario("100k", true, 900, 2.3)]), "100k");
    const beyond = evaluateTargets(report([scenario("seed", true, 900, 2), scenario("100k", true, 900, 2.31)]), "100k");
    expect(target(within, on).met).toBe(true);
    expect(target(beyond, on).met).toBe(false);
    expect(
      target(within, "100k p50 within 1.15x of the seed's, every catalog workload (edge cache off)"),
    ).toMatchObject({ value: "not measured", met: false });
  });

  it("compares each cart workload with its own cart ceiling at 0.9, not with /health", () => {
    const met = evaluateTargets(report([cartScenario(adds)]), "100k");
    expect(target(met, "add to cart, new carts >= 0.9 of the cart ceiling: new objects")).toMatchObject({
      value: "0.90",
      met: true,
    });
    expect(target(met, "add to cart, distinct carts >= 0.9 of the cart ceiling: existing objects")).toMatchObject({
      value: "0.90",
      met: true,
    });
    expect(target(met, "add to cart, one hot cart >= 0.9 of the cart ceiling: one hot object")).toMatchObject({
      value: "0.90",
      met: true,
    });
    // Each just below its own ceiling's 0.9 (and all far below /health's, which the targets ignore).
    const missed = evaluateTargets(report([cartScenario({ fresh: 89, distinct: 449, hot: 359 })]), "100k");
    expect(target(missed, "add to cart, new carts").met).toBe(false);
    expect(target(missed, "add to cart, distinct carts").met).toBe(false);
    expect(target(missed, "add to cart, one hot cart").met).toBe(false);
  });

  it("does not meet a cart target whose ceiling was not measured", () => {
    const s = cartScenario(adds);
    delete s.cartCeilingHot;
    for (const w of s.workloads) if ("ratioToCartCeiling" in w) delete w.ratioToCartCeiling;
    applyCartCeilings(s);
    const targets = evaluateTargets(report([s]), "100k");
    expect(target(targets, "add to cart, one hot cart")).toMatchObject({ value: "not measured", met: false });
    expect(target(targets, "add to cart, distinct carts").met).toBe(true);
  });

  it("fails zero-errors when any workload or cart ceiling has an error, or a workload could not be measured", () => {
    const clean = evaluateTargets(report([cartScenario(adds)]), "100k");
    const erred = evaluateTargets(
      report([scenario("seed", true, 800, 2, [result("add to cart, distinct carts", 500, 2, 1)])]),
      "100k",
    );
    const ceilingErred = evaluateTargets(report([cartScenario(adds, undefined, 1)]), "100k");
    const skipped = evaluateTargets(
      report([scenario("seed", true, 800, 2, [{ name: "add to cart, distinct carts", skipped: "404" }])]),
      "100k",
    );
    expect(target(clean, "zero errors").met).toBe(true);
    expect(target(erred, "zero errors").met).toBe(false);
    expect(target(ceilingErred, "zero errors")).toMatchObject({ value: "1 errors, 0 not measured", met: false });
    expect(target(skipped, "zero errors").met).toBe(false);
    expect(target(skipped, "add to cart, distinct carts").met).toBe(false);
  });

  it("holds browse to 2x a plain first page's p50 on a 100k miss, and to 1.6x the bare Worker's CPU when hot", () => {
    const browse = (p50Ms: number, rps: number, cpuUs = 100) =>
      ["browse: filtered + sorted", "browse: q search", "browse: facets", "browse: collection browse"].map((name) =>
        result(name, rps, p50Ms, 0, cpuUs),
      );
    const targets = evaluateTargets(
      report([
        bareScenario("seed", 100, 110, browse(2, 800, 160)),
        bareScenario("100k", 100, 110, browse(2, 790, 161)),
        scenario("100k", false, 700, 4, [
          result("browse: filtered + sorted", 300, 8),
          result("browse: q search", 300, 8.1),
          ...browse(6, 300).slice(2),
        ]),
      ]),
      "100k",
    );
    expect(target(targets, "browse: filtered + sorted (100k, edge cache off)")).toMatchObject({
      value: "2.00x",
      met: true,
    });
    expect(target(targets, "browse: q search (100k, edge cache off)")).toMatchObject({ value: "2.02x", met: false });
    expect(target(targets, "browse: facets (seed, edge cache on) workerd CPU/req <= 1.6x")).toMatchObject({
      value: "1.60x",
      met: true,
    });
    expect(target(targets, "browse: facets (100k, edge cache on) workerd CPU/req <= 1.6x")).toMatchObject({
      value: "1.61x",
      met: false,
    });
  });

  it("judges browse on a miss by the no-memos scenario, where every answer is a true miss, when the run has one", () => {
    const browse = (p50Ms: number) =>
      ["browse: filtered + sorted", "browse: q search", "browse: facets", "browse: collection browse"].map((name) =>
        result(name, 300, p50Ms),
      );
    const targets = evaluateTargets(
      report([scenario("100k", false, 700, 4, browse(4)), scenario("100k, no memos", false, 700, 4, browse(40))]),
      "100k",
    );
    expect(target(targets, "browse: facets (100k, no memos, edge cache off)")).toMatchObject({
      value: "10.00x",
      met: false,
    });
  });

  it("holds live stock's reads on the large catalog to today's hot targets: 1.5x the bare Worker's CPU, browse 1.6x", () => {
    const rows = (hotUs: number, browseUs: number) => [
      result(STOCK_ROWS.hotReads, 900, 2, 0, hotUs),
      result(STOCK_ROWS.browseReads, 900, 2, 0, browseUs),
    ];
    const met = evaluateTargets(report([bareScenario("100k", 100, 110, rows(150, 160))]), "100k");
    const missed = evaluateTargets(report([bareScenario("100k", 100, 110, rows(151, 161))]), "100k");
    const hot = `${STOCK_ROWS.hotReads} (100k, edge cache on) workerd CPU/req <= 1.5x the bare Worker's`;
    const browse = `${STOCK_ROWS.browseReads} (100k, edge cache on) workerd CPU/req <= 1.6x the bare Worker's`;
    expect(target(met, hot)).toMatchObject({ value: "1.50x", met: true });
    expect(target(met, browse)).toMatchObject({ value: "1.60x", met: true });
    expect(target(missed, hot)).toMatchObject({ value: "1.51x", met: false });
    expect(target(missed, browse)).toMatchObject({ value: "1.61x", met: false });
    // Measured on the seed only, or not at all: the large catalog's targets are not met.
    const seedOnly = evaluateTargets(report([bareScenario("seed", 100, 110, rows(100, 100))]), "100k");
    expect(target(seedOnly, hot)).toMatchObject({ value: "not measured", met: false });
    expect(target(seedOnly, browse)).toMatchObject({ value: "not measured", met: false });
  });

  it("holds an add to cart with the stock check to 0.8 of its cart ceiling (existing objects)", () => {
    const withTracked = (ratio: number | undefined) => {
      const s = cartScenario(adds);
      const row: MeasuredWorkload = result(STOCK_ROWS.trackedAdd, 400);
      if (ratio !== undefined) row.ratioToCartCeiling = ratio;
      s.workloads.push(row);
      return evaluateTargets(report([s]), "100k");
    };
    const name = `${STOCK_ROWS.trackedAdd} >= 0.8 of the cart ceiling: existing objects`;
    expect(target(withTracked(0.8), name)).toMatchObject({ value: "0.80", met: true });
    expect(target(withTracked(0.799), name)).toMatchObject({ value: "0.80", met: false });
    expect(target(withTracked(undefined), name)).toMatchObject({ value: "not measured", met: false });
    expect(target(evaluateTargets(report([cartScenario(adds)]), "100k"), name)).toMatchObject({
      value: "not measured",
      met: false,
    });
  });

  it("holds an add with rules to 1.1x (3 zones + tax) and 1.15x (discounts) of the plain add's CPU per request, in one run", () => {
    // The plain add ("add to cart, distinct carts") runs at 100 µs of workerd CPU per request.
    const withRules = (zonesUs: number | undefined, discountsUs = 115, plain = true) => {
      const s = cartScenario(adds);
      if (!plain) s.workloads = s.workloads.filter((w) => w.name !== PLAIN_ADD);
      if (zonesUs !== undefined) s.workloads.push(result(RULES_ROWS[0].workload, 400, 2, 0, zonesUs));
      s.workloads.push(result(RULES_ROWS[1].workload, 400, 2, 0, discountsUs));
      return evaluateTargets(report([s]), "100k");
    };
    const zones = `${RULES_ROWS[0].workload}: workerd CPU per request <= 1.1x the ${PLAIN_ADD}'s`;
    const discounts = `${RULES_ROWS[1].workload}: workerd CPU per request <= 1.15x the ${PLAIN_ADD}'s`;
    expect(target(withRules(110), zones)).toMatchObject({ value: "1.10x", met: true });
    expect(target(withRules(111), zones)).toMatchObject({ value: "1.11x", met: false });
    expect(target(withRules(110, 115), discounts)).toMatchObject({ value: "1.15x", met: true });
    expect(target(withRules(110, 116), discounts)).toMatchObject({ value: "1.16x", met: false });
    expect(target(withRules(undefined), zones)).toMatchObject({ value: "not measured", met: false });
    // Without the plain add of the same run there is nothing to judge against.
    expect(target(withRules(100, 100, false), discounts)).toMatchObject({ value: "not measured", met: false });
  });

  it("holds checkout create and create with Stripe to 2x, and completion to 3x, the plain add's CPU per request, in one run", () => {
    // The plain add ("add to cart, distinct carts") runs at 100 µs of workerd CPU per request.
    const withCheckouts = (us: { create?: number; stripe?: number; complete?: number }, plain = true) => {
      const s = cartScenario(adds);
      if (!plain) s.workloads = s.workloads.filter((w) => w.name !== PLAIN_ADD);
      for (const [row, cpu] of Object.entries(us))
        s.workloads.push(result(CHECKOUT_ROWS[row as keyof typeof CHECKOUT_ROWS].workload, 20, 2, 0, cpu));
      return evaluateTargets(report([s]), "100k");
    };
    const name = (row: keyof typeof CHECKOUT_ROWS, x: number) =>
      `${CHECKOUT_ROWS[row].workload}: workerd CPU per request <= ${x}x the ${PLAIN_ADD}'s`;
    expect(target(withCheckouts({ create: 200 }), name("create", 2))).toMatchObject({ value: "2.00x", met: true });
    expect(target(withCheckouts({ create: 201 }), name("create", 2))).toMatchObject({ value: "2.01x", met: false });
    expect(target(withCheckouts({ stripe: 200 }), name("stripe", 2))).toMatchObject({ value: "2.00x", met: true });
    expect(target(withCheckouts({ stripe: 201 }), name("stripe", 2))).toMatchObject({ value: "2.01x", met: false });
    expect(target(withCheckouts({ complete: 300 }), name("complete", 3))).toMatchObject({ value: "3.00x", met: true });
    expect(target(withCheckouts({ complete: 301 }), name("complete", 3))).toMatchObject({ value: "3.01x", met: false });
    // A row the run did not measure, or no plain add of the same run to judge it against: not met.
    expect(target(withCheckouts({ create: 150 }), name("stripe", 2))).toMatchObject({
      value: "not measured",
      met: false,
    });
    expect(target(withCheckouts({ stripe: 150 }, false), name("stripe", 2))).toMatchObject({
      value: "not measured",
      met: false,
    });
  });

  it("holds POST /carts to 1.3x the bare Worker's CPU per request (issue 42; issue 34 asked 1.5x)", () => {
    const withIssue = (cpu: number) => {
      const s = cartScenario(adds);
      s.workloads.push(result(ISSUE_CART, 900, 2, 0, cpu));
      s.bareWorker = ceiling("bare Worker: fixed JSON", 3000, 0, 100);
      applyBareCeiling(s);
      return evaluateTargets(report([s]), "100k");
    };
    const name = `${ISSUE_CART} (seed, edge cache on) workerd CPU/req <= 1.3x the bare Worker's`;
    expect(target(withIssue(130), name)).toMatchObject({ value: "1.30x", met: true });
    expect(target(withIssue(131), name)).toMatchObject({ value: "1.31x", met: false });
  });

  it("holds a stock change's time to visibility to 10 s, judged by the slowest change", () => {
    const withVisibility = (maxMs: number, changes = 100) => {
      const s = bareScenario("100k", 100);
      s.stockVisibility = { changes, p50Ms: 1009, maxMs };
      return evaluateTargets(report([s]), "100k");
    };
    const name = `${STOCK_ROWS.visibility}: every change answered within 10000 ms`;
    expect(target(withVisibility(10_000), name)).toMatchObject({
      value: "p50 1009 ms, max 10000 ms over 100 changes",
      met: true,
    });
    expect(target(withVisibility(10_001), name)).toMatchObject({ met: false });
    expect(target(withVisibility(50, 0), name).met).toBe(false);
    expect(target(evaluateTargets(report([bareScenario("100k", 100)]), "100k"), name)).toMatchObject({
      value: "not measured",
      met: false,
    });
  });

  it("holds the bundle to 100 KiB gzip", () => {
    expect(target(evaluateTargets(report([], 100 * 1024), "100k"), "bundle").met).toBe(true);
    expect(target(evaluateTargets(report([], 100 * 1024 + 1), "100k"), "bundle").met).toBe(false);
  });
});

describe("the report", () => {
  it("prints each cart ceiling above the workload it bounds, both ratios, and workerd's peak RSS per workload and scenario", () => {
    const s = cartScenario({ fresh: 70, distinct: 350, hot: 280 });
    s.bareWorker = ceiling("bare Worker: fixed JSON", 3000, 0, 80);
    s.bareHono = ceiling("bare Hono: one route", 2800, 0, 88);
    applyBareCeiling(s);
    const r = report([s]);
    const text = renderReport({ ...r, targets: evaluateTargets(r, "100k") });
    const lines = text.split("\n");
    const at = (start: string) => lines.findIndex((l) => l.startsWith(`| ${start}`));
    expect(at("cart ceiling: existing objects")).toBe(at("add to cart, distinct carts") - 1);
    expect(at("cart ceiling: one hot object")).toBe(at("add to cart, one hot cart") - 1);
    // The bare ceilings first, then /health: each with its CPU per request over the bare Worker's.
    expect([at("bare Worker"), at("bare Hono"), at("ceiling")]).toEqual([2, 3, 4]);
    expect(lines[at("bare Hono")]).toMatch(/\|\s+88 \|\s+1\.10 \|\s+300 \|$/);
    // req/s 350 over /health's 1000 and over the existing-object ceiling's 500; CPU 100 µs, 1.25x
    // the bare Worker's 80; peak RSS 300 MiB.
    expect(lines[at("add to cart, distinct carts")]).toMatch(/\|\s+0\.35 \|\s+0\.70 \|\s+100 \|\s+1\.25 \|\s+300 \|$/);
    expect(s.workloads.find((w) => w.name === "add to cart, distinct carts")).toMatchObject({ cpuToBareWorker: 1.25 });
    expect(lines[at("seed")]).toMatch(/\|\s+90 \|\s+400 \|\s+350 \|$/);
    expect(text).toContain(
      "bench process peak RSS (the whole run: wrangler, Miniflare, autocannon, the generated catalog): 600 MiB",
    );
  });

  it("prints live stock's time to visibility under the workloads, with its catalog", () => {
    const s = bareScenario("100k", 100, 110, [result(STOCK_ROWS.hotReads, 900, 2, 0, 120)]);
    s.stockVisibility = { changes: 100, p50Ms: 1009.4, maxMs: 2041.2 };
    const r = report([s]);
    const text = renderReport({ ...r, targets: evaluateTargets(r, "100k") });
    expect(text).toContain(
      "stock: time to visibility (100k, edge cache on): an operator change of a tracked variant's availability until GET /products/{handle}?include=variants answers it: p50 1009 ms, max 2041 ms over 100 changes",
    );
    expect(text.split("\n").find((l) => l.startsWith(`| ${STOCK_ROWS.hotReads}`))).toMatch(
      /\|\s+120 \|\s+1\.20 \|\s+300 \|$/,
    );
  });

  it("labels a publish by catalog:publish (--catalog-file) as that process's, and says the file was read, not generated", () => {
    const figures = {
      products: 20000,
      entries: 1289,
      ms: 43_900,
      validateMs: 7_600,
      writeMs: 35_600,
      rssBeforeMiB: Number.NaN,
      peakRssMiB: 843,
      workerdPeakRssMiB: 538,
    };
    const r = report([cartScenario({ fresh: 70, distinct: 350, hot: 280 })]);
    r.publish = {
      seed: { ...figures, rssBeforeMiB: 494 },
      "20k in 4 shards": { ...figures, publisher: "catalog:publish" },
    };
    r.catalogFile = "/tmp/c20k.json";
    const text = renderReport({ ...r, targets: evaluateTargets(r, "20k in 4 shards") });
    const lines = text.split("\n");
    expect(lines.find((l) => l.startsWith("| seed "))).toMatch(/\|\s+494 \|\s+843 \|\s+538 \|$/);
    expect(lines.find((l) => l.startsWith("| 20k in 4 shards (catalog:publish process) "))).toMatch(
      /\|\s+20000 \|\s+1289 \|\s+43\.9 \|\s+7\.6 \|\s+35\.6 \|\s+- \|\s+843 \|\s+538 \|$/,
    );
    expect(text).toContain("its peak RSS is that process's (VmHWM)");
    expect(text).toContain("autocannon, /tmp/c20k.json read a product at a time): 600 MiB");
  });
});

describe("workloads", () => {
  const catalog = generateCatalog({ products: 2000 });

  it("puts the deep page's cursor 51 products from the end, so the page is the last full one", () => {
    const deep = catalogWorkloads(catalog).find((w) => w.name === "list deep page");
    expect(deep?.requests[0]?.path).toBe(
      `/api/v1/products?starting_after=${catalog.products[catalog.products.length - 51]?.handle}`,
    );
  });

  it("builds every browse filter from values the catalog holds, so each one matches products", () => {
    const browse = catalogWorkloads(catalog).filter((w) => w.name.startsWith("browse: "));
    expect(browse.map((w) => w.name)).toEqual([
      "browse: filtered + sorted",
      "browse: q search",
      "browse: facets",
      "browse: collection browse",
      "browse: page after a cursor",
    ]);
    // The cursor is an available product past the middle: among the matches of available=true.
    const later = new URL(`https://x${browse[4]!.requests[0]!.path}`).searchParams;
    expect(later.get("available")).toBe("true");
    const at = catalog.products.findIndex((p) => p.handle === later.get("starting_after"));
    expect(at).toBeGreaterThanOrEqual(catalog.products.length * 0.6);
    expect(catalog.products[at]?.variants.some((v) => v.available)).toBe(true);
    const query = new URL(`https://x${browse[0]!.requests[0]!.path}`).searchParams;
    const option = [...query.keys()].find((k) => k.startsWith("option."))!;
    const matches = catalog.products.filter(
      (p) =>
        p.vendor === query.get("vendor") &&
        p.tags.includes(query.get("tag")!) &&
        p.variants.some(
          (v) =>
            v.available &&
            Object.entries(v.options).some(
              ([n, value]) =>
                `option.${n.toLowerCase().replace(/\s+/g, "-")}` === option && value === query.get(option),
            ),
        ),
    );
    expect(query.get("sort")).toBe("price_asc");
    expect(matches.length).toBeGreaterThan(0);
  });

  it("chooses the same workloads from a catalog file read a product at a time as from the catalog in memory", async () => {
    // npm run bench -- --catalog-file F reads F with the publish CLI's reader: its products are a
    // ProductList on disk, not an array (a million products as objects would not fit).
    const generated = generateCatalog({ products: 3000, seed: 1 });
    const dir = mkdtempSync(join(tmpdir(), "bench-workloads-"));
    try {
      const file = join(dir, "catalog.json");
      writeFileSync(file, [...catalogJsonChunks(generated)].join(""));
      const read = await readCatalogFile(file);
      try {
        expect(read.input).toBeInstanceOf(CheckedCatalog);
        const fromFile = (read.input as CheckedCatalog).catalog;
        expect(Array.isArray(fromFile.products)).toBe(false);
        expect(fromFile.products.length).toBe(3000);
        const inMemory = catalogWorkloads(generated);
        expect(inMemory.map((w) => w.name)).toContain("browse: facets");
        expect(catalogWorkloads(fromFile)).toEqual(inMemory);
        const tokens = ["sf_live_a", "sf_live_b", "sf_live_c"];
        expect(cartWorkloads(fromFile, tokens, "sf_live_hot")).toEqual(cartWorkloads(generated, tokens, "sf_live_hot"));
      } finally {
        read.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("flips a tracked variant of a product that stays available, and reads its product among the hot reads", () => {
    const flip = stockFlipTarget(catalog);
    expect(flip).toBeDefined();
    const product = catalog.products.find((p) => p.handle === flip?.handle)!;
    const variant = product.variants.find((v) => v.id === flip?.variantId)!;
    expect(variant.inventory_quantity).toBeDefined();
    expect(variant.inventory_policy ?? "deny").toBe("deny");
    expect(variant.available).toBe(true);
    // Another variant answers for the product whichever way the flipped one goes, so it stays 200.
    expect(product.variants.some((v) => v !== variant && v.available && v.inventory_quantity === undefined)).toBe(true);
    const [hot, browse] = stockReadWorkloads(catalog, flip!);
    expect(hot?.name).toBe(STOCK_ROWS.hotReads);
    expect(hot?.requests[0]?.path).toBe(`/api/v1/products/${flip?.handle}?include=variants`);
    expect(hot?.requests.some((r) => r.path === "/api/v1/products")).toBe(true);
    const browsePaths = catalogWorkloads(catalog)
      .filter((w) =>
        ["browse: filtered + sorted", "browse: q search", "browse: facets", "browse: collection browse"].includes(
          w.name,
        ),
      )
      .map((w) => w.requests[0]?.path);
    expect(browse?.requests.map((r) => r.path)).toEqual(browsePaths);
    for (const w of [hot, browse]) expect(w?.ok).toEqual([200]);
  });

  it("adds one tracked variant from each distinct cart in the tracked-add row", () => {
    const tokens = Array.from({ length: 50 }, (_, i) => `sf_live_token${i}`);
    const w = trackedAddWorkload(catalog, tokens)!;
    expect(w.name).toBe(STOCK_ROWS.trackedAdd);
    expect(new Set(w.requests.map((r) => r.headers?.authorization)).size).toBe(50);
    const id = addedVariant(w);
    expect(w.requests.every((r) => (JSON.parse(r.body ?? "{}") as { variant_id: string }).variant_id === id)).toBe(
      true,
    );
    const variant = catalog.products.flatMap((p) => p.variants).find((v) => v.id === id);
    expect(variant?.inventory_quantity).toBeDefined();
    expect(variant?.available).toBe(true);
    expect(w.ok).toEqual([200]);
    // An untracked catalog has no such row.
    const untracked = generateCatalog({ products: 20 });
    for (const p of untracked.products) for (const v of p.variants) delete v.inventory_quantity;
    expect(trackedAddWorkload(untracked, tokens)).toBeUndefined();
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
    const hotVariants = new Set(
      hot?.requests.map((r) => (JSON.parse(r.body ?? "{}") as { variant_id: string }).variant_id),
    );
    expect(hotVariants.size).toBeLessThanOrEqual(250);
    for (const w of [fresh, distinct, hot]) expect(w?.ok).toEqual([200]);
  });

  // Regression: the shopper-token rows added tracked variants too, whose few units answered 409
  // insufficient_stock to repeated adds (6 errors in the recorded run of 2026-11-27).
  it("adds only untracked variants in every cart row, live tokens and shopper tokens alike", () => {
    const tokens = Array.from({ length: 300 }, (_, i) => `sf_cart_token${i}`);
    const tracked = new Set(
      catalog.products.flatMap((p) => p.variants.filter((v) => v.inventory_quantity !== undefined).map((v) => v.id)),
    );
    expect(tracked.size).toBeGreaterThan(0);
    const rows = [...cartWorkloads(catalog, tokens, "sf_live_hot"), ...shopperCartWorkloads(catalog, tokens)];
    expect(rows).toHaveLength(5);
    const added = rows.flatMap((w) =>
      w.requests.map((r) => (JSON.parse(r.body ?? "{}") as { variant_id: string }).variant_id),
    );
    expect(added.filter((id) => tracked.has(id))).toEqual([]);
  });

  // Regression: the local runtime evicts a Durable Object idle 10 s, so runs cycling over a thousand
  // objects met a varying share of them closed, or being closed (a tracked add 2,100-4,100 µs of CPU
  // per request from run to run, its ceiling 1,450-3,600). Those runs, and only those, first let the
  // objects before them go, then touch each of their own once (load.ts, warmUp).
  it("marks exactly the runs that cycle over many objects, each request naming its own: existing carts and their ceiling", () => {
    const tokens = Array.from({ length: 300 }, (_, i) => `sf_live_token${i}`);
    const cycled = [
      ...cartWorkloads(catalog, tokens, "sf_live_hot"),
      ...shopperCartWorkloads(catalog, tokens),
      trackedAddWorkload(catalog, tokens)!,
      ...Object.values(cartCeilingWorkloads(300, "a")),
    ];
    expect(cycled.filter((w) => w.objectPerRequest).map((w) => w.name)).toEqual([
      "add to cart, distinct carts",
      "add to cart, shopper tokens, distinct carts",
      STOCK_ROWS.trackedAdd,
      "cart ceiling: existing objects",
    ]);
    for (const w of cycled.filter((x) => x.objectPerRequest)) {
      // One object per request: as many distinct targets (tokens or ceiling names) as requests.
      const targets = new Set(w.requests.map((r) => r.headers?.authorization ?? r.path));
      expect(targets.size).toBe(w.requests.length);
      expect(w.amount).toBeUndefined();
    }
  });

  it("sends the Stripe creates as the plain creates, once per cart, to the entry's Stripe host with an https return_url", () => {
    const tokens = Array.from({ length: 30 }, (_, i) => `sf_live_token${i}`);
    const plain = checkoutCreateWorkload(tokens);
    const stripe = checkoutStripeWorkload(tokens);
    expect(stripe).toMatchObject({ name: CHECKOUT_ROWS.stripe.workload, ok: [201], amount: 30 });
    stripe.requests.forEach((r, i) => {
      expect(r.path).toBe(plain.requests[i]!.path);
      expect(r.headers).toEqual({ ...plain.requests[i]!.headers, host: STRIPE_HOST });
      // Stripe's payment page needs a way back (else 400 parameter_missing); production refuses http.
      expect(new URL((JSON.parse(r.body!) as { return_url: string }).return_url).protocol).toBe("https:");
    });
  });

  it("shapes the cart ceilings like the cart workloads: as many new objects once each, then cycled, and one hot object", () => {
    const first = cartCeilingWorkloads(300, "a");
    const again = cartCeilingWorkloads(300, "b");
    const paths = (w: { requests: { path: string }[] }) => new Set(w.requests.map((r) => r.path));
    expect(first.cartCeilingNewObjects.amount).toBe(300);
    expect(paths(first.cartCeilingNewObjects).size).toBe(300);
    expect(paths(first.cartCeiling)).toEqual(paths(first.cartCeilingNewObjects));
    expect(paths(first.cartCeilingHot).size).toBe(1);
    // A second new-object run meets new objects, never the first run's.
    expect([...paths(again.cartCeilingNewObjects)].some((p) => paths(first.cartCeilingNewObjects).has(p))).toBe(false);
    for (const w of Object.values(first))
      expect(w.requests.every((r) => r.method === "POST" && r.path.startsWith("/__bench/cart/"))).toBe(true);
  });
});
