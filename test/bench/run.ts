/**
 * `npm run bench [-- --quick] [-- --json FILE] [-- --record]`: the production bundle in workerd
 * (Miniflare's API, never `wrangler dev`), driven by autocannon over loopback, against the same
 * worker's cheapest route as the ceiling. `--record` (a full run) writes test/bench/last-full-run.json
 * and test/bench/RESULTS.md from it. test/bench/README.md says what each figure means.
 */
import { statSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_SHARD_PRODUCTS, shardCount } from "../../src/browse/shards.ts";
import { defineCli, UsageError } from "../../src/cli/args.ts";
import { readCatalogFile } from "../../src/cli/catalog-stream.ts";
import { CheckedCatalog, type PublishCatalog } from "../../src/publish/catalog-input.ts";
import { buildBundle, withoutMemos } from "./bundle.ts";
import { type PublishFigures, readSeedCatalog } from "./fixture.ts";
import { largeCatalog } from "./large-catalog.ts";
import { type CliPublish, cliStatePath, publishWithCli } from "./publish-cli.ts";
import { type BenchReport, evaluateTargets, NO_MEMOS, renderReport, type Scenario, scaleRatios } from "./report.ts";
import { LAST_RUN_JSON, RESULTS_MD, writeResults } from "./results.ts";
import { BENCH_RATE_LIMIT, PeakSampler } from "./runtime.ts";
import { countScenario, log, type RunSettings, runScenario } from "./scenario.ts";

const cli = defineCli({
  command: "npm run bench",
  summary: `The benchmark: the production bundle in workerd (Miniflare), driven by autocannon over loopback,
on the seed catalog and a large generated one (or a catalog file: --catalog-file). test/bench/README.md
says what each figure means. A full run takes several minutes on both cores: run it alone.`,
  options: {
    quick: { type: "boolean", help: "a short run (0.8 s per workload, a 10,000-product large catalog)" },
    json: { type: "string", value: "FILE", help: "also write the report as JSON to FILE" },
    record: { type: "boolean", help: "a full run: write test/bench/last-full-run.json and test/bench/RESULTS.md" },
    products: {
      type: "integer",
      value: "N",
      min: 0,
      help: "the large catalog's size (default 100000, --quick 10000; 0 skips it)",
    },
    "catalog-file": {
      type: "string",
      value: "FILE",
      help: "the large catalog is FILE (catalog:generate), published by catalog:publish; not with --products",
    },
    only: { type: "string", value: "A,B", help: "measure only the workloads whose names contain A or B" },
    "shard-products": {
      type: "integer",
      value: "N",
      min: 1,
      help: "publish with at most N products per browse engine (default 100000: shards past it; with --catalog-file, passed to catalog:publish)",
    },
    seconds: { type: "string", value: "S", help: "seconds per workload (default 5, --quick 0.8)" },
    "edge-cache": {
      type: "string",
      value: "MODE",
      choices: ["on", "off", "both"],
      default: "both",
      help: "the Workers Cache API on, off or both",
    },
    // Two runs on one machine need their own ports (the seed's, and the large catalog's next to it).
    "port-base": {
      type: "integer",
      value: "PORT",
      min: 1024,
      help: "the seed runtime's port; the large catalog's is the next (default 8820)",
    },
  },
  notes: `A million products, from a file (test/bench/README.md, "1M in the bench"):
  npm run catalog:generate -- --products 1000000 --seed 1 --out /tmp/c1m.json
  npm run bench -- --catalog-file /tmp/c1m.json --only "list first page,browse" --edge-cache off --port-base 8960`,
});

let parsed: ReturnType<typeof cli.parse>;
try {
  parsed = cli.parse();
  if (parsed.values.seconds !== undefined && !(Number(parsed.values.seconds) > 0))
    throw new UsageError(`--seconds must be a number above 0; got ${JSON.stringify(parsed.values.seconds)}.`);
  if (parsed.values.record && parsed.values.quick) throw new UsageError("--record keeps full runs only; drop --quick.");
  if (parsed.values.products !== undefined && parsed.values["catalog-file"] !== undefined)
    throw new UsageError(
      "Give --products N or --catalog-file FILE, not both: the file says how many products it holds.",
    );
  const file = parsed.values["catalog-file"];
  if (file !== undefined && !statSync(file, { throwIfNoEntry: false })?.isFile())
    throw new UsageError(`--catalog-file ${file}: no such file.`);
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  process.stderr.write(`${error.message} Run ${cli.helpCommand} for usage.\n`);
  process.exit(2);
}
const args = parsed.values;

const quick = args.quick ?? false;
const settings: RunSettings = {
  connections: 10,
  durationS: args.seconds ? Number(args.seconds) : quick ? 0.8 : 5,
  warmupS: quick ? 0.3 : 1,
  cartTokens: quick ? 200 : 1000,
  countedRequests: quick ? 5 : 20,
  stockChanges: quick ? 10 : 100,
  // `--only A,B`: measure just the workloads whose names contain A or B (to iterate on one).
  selected: (workload) => !args.only || args.only.split(",").some((part) => workload.name.includes(part)),
};
const catalogFile = args["catalog-file"];
const portBase = args["port-base"] ?? 8820;
const PORTS = { seed: portBase, large: portBase + 1 };

async function main(): Promise<void> {
  const started = performance.now();
  const benchRss = new PeakSampler(() => process.memoryUsage().rss / 2 ** 20).start();
  const work = await mkdtemp(join(tmpdir(), "storefront-bench-"));
  // --catalog-file: published first, by catalog:publish into its own persist dir (the runtime
  // serves it from there), then read a product at a time for the workloads (its scratch file
  // deleted by close()).
  let fromFile: { published: CliPublish; persistPath: string; close: () => void } | undefined;
  try {
    log("building the production bundle (wrangler deploy --dry-run)");
    const bundle = await buildBundle(join(work, "bundle"));
    const seed = await readSeedCatalog();
    let large: PublishCatalog | undefined;
    let generateStarted = performance.now();
    if (catalogFile !== undefined) {
      const persistTo = join(work, "state-file");
      log(`publishing ${catalogFile} with catalog:publish --local --persist-to ${persistTo}`);
      const published = await publishWithCli(catalogFile, persistTo, {
        shardProducts: args["shard-products"],
        say: (line) => log(`    ${line}`),
      });
      log(`reading ${catalogFile} for the workloads`);
      generateStarted = performance.now();
      const read = await readCatalogFile(catalogFile);
      fromFile = { published, persistPath: cliStatePath(persistTo), close: read.close };
      if (!(read.input instanceof CheckedCatalog)) throw new Error(`${catalogFile} could not be read as a catalog`);
      large = read.input.catalog;
    } else {
      const size = Number(args.products ?? (quick ? 10_000 : 100_000));
      log(`generating a ${size}-product catalog`);
      large = size > 0 ? largeCatalog(size) : undefined;
    }
    const generateMs = performance.now() - generateStarted;
    const largeSize = large?.products.length ?? 0;
    const shards = shardCount(largeSize, args["shard-products"] ?? DEFAULT_SHARD_PRODUCTS);
    const largeLabel =
      largeSize > 0 ? `${Math.round(largeSize / 1000)}k${shards > 1 ? ` in ${shards} shards` : ""}` : "large (not run)";
    let startToFirstResponseMs = Number.NaN;
    const publish: Record<string, PublishFigures> = {};
    const scenarios: Scenario[] = [];
    const counts: BenchReport["counts"] = [];
    // Each catalog is published once into its own persisted state, then served twice: with the
    // edge cache (hot reads) and without it (every read goes to KV, the cost of a cache miss).
    const catalogs: [string, PublishCatalog, number][] = [["seed", seed, PORTS.seed]];
    if (large) catalogs.push([largeLabel, large, PORTS.large]);
    const cacheModes = args["edge-cache"] === "on" ? [true] : args["edge-cache"] === "off" ? [false] : [true, false];
    for (const [label, catalog, port] of catalogs) {
      const cliPublished = catalog === large ? fromFile : undefined;
      const persistPath = cliPublished?.persistPath ?? join(work, `state-${label}`);
      for (const edgeCache of cacheModes) {
        scenarios.push(
          await runScenario(
            bundle,
            {
              label,
              catalog,
              port,
              persistPath,
              edgeCache,
              publish: edgeCache === cacheModes[0] && (cliPublished?.published ?? true),
              cart: label === "seed" && edgeCache,
              stock: label !== "seed" && edgeCache,
              shardProducts: args["shard-products"],
            },
            settings,
            (ms) => {
              if (Number.isNaN(startToFirstResponseMs)) startToFirstResponseMs = ms;
            },
            (figures) => {
              publish[label] = figures;
            },
          ),
        );
      }
      if (catalog === large && cacheModes.includes(false)) {
        // Every read a true miss: no edge cache and no in-isolate memos, so a browse answer costs
        // its D1 queries every time. The browse true-miss targets are judged here.
        const cold = await withoutMemos(bundle, await mkdtemp(join(work, "no-memos-")));
        scenarios.push(
          await runScenario(
            cold,
            { label: `${label}${NO_MEMOS}`, catalog, port, persistPath, edgeCache: false, publish: false, cart: false },
            settings,
            () => {},
            () => {},
          ),
        );
      }
      log(`${label} catalog: counting KV reads and cache calls per request`);
      counts.push(
        ...(await countScenario(bundle, { label, catalog, port, persistPath, cart: label === "seed" }, settings)),
      );
    }
    const partial: Omit<BenchReport, "targets"> = {
      mode: quick ? "quick" : "full",
      date: new Date().toISOString(),
      machine: { cpus: availableParallelism(), node: process.version, platform: `${process.platform}-${process.arch}` },
      settings: {
        connections: settings.connections,
        durationS: settings.durationS,
        warmupS: settings.warmupS,
        cartTokens: settings.cartTokens,
        rateLimitPerMinute: BENCH_RATE_LIMIT,
      },
      bundle: { rawBytes: bundle.rawBytes, gzipBytes: bundle.gzipBytes },
      startToFirstResponseMs,
      publish,
      generateMs,
      ...(catalogFile !== undefined ? { catalogFile } : {}),
      benchPeakRssMiB: benchRss.stop() ?? Number.NaN,
      scenarios,
      counts,
      scale: scaleRatios(scenarios, "seed", largeLabel),
    };
    const report: BenchReport = { ...partial, targets: evaluateTargets(partial, largeLabel) };
    process.stdout.write(`${renderReport(report)}\n`);
    if (args.json) await writeFile(args.json, `${JSON.stringify(report, null, 2)}\n`);
    if (args.record) {
      if (quick) throw new Error("--record keeps full runs only; drop --quick.");
      await writeFile(LAST_RUN_JSON, `${JSON.stringify(report, null, 2)}\n`);
      await writeResults(report);
      log(`recorded ${LAST_RUN_JSON} and ${RESULTS_MD}`);
    }
    log(`done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    fromFile?.close();
    await rm(work, { recursive: true, force: true });
  }
}

await main();
