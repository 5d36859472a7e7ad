/**
 * `npm run bench [-- --quick] [-- --json FILE]`: the production bundle in workerd (Miniflare's
 * API, never `wrangler dev`), driven by autocannon over loopback, against the same worker's
 * cheapest route as the ceiling. See the README's performance section for what each figure means.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { SourceCatalog } from "../../src/catalog/schema.ts";
import { buildBundle } from "./bundle.ts";
import { type Counts, countWorkloads } from "./counting.ts";
import { issueTokens, publishInto, readSeedCatalog, type PublishFigures } from "./fixture.ts";
import { largeCatalog } from "./large-catalog.ts";
import { type LoadOptions, probe, runLoad, type Workload } from "./load.ts";
import { type BenchReport, evaluateTargets, renderReport, type Scenario, scaleRatios, type WorkloadFigures } from "./report.ts";
import { BENCH_RATE_LIMIT, startRuntime } from "./runtime.ts";
import { cartWorkloads, catalogWorkloads, ceilingWorkload, withEtags } from "./workloads.ts";

const { values: args } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    json: { type: "string" },
    products: { type: "string" },
    only: { type: "string" },
    seconds: { type: "string" },
    "edge-cache": { type: "string", default: "both" },
  },
});

const quick = args.quick ?? false;
const settings = {
  connections: 10,
  durationS: args.seconds ? Number(args.seconds) : quick ? 0.8 : 5,
  warmupS: quick ? 0.3 : 1,
  cartTokens: quick ? 200 : 1000,
  rateLimitPerMinute: BENCH_RATE_LIMIT,
};
const largeSize = Number(args.products ?? (quick ? 10_000 : 100_000));
const PORTS = { seed: 8820, large: 8821 };

function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

/** `--only A,B`: measure just the workloads whose names contain A or B (for iterating on one). */
function selected(workload: Workload): boolean {
  return !args.only || args.only.split(",").some((part) => workload.name.includes(part));
}

async function measure(workload: Workload, options: LoadOptions): Promise<WorkloadFigures> {
  const reason = await probe(workload, options.url);
  if (reason) {
    log(`  ${workload.name}: not measured (${reason})`);
    return { name: workload.name, skipped: reason };
  }
  if (!workload.amount) await runLoad(workload, { ...options, durationS: settings.warmupS });
  const result = await runLoad(workload, options);
  log(`  ${workload.name}: ${result.rps.toFixed(0)} req/s, p50 ${result.p50Ms.toFixed(2)} ms, ${result.errors} errors`);
  return { ...result, ratioToCeiling: Number.NaN };
}

interface ScenarioInput {
  label: string;
  catalog: SourceCatalog;
  port: number;
  persistPath: string;
  edgeCache: boolean;
  publish: boolean;
  cart: boolean;
}

/** Requests per workload in the counting pass (sequential, so cheap at any machine load). */
const COUNTED_REQUESTS = quick ? 5 : 20;

/**
 * The counting pass over a catalog's persisted state: per-request KV reads, KV bytes and Cache
 * API calls of every workload, with and without the edge cache (see counting.ts).
 */
async function countScenario(
  bundle: Awaited<ReturnType<typeof buildBundle>>,
  label: string,
  catalog: SourceCatalog,
  port: number,
  persistPath: string,
  cart: boolean,
): Promise<{ catalog: string; edgeCache: boolean; counts: Counts[] }[]> {
  const out: { catalog: string; edgeCache: boolean; counts: Counts[] }[] = [];
  for (const edgeCache of [true, false]) {
    const runtime = await startRuntime({ bundle, port, cacheAPI: edgeCache, persistPath, counting: true });
    try {
      const workloads: Workload[] = [];
      for (const w of catalogWorkloads(catalog).filter(selected)) {
        const ready = w.name === "304 revalidation" ? await withEtags(w, runtime.url) : w;
        if (typeof ready !== "string") workloads.push(ready);
      }
      if (cart && edgeCache) {
        const tokens = await issueTokens(runtime.mf, COUNTED_REQUESTS + 1);
        workloads.push(...cartWorkloads(catalog, tokens.slice(1), tokens[0]!).filter(selected));
      }
      out.push({ catalog: label, edgeCache, counts: await countWorkloads(runtime.url, workloads, COUNTED_REQUESTS, true) });
    } finally {
      await runtime.dispose();
    }
  }
  return out;
}

/** One runtime: start, (publish), ceiling, workloads, dispose. */
async function runScenario(
  bundle: Awaited<ReturnType<typeof buildBundle>>,
  input: ScenarioInput,
  onStarted: (ms: number) => void,
  onPublished: (figures: PublishFigures) => void,
): Promise<Scenario> {
  log(`${input.label} catalog (${input.catalog.products.length} products), edge cache ${input.edgeCache ? "on" : "off"}`);
  const runtime = await startRuntime({ bundle, port: input.port, cacheAPI: input.edgeCache, persistPath: input.persistPath });
  onStarted(runtime.startToFirstResponseMs);
  try {
    if (input.publish) {
      log(`  publishing ${input.catalog.products.length} products`);
      const figures = await publishInto(runtime.mf, input.catalog, runtime.workerdPid);
      log(`  published ${figures.entries} KV entries in ${(figures.ms / 1000).toFixed(1)} s`);
      onPublished(figures);
    }
    const options: LoadOptions = { url: runtime.url, connections: settings.connections, durationS: settings.durationS, workerdPid: runtime.workerdPid };
    await runLoad(ceilingWorkload, { ...options, durationS: settings.warmupS });
    const ceiling = await runLoad(ceilingWorkload, options);
    log(`  ceiling: ${ceiling.rps.toFixed(0)} req/s, p50 ${ceiling.p50Ms.toFixed(2)} ms`);
    const workloads: WorkloadFigures[] = [];
    for (const w of catalogWorkloads(input.catalog).filter(selected)) {
      const ready = w.name === "304 revalidation" ? await withEtags(w, runtime.url) : w;
      workloads.push(typeof ready === "string" ? { name: w.name, skipped: ready } : await measure(ready, options));
    }
    if (input.cart && cartWorkloads(input.catalog, ["t"], "t").some(selected)) {
      log(`  issuing ${settings.cartTokens + 1} tokens`);
      const tokens = await issueTokens(runtime.mf, settings.cartTokens + 1);
      const [hot, ...distinct] = tokens;
      for (const w of cartWorkloads(input.catalog, distinct, hot!).filter(selected)) workloads.push(await measure(w, options));
    }
    // The ceiling again at the end: the machine is shared, so the ratio uses the mean of both.
    const after = await runLoad(ceilingWorkload, options);
    log(`  ceiling again: ${after.rps.toFixed(0)} req/s`);
    const ceilingRps = (ceiling.rps + after.rps) / 2;
    for (const w of workloads) if ("ratioToCeiling" in w) w.ratioToCeiling = w.rps / ceilingRps;
    return {
      catalog: input.label,
      products: input.catalog.products.length,
      edgeCache: input.edgeCache,
      ceiling: { ...ceiling, rps: ceilingRps },
      ceilingRuns: [ceiling.rps, after.rps],
      workloads,
    };
  } finally {
    await runtime.dispose();
  }
}

async function main(): Promise<void> {
  const started = performance.now();
  const work = await mkdtemp(join(tmpdir(), "storefront-bench-"));
  try {
    log("building the production bundle (wrangler deploy --dry-run)");
    const bundle = await buildBundle(join(work, "bundle"));
    const seed = await readSeedCatalog();
    log(`generating a ${largeSize}-product catalog`);
    const generateStarted = performance.now();
    const large = largeSize > 0 ? largeCatalog(largeSize) : undefined;
    const generateMs = performance.now() - generateStarted;
    const largeLabel = `${Math.round(largeSize / 1000)}k`;
    let startToFirstResponseMs = Number.NaN;
    const publish: Record<string, PublishFigures> = {};
    const scenarios: Scenario[] = [];
    const counts: BenchReport["counts"] = [];
    // Each catalog is published once into its own persisted state, then served twice: with the
    // edge cache (hot reads) and without it (every read goes to KV, the cost of a cache miss).
    const catalogs: [string, SourceCatalog, number][] = [["seed", seed, PORTS.seed]];
    if (large) catalogs.push([largeLabel, large, PORTS.large]);
    const cacheModes = args["edge-cache"] === "on" ? [true] : args["edge-cache"] === "off" ? [false] : [true, false];
    for (const [label, catalog, port] of catalogs) {
      const persistPath = join(work, `state-${label}`);
      for (const edgeCache of cacheModes) {
        scenarios.push(
          await runScenario(
            bundle,
            { label, catalog, port, persistPath, edgeCache, publish: edgeCache === cacheModes[0], cart: label === "seed" && edgeCache },
            (ms) => {
              if (Number.isNaN(startToFirstResponseMs)) startToFirstResponseMs = ms;
            },
            (figures) => {
              publish[label] = figures;
            },
          ),
        );
      }
      log(`${label} catalog: counting KV reads and cache calls per request`);
      counts.push(...(await countScenario(bundle, label, catalog, port, persistPath, label === "seed")));
    }
    const partial: Omit<BenchReport, "targets"> = {
      mode: quick ? "quick" : "full",
      date: new Date().toISOString(),
      machine: { cpus: availableParallelism(), node: process.version, platform: `${process.platform}-${process.arch}` },
      settings,
      bundle: { rawBytes: bundle.rawBytes, gzipBytes: bundle.gzipBytes },
      startToFirstResponseMs,
      publish,
      generateMs,
      scenarios,
      counts,
      scale: scaleRatios(scenarios, "seed", largeLabel),
    };
    const report: BenchReport = { ...partial, targets: evaluateTargets(partial, largeLabel) };
    process.stdout.write(`${renderReport(report)}\n`);
    if (args.json) await writeFile(args.json, `${JSON.stringify(report, null, 2)}\n`);
    log(`done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await main();
