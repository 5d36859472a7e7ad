/**
 * The bench's change-batch rows (issue 45): a generated catalog published with `catalog:publish
 * --local`, the production bundle serving that state (Miniflare, production vars: the pointer's
 * 1 s TTL included), then batches of each size applied with `npm run catalog:apply -- --local`,
 * as the operator applies them, one after another on the same catalog. Each batch: 80% price
 * changes (halved, so they move the price sorts), 10% new products, 10% deletions (a batch of 1:
 * one price change; the new products bring a vendor, a tag and option values no product had). Per
 * batch: the seconds until the CLI switched the pointer, the seconds until the changed product's
 * detail, the plain list, a collection, a price-sorted list, a search, the facets and a filter on
 * the new vendor all answer from the new version
 * (polled every 50 ms from the CLI's start), its KV entries and the bytes it wrote. The live
 * version's browse engines are loaded before the first batch, as a serving store's are.
 *
 *   npm exec -- node test/bench/batch-file.ts --products 1000000 [--file F] [--sizes 1,100,1000] [--port-base 8961] [--via api] [--state DIR]
 *
 * `--via api` sends each batch to `POST /operator/catalog/changes` of the runtime instead, whose
 * catalog writer Worker (writer/wrangler.toml's build, beside the storefront on the same state)
 * applies it: no CLI start-up, the batch switched when the answer comes.
 *
 * Without --file the catalog is generated (catalog:generate --seed 1, not timed) into a scratch
 * directory, deleted after with the state. `--state DIR` keeps the catalog file and its published
 * state in DIR instead, and a later run with the same DIR applies its batches to that state without
 * publishing again (a 1M publish takes most of an hour here): each run's batches continue the
 * rounds of the one before, so their new handles and deletions never repeat.
 * Prints one markdown table (test/bench/README.md, "Change batches"); `--record` also keeps the
 * rows in test/bench/last-batch-runs.json (replacing the run of the same size and way in) and
 * writes test/bench/RESULTS.md again with them, where the 5 s target at 1M is judged.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { pickReplica, replicaCount } from "../../src/browse/placement.ts";
import { defineCli } from "../../src/cli/args.ts";
import { readCatalogFile } from "../../src/cli/catalog-stream.ts";
import type { SourceProduct } from "../../src/catalog/schema.ts";
import { CheckedCatalog, type ProductList, productAt } from "../../src/publish/catalog-input.ts";
import { availableParallelism } from "node:os";
import type { BenchReport } from "./report.ts";
import { BATCH_RUNS_JSON, type BatchRun, LAST_RUN_JSON, readBatchRuns, writeResults } from "./results.ts";
import { buildBundle, buildWriterBundle } from "./bundle.ts";
import { benchCatalogFile, cliStatePath, publishWithCli } from "./publish-cli.ts";
import { BENCH_OPERATOR_SECRET, startRuntime } from "./runtime.ts";

const cli = defineCli({
  command: "npm exec -- node test/bench/batch-file.ts",
  summary:
    "Publishes a generated catalog, then applies change batches with catalog:apply and prints the bench's batch rows.",
  options: {
    products: { type: "integer", value: "N", min: 1000, help: "products to generate (default 100000)" },
    file: { type: "string", value: "FILE", help: "publish FILE instead of generating one" },
    sizes: { type: "string", value: "LIST", help: "batch sizes, comma-separated (default 1,100,1000)" },
    "port-base": { type: "integer", value: "PORT", min: 1024, help: "the worker's port (default 8961)" },
    via: {
      type: "string",
      value: "cli|api",
      help: "apply each batch with catalog:apply (cli, the default) or POST /operator/catalog/changes to the runtime, whose catalog writer Worker applies it (api)",
    },
    record: {
      type: "boolean",
      help: "keep the rows in test/bench/last-batch-runs.json and write test/bench/RESULTS.md again with them",
    },
    state: {
      type: "string",
      value: "DIR",
      help: "keep the catalog and its published state in DIR; a run finding them there applies its batches without publishing",
    },
  },
});

interface Row {
  size: number;
  products: number;
  switchS: number;
  visibleS: number;
  entries?: number;
  bytes?: number;
}

/** The batch of `size` for a catalog read as `products`: which products it changes, adds and deletes. */
function batchOf(
  products: ProductList,
  size: number,
  round: number,
): { batch: object; probe: SourceProduct; vendor: string | undefined } {
  const adds = size >= 10 ? Math.floor(size / 10) : 0;
  const deletes = adds;
  const prices = size - adds - deletes;
  const step = Math.floor(products.length / size);
  const at = (i: number) => productAt(products, (i * step + round * 7 + 3) % products.length);
  const upsert: SourceProduct[] = [];
  for (let i = 0; i < prices; i++) {
    const p = structuredClone(at(i));
    for (const v of p.variants) v.price = (Math.max(1, Number(v.price) / 2) + round / 100).toFixed(2);
    upsert.push(p);
  }
  for (let i = 0; i < adds; i++) {
    const p = structuredClone(at(prices + i));
    const n = round * 10_000 + i;
    p.handle = `bench-added-${n}`;
    p.id = `gid://shopify/Product/${990_000_000 + n}`;
    p.title = `Bench added ${p.title}`;
    p.variants.forEach((v, j) => {
      v.id = `${990_000_000_000 + n * 100 + j}`;
    });
    // New facet and option values: a vendor and a tag no product has, its first option's values renamed.
    p.vendor = `Bench Vendor ${n}`;
    p.tags = [...p.tags, `bench-${n}`];
    const option = p.options[0];
    if (option) {
      const renamed = (value: string) => `${value} B${n}`;
      option.values = option.values.map(renamed);
      for (const v of p.variants) {
        const value = v.options[option.name];
        if (value !== undefined) v.options[option.name] = renamed(value);
      }
    }
    upsert.push(p);
  }
  const remove = Array.from({ length: deletes }, (_, i) => at(prices + adds + i).handle);
  return { batch: { upsert, delete: remove }, probe: upsert[0] as SourceProduct, vendor: upsert[prices]?.vendor };
}

/** Runs catalog:apply; resolves with when it switched the pointer and what it said it wrote. */
function apply(
  file: string,
  state: string,
): Promise<{ switchedMs: number; version: string; entries: number; bytes: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, ["src/cli/catalog-apply.ts", "--local", "--persist-to", state, file], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  let switched: number | undefined;
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (text: string) => {
    out += text;
    if (switched === undefined && out.includes("Pointer switched")) switched = performance.now() - started;
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      const said = /Applied the batch as catalog (\S+) \(.*?\): (\d+) KV entries, ([\d.]+) KiB written/.exec(out);
      if (code !== 0 || !said) return reject(new Error(`catalog:apply exited ${code}: ${out}`));
      resolve({
        switchedMs: switched ?? performance.now() - started,
        version: said[1] as string,
        entries: Number(said[2]),
        bytes: Math.round(Number(said[3]) * 1024),
      });
    });
  });
}

/**
 * A batch through the operator endpoint of the runtime (the storefront, and the catalog writer
 * behind its binding): switched when it answers, the batch then live. The answer says no entries
 * or bytes: the writer's log line does (writerCountsOf).
 */
async function post(
  file: string,
  origin: URL,
): Promise<{ switchedMs: number; version: string; entries?: number; bytes?: number }> {
  const started = performance.now();
  const res = await fetch(new URL("/api/v1/operator/catalog/changes", origin), {
    method: "POST",
    headers: { Authorization: `Bearer ${BENCH_OPERATOR_SECRET}`, "Content-Type": "application/json" },
    body: readFileSync(file, "utf8"),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`POST /operator/catalog/changes answered ${res.status}: ${text}`);
  return { switchedMs: performance.now() - started, version: (JSON.parse(text) as { version: string }).version };
}

/** The writer's log line for each batch it applied (src/writer/apply.ts): its KV entries and bytes, by version. */
const writerCounts = new Map<string, { entries: number; bytes: number }>();

function noteWriterLine(message: string): void {
  if (!message.includes("A catalog change batch was applied.")) return;
  try {
    const line = JSON.parse(message) as { version: string; entries: number; bytes: number };
    writerCounts.set(line.version, { entries: line.entries, bytes: line.bytes });
  } catch {}
}

/** The writer's counts for `version`: its log line arrives beside the answer, so wait a little for it. */
async function writerCountsOf(version: string): Promise<{ entries?: number; bytes?: number }> {
  for (let waited = 0; waited < 5_000 && !writerCounts.has(version); waited += 50)
    await new Promise((r) => setTimeout(r, 50));
  return writerCounts.get(version) ?? {};
}

/**
 * `prefix` and a limit, once for each replica of the engines (BROWSE_REPLICAS of the vars the
 * runtime serves with; placement.ts picks one by a request's path and query): every replica of
 * the live version loaded, as a serving store has them, not only those three paths reach.
 */
function replicaPaths(prefix: string): string[] {
  const vars = unstable_getMiniflareWorkerOptions("wrangler.toml").workerOptions.bindings as Record<string, unknown>;
  const replicas = String(vars?.BROWSE_REPLICAS ?? "1");
  const paths = new Map<number, string>();
  for (let limit = 1; limit <= 100 && paths.size < replicaCount(replicas); limit++) {
    const path = `${prefix}${limit}`;
    const replica = pickReplica(path, replicas);
    if (!paths.has(replica)) paths.set(replica, path);
  }
  return [...paths.values()];
}

const { values } = cli.parse();
const via = values.via ?? "cli";
if (via !== "cli" && via !== "api") throw new Error(`--via takes cli or api, not ${via}`);
const kept = values.state;
const work = kept ?? mkdtempSync(join(tmpdir(), "storefront-batch-bench-"));
/** What a kept state holds (--state): its catalog file, the publish's figures, the rounds its batches used. */
interface KeptState {
  file: string;
  figures: { products: number };
  rounds: number;
}
const keptFile = join(work, "bench-state.json");
try {
  mkdirSync(work, { recursive: true });
  const state = join(work, "state");
  const found = kept && existsSync(keptFile) ? (JSON.parse(readFileSync(keptFile, "utf8")) as KeptState) : undefined;
  if (found) process.stderr.write(`[bench] reusing the ${found.figures.products} products published in ${state}\n`);
  const file = found?.file ?? benchCatalogFile(values.file, values.products ?? 100_000, work);
  const figures = found?.figures ?? (await publishWithCli(file, state)).figures;
  const firstRound = found?.rounds ?? 0;
  const keep = (rounds: number) => {
    if (kept) writeFileSync(keptFile, JSON.stringify({ file, figures: { products: figures.products }, rounds }));
  };
  keep(firstRound);
  const read = await readCatalogFile(file);
  const input = read.input as CheckedCatalog | { products: ProductList };
  const products = input instanceof CheckedCatalog ? input.catalog.products : input.products;
  const runtime = await startRuntime({
    bundle: await buildBundle(join(work, "bundle")),
    port: values["port-base"] ?? 8961,
    cacheAPI: true,
    persistPath: cliStatePath(state),
    ...(via === "api" ? { writer: await buildWriterBundle(join(work, "writer-bundle")), onLog: noteWriterLine } : {}),
  });
  const rows: Row[] = [];
  try {
    // A live store's browse engines are loaded: the live version's are loaded here first (a 1M
    // index's cold start is seconds, and it is no batch's cost), so a batch's seconds to visible
    // are its own (its layer's engines are new each time, and count).
    const warm = performance.now();
    for (const path of [
      ...replicaPaths("/api/v1/products?sort=price_asc&limit="),
      "/api/v1/products?q=tee&limit=5",
      "/api/v1/products/facets",
    ]) {
      const res = await fetch(new URL(path, runtime.url));
      if (res.status !== 200) throw new Error(`warming ${path} answered ${res.status}`);
    }
    process.stderr.write(
      `[bench] browse engines of the live version loaded in ${((performance.now() - warm) / 1000).toFixed(1)} s\n`,
    );
    const first = (await (await fetch(new URL("/api/v1/collections?limit=1", runtime.url))).json()) as {
      data: { handle: string }[];
    };
    const collection = first.data[0]?.handle ?? "none";
    const sizes = (values.sizes ?? "1,100,1000").split(",").map(Number);
    for (const [i, size] of sizes.entries()) {
      const round = firstRound + i + 1;
      keep(round);
      const { batch, probe, vendor } = batchOf(products, size, round);
      const batchFile = join(work, `batch-${size}.json`);
      writeFileSync(batchFile, JSON.stringify(batch));
      const started = performance.now();
      const applied = via === "api" ? post(batchFile, runtime.url) : apply(batchFile, state);
      const word = probe.title.split(" ")[0] ?? "tee";
      const paths = [
        `/api/v1/products/${probe.handle}`,
        "/api/v1/products?sort=price_asc&limit=5",
        `/api/v1/products?q=${encodeURIComponent(word)}&limit=5`,
        "/api/v1/products?limit=5",
        `/api/v1/collections/${collection}?limit=5`,
        "/api/v1/products/facets",
        ...(vendor ? [`/api/v1/products?vendor=${encodeURIComponent(vendor)}&limit=5`] : []),
      ];
      const result = await applied;
      // Visible: every path answers from the batch's version (x-catalog-version).
      for (;;) {
        const versions = await Promise.all(
          paths.map(async (p) => (await fetch(new URL(p, runtime.url))).headers.get("x-catalog-version")),
        );
        if (versions.every((v) => v === result.version)) break;
        if (performance.now() - started > 600_000) throw new Error(`batch ${size} never visible: ${versions}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      // The endpoint's answer says what changed, not what it cost: the writer's log line does.
      if (via === "api") Object.assign(result, await writerCountsOf(result.version));
      rows.push({
        size,
        products: figures.products,
        switchS: result.switchedMs / 1000,
        visibleS: (performance.now() - started) / 1000,
        ...(result.entries === undefined ? {} : { entries: result.entries }),
        ...(result.bytes === undefined ? {} : { bytes: result.bytes }),
      });
      process.stderr.write(`[bench] batch of ${size}: ${JSON.stringify(rows.at(-1))}\n`);
    }
  } finally {
    await runtime.dispose();
    read.close();
  }
  const k = `${Math.round(figures.products / 1000)}k`;
  const lines = [
    "| change batch | catalog | seconds to switch | seconds to visible | KV entries | MiB written |",
    "| :----------- | ------: | ----------------: | -----------------: | ---------: | ----------: |",
    ...rows.map(
      (r) =>
        `| ${r.size} product${r.size === 1 ? "" : "s"}${via === "api" ? " (API)" : ""} | ${k} | ${r.switchS.toFixed(1)} | ${r.visibleS.toFixed(1)} | ${r.entries ?? ""} | ${r.bytes === undefined ? "" : (r.bytes / 2 ** 20).toFixed(1)} |`,
    ),
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  if (values.record) {
    const run: BatchRun = {
      date: new Date().toISOString(),
      machine: { cpus: availableParallelism(), node: process.version, platform: `${process.platform}-${process.arch}` },
      command: `npm exec -- node test/bench/batch-file.ts ${process.argv.slice(2).join(" ")}`,
      products: figures.products,
      via,
      rows: rows.map(({ products: _, ...r }) => r),
    };
    const runs = (await readBatchRuns()).filter((r) => r.products !== run.products || r.via !== run.via);
    writeFileSync(BATCH_RUNS_JSON, `${JSON.stringify([...runs, run], null, 2)}\n`);
    await writeResults(JSON.parse(readFileSync(LAST_RUN_JSON, "utf8")) as BenchReport);
    process.stderr.write(`[bench] recorded ${BATCH_RUNS_JSON} and test/bench/RESULTS.md\n`);
  }
} finally {
  if (!kept) rmSync(work, { recursive: true, force: true });
}
