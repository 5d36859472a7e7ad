/**
 * `node test/bench/profile.ts [--workload NAME] [--products N] [--edge-cache off] [--no-memos] [--seconds S] [--out FILE]`
 * (`--no-memos`: the bundle without its in-isolate memos, as the bench's true-miss scenario runs it)
 * (`--out`: the raw .cpuprofile, and the unminified bundle its line numbers point into as FILE.index.js):
 * a CPU profile of the worker's own isolate while one benchmark workload runs, taken through
 * workerd's DevTools inspector (Miniflare's `inspectorPort`), summarised as self time and total
 * (inclusive) time per function, plus how much of workerd's CPU the worker's JavaScript accounts for.
 * `--cpu-prof` does not exist in workerd; this is the profile the benchmark's findings cite.
 *
 * The worker's Durable Objects (the Cart, and the cart ceiling's `BenchCeiling`) run in the
 * worker's own isolate, so their JavaScript is in the same profile (`Cart.addLine`, `exec`, …).
 * Cart workloads and their ceilings (`cart ceiling: …`) are prepared as the bench prepares them:
 * the existing-object and existing-cart runs first create their objects, and the new-object and
 * new-cart runs warm the isolate up on other new objects, then profile writes to fresh ones.
 * `--summarise FILE --requests N` prints the summary of a profile saved with `--out` again.
 * `--ratio` (cart workloads only) profiles nothing: it times the workload against its cart
 * ceiling, without the inspector, on the real (minified) build, and prints the ratio (for existing
 * objects the median of five runs, each against the ceiling runs either side of it; for new ones
 * one run between two ceilings).
 * `--carts N` (default 500; the bench uses 1,000): how many carts and ceiling objects cart runs cycle over.
 * `--hold` profiles nothing either: it prints workerd's pid, runs the workload once and prints its
 * req/s and CPU per request, so a native profiler can attach from outside (`perf record -g -p PID`;
 * `MINIFLARE_WORKERD_V8_FLAGS="--perf-basic-prof"` names the JavaScript frames); `--idle S` waits
 * S seconds before the run (profiled or held). `--tracked` (checkout workloads): each cart also gets a unit of a
 * tracked variant, so its checkout holds in two shards, as the bench's carts do after its tracked
 * add. `--top N`: how many functions the summary lists (25).
 *
 * The checkout workloads (`--workload checkout-create`, `checkout-stripe`, `checkout-complete`, or
 * their bench names) are prepared as the bench runs them: `--carts` carts filled by the new-carts
 * adds, and as many others the isolate warms up on first (their creates, or their checkouts
 * opened and completed). checkout-create then profiles each cart's first checkout, as the bench's
 * create row is; checkout-stripe each cart's second (a plain one opened first, as the bench's
 * Stripe row follows the create row), made at the Stripe stand-in (test/stripe/stand-in.ts, in this
 * process, so the profile and workerd's CPU leave its time out); checkout-complete completes
 * checkouts opened for it, one order each.
 */
import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildBundle, withoutMemos } from "./bundle.ts";
import { issueTokens, publishInto, readSeedCatalog } from "./fixture.ts";
import { inspector } from "./inspector.ts";
import { largeCatalog } from "./large-catalog.ts";
import { type LoadOptions, type LoadResult, runLoad, warmUp, type Workload } from "./load.ts";
import { CART_CEILING_FIELDS, type CartCeilingField, STOCK_ROWS } from "./report.ts";
import { BENCH_OPERATOR_SECRET, processCpuMs, startRuntime } from "./runtime.ts";
import {
  bareWorkloads,
  CHECKOUT_WORKLOADS,
  cartCeilingWorkloads,
  cartWorkloads,
  catalogWorkloads,
  ceilingWorkload,
  checkoutCompleteWorkload,
  checkoutCreateWorkload,
  checkoutStripeWorkload,
  issueCartWorkload,
  openCheckouts,
  stockTrackedAdd,
  trackedAddWorkload,
  withEtags,
} from "./workloads.ts";
import { applyD1Migrations } from "../../src/cli/d1-migrations.ts";
import { StripeStandIn } from "../stripe/stand-in.ts";

const { values: args } = parseArgs({
  options: {
    workload: { type: "string", default: "product detail" },
    products: { type: "string" },
    "edge-cache": { type: "string", default: "on" },
    seconds: { type: "string", default: "4" },
    out: { type: "string" },
    ratio: { type: "boolean", default: false },
    summarise: { type: "string" },
    requests: { type: "string" },
    "no-memos": { type: "boolean", default: false },
    carts: { type: "string", default: "500" },
    hold: { type: "boolean", default: false },
    idle: { type: "string", default: "0" },
    tracked: { type: "boolean", default: false },
    top: { type: "string", default: "25" },
  },
});

const INSPECTOR_PORT = 8829;

/** Short names for the checkout workloads (`--workload checkout-create`). */
const CHECKOUT_ALIASES: Record<string, string> = {
  "checkout-create": CHECKOUT_WORKLOADS.create,
  "checkout-stripe": CHECKOUT_WORKLOADS.stripe,
  "checkout-complete": CHECKOUT_WORKLOADS.complete,
};
const workloadName = CHECKOUT_ALIASES[args.workload] ?? args.workload;
const checkoutRun = Object.values(CHECKOUT_WORKLOADS).includes(workloadName as never);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

function frameName(frame: ProfileNode["callFrame"]): string {
  return `${frame.functionName || "(anonymous)"} ${frame.url ? `${frame.url.split("/").at(-1)}:${frame.lineNumber + 1}` : ""}`.trim();
}

/**
 * Total time per function: its own and everything it called, each sample counted once per
 * function even under recursion (a frame whose ancestor is the same function adds nothing).
 */
function inclusive(profile: CpuProfile, self: ReadonlyMap<number, number>): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
  const totals = new Map<string, number>();
  for (const [id, us] of self) {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const name = frameName(byId.get(at)!.callFrame);
      if (seen.has(name)) continue;
      seen.add(name);
      totals.set(name, (totals.get(name) ?? 0) + us);
    }
  }
  return totals;
}

/** The bundle's source regions: esbuild's unminified output opens each module with `// <path>`. */
function sourceRegions(bundleText: string): { line: number; source: string }[] {
  const regions: { line: number; source: string }[] = [];
  bundleText.split("\n").forEach((text, i) => {
    const match = /^\/\/ ((?:src|node_modules)\/\S+)$/.exec(text);
    if (match) regions.push({ line: i, source: match[1]!.replace(/^node_modules\/([^/]+)\/.*$/, "$1 (node_modules)") });
  });
  return regions;
}

/**
 * Self time per source file of the bundle (per module region), where a native frame (an SQL
 * `exec`, `Response`, an RPC, a binding call) counts for the nearest bundle frame that called it:
 * what each module costs, whatever it asks the runtime to do. Time with no bundle frame on its
 * stack (the runtime's own, the bench entry, idle) is left out.
 */
function bySource(
  profile: CpuProfile,
  self: ReadonlyMap<number, number>,
  regions: { line: number; source: string }[],
): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
  const sourceOf = (line: number): string | undefined => {
    let found: string | undefined;
    for (const r of regions) {
      if (r.line > line) break;
      found = r.source;
    }
    return found;
  };
  const totals = new Map<string, number>();
  for (const [id, us] of self) {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      if (!frame.url.endsWith("/index.js") && frame.url !== "index.js") continue;
      const source = sourceOf(frame.lineNumber);
      if (source) totals.set(source, (totals.get(source) ?? 0) + us);
      break;
    }
  }
  return totals;
}

function summarise(profile: CpuProfile, requests: number, bundleText: string): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const totalUs = profile.endTime - profile.startTime;
  const byFunction = new Map<string, number>();
  let idle = 0;
  for (const [id, us] of self) {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === "(idle)") idle += us;
    const name = frameName(frame);
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
  }
  const busy = totalUs - idle;
  const lines = [
    `profiled ${(totalUs / 1e6).toFixed(1)} s, ${requests} requests: worker isolate busy ${(busy / 1000).toFixed(0)} ms = ${(busy / requests).toFixed(0)} µs/request`,
    "top self time (µs per request):",
  ];
  const top = [...byFunction]
    .filter(([name]) => !name.startsWith("(idle)"))
    .sort((a, b) => b[1] - a[1])
    .slice(0, Number(args.top));
  for (const [name, us] of top) lines.push(`  ${(us / requests).toFixed(1).padStart(8)}  ${name}`);
  lines.push("top total time, self and callees (µs per request):");
  const skip = new Set(["(root)", "(program)", "(idle)", "(garbage collector)"]);
  const totals = [...inclusive(profile, self)]
    .filter(([name]) => !skip.has(name))
    .sort((a, b) => b[1] - a[1])
    .slice(0, 40);
  for (const [name, us] of totals) lines.push(`  ${(us / requests).toFixed(1).padStart(8)}  ${name}`);
  lines.push("self time by source file, native calls counted for their caller (µs per request):");
  const sources = [...bySource(profile, self, sourceRegions(bundleText))].sort((a, b) => b[1] - a[1]).slice(0, 30);
  for (const [name, us] of sources) lines.push(`  ${(us / requests).toFixed(1).padStart(8)}  ${name}`);
  return lines.join("\n");
}

/**
 * `--ratio`: no profile and no inspector; the cart workload between two runs of its own cart
 * ceiling (as the bench measures it, a short version of `npm run bench -- --only`), printing
 * req/s, workerd CPU per request and the ratio. For checking one change without a full bench.
 */
async function ratio(
  workload: Workload,
  options: LoadOptions,
  rounds: { ceilings: Record<CartCeilingField, Workload>; again: Record<CartCeilingField, Workload> },
): Promise<void> {
  // The tracked add is judged against the existing-object ceiling, as the distinct-carts adds.
  const name = workload.name === STOCK_ROWS.trackedAdd ? "add to cart, distinct carts" : workload.name;
  const pair = CART_CEILING_FIELDS.find((c) => c.workload === name);
  if (!pair) throw new Error("--ratio takes a cart workload (add to cart, …)");
  const timed = async (w: Workload): Promise<LoadResult> => {
    await warmUp(w, options, 1);
    const result = await runLoad(w, options);
    const cpu =
      result.workerdCpuUsPerRequest === undefined
        ? ""
        : `, workerd CPU ${result.workerdCpuUsPerRequest.toFixed(0)} µs/request`;
    process.stdout.write(`${w.name}: ${result.rps.toFixed(0)} req/s${cpu}, ${result.errors} errors\n`);
    return result;
  };
  if (workload.amount) {
    // New carts and new objects: each run needs objects never written, so one round.
    const before = await timed(rounds.ceilings[pair.field]);
    const cart = await timed(workload);
    const after = await timed(rounds.again[pair.field]);
    const ceiling = (before.rps + after.rps) / 2;
    process.stdout.write(
      `${workload.name}: ${(cart.rps / ceiling).toFixed(2)} of its cart ceiling (${pair.ceiling}, mean of ${before.rps.toFixed(0)} and ${after.rps.toFixed(0)} req/s)\n`,
    );
    return;
  }
  // Existing objects and carts: ceiling and workload alternate five times; each cart run is
  // compared with the mean of the ceiling runs either side of it (as the bench does), and the
  // median of the five ratios is printed, since other work on a shared machine can halve a run.
  const ceilingRps: number[] = [];
  const cartRps: number[] = [];
  for (let round = 0; round < 5; round += 1) {
    ceilingRps.push((await timed(rounds.ceilings[pair.field])).rps);
    cartRps.push((await timed(workload)).rps);
  }
  ceilingRps.push((await timed(rounds.again[pair.field])).rps);
  const ratios = cartRps.map((rps, i) => rps / ((ceilingRps[i]! + ceilingRps[i + 1]!) / 2)).sort((a, b) => a - b);
  process.stdout.write(
    `${workload.name}: ${ratios[2]!.toFixed(2)} of its cart ceiling (${pair.ceiling}; median of five paired runs: ${ratios.map((r) => r.toFixed(2)).join(", ")})\n`,
  );
}

async function main(): Promise<void> {
  if (args.summarise) {
    // A profile saved with --out, summarised again (with its bundle) for the request count given.
    const profile = JSON.parse(await readFile(args.summarise, "utf8")) as CpuProfile;
    process.stdout.write(
      `${summarise(profile, Number(args.requests ?? 1), await readFile(`${args.summarise}.index.js`, "utf8"))}\n`,
    );
    return;
  }
  const work = await mkdtemp(join(tmpdir(), "storefront-profile-"));
  try {
    // Unminified, so the profile names functions; `--ratio` times the real build, as the bench does.
    const built = await buildBundle(join(work, "bundle"), args.ratio && !args.hold ? [] : ["--no-minify"]);
    const bundle = args["no-memos"] ? await withoutMemos(built, await mkdtemp(join(work, "no-memos-"))) : built;
    const catalog = args.products ? largeCatalog(Number(args.products)) : await readSeedCatalog();
    const standIn = workloadName === CHECKOUT_WORKLOADS.stripe ? new StripeStandIn() : undefined;
    standIn?.warm();
    const runtime = await startRuntime({
      bundle,
      port: 8828,
      cacheAPI: args["edge-cache"] !== "off",
      ...(args.ratio || args.hold ? {} : { inspectorPort: INSPECTOR_PORT }),
      ...(standIn ? { stripeApiBase: await standIn.start() } : {}),
    });
    try {
      await publishInto(runtime.mf, catalog, runtime.workerdPid);
      const cartRun = checkoutRun || workloadName.startsWith("add to cart") || workloadName.startsWith("cart ceiling");
      // (POST /carts needs no token.)
      // `--carts` carts (and objects) to profile, and as many others the new-cart runs warm up on.
      const n = Number(args.carts);
      const tokens = cartRun ? await issueTokens(runtime.mf, 2 * n + 1) : ["t", "t", "t"];
      const carts = cartWorkloads(catalog, tokens.slice(1, n + 1), tokens[0]!);
      const warmCarts = cartWorkloads(catalog, tokens.slice(n + 1), tokens[0]!);
      const ceilings = cartCeilingWorkloads(n, "a");
      const warmCeilings = cartCeilingWorkloads(n, "w");
      const tracked = trackedAddWorkload(catalog, tokens.slice(1, n + 1));
      const all: Workload[] = [
        ...Object.values(bareWorkloads),
        ceilingWorkload,
        ...catalogWorkloads(catalog),
        ...carts,
        ...(tracked ? [tracked] : []),
        issueCartWorkload,
        ...Object.values(ceilings),
      ];
      const options = {
        url: runtime.url,
        connections: 10,
        durationS: Number(args.seconds),
        workerdPid: runtime.workerdPid,
      };
      if (checkoutRun) {
        // --tracked: each cart also holds a unit of a tracked variant, as the bench's carts do after its tracked add.
        const trackedLines = args.tracked ? trackedAddWorkload(catalog, tokens.slice(1)) : undefined;
        if (args.tracked && !trackedLines) throw new Error("--tracked: the catalog tracks no variant's stock");
        all.push(await prepareCheckout(runtime.url, runtime.mf, carts[0]!, warmCarts[0]!, options, trackedLines));
      }
      let workload = all.find((w) => w.name === workloadName);
      if (!workload)
        throw new Error(
          `unknown workload; one of: ${[...all.map((w) => w.name), ...Object.keys(CHECKOUT_ALIASES)].join(", ")}`,
        );
      if (workload.name === "304 revalidation") {
        const ready = await withEtags(workload, runtime.url);
        if (typeof ready === "string") throw new Error(ready);
        workload = ready;
      }
      const newCarts = carts[0]!;
      const again = cartCeilingWorkloads(n, "b");
      if (workload === newCarts) {
        await runLoad(warmCarts[0]!, options);
      } else if (workload === ceilings.cartCeilingNewObjects) {
        await runLoad(warmCeilings.cartCeilingNewObjects, options);
      } else if (carts.includes(workload) || workload === tracked) {
        await runLoad(newCarts, options);
        if (workload === tracked) await stockTrackedAdd(runtime.url, BENCH_OPERATOR_SECRET, tracked);
      } else if (Object.values(ceilings).includes(workload)) {
        await runLoad(ceilings.cartCeilingNewObjects, options);
      }
      if (args.ratio) {
        // The existing-object ceilings cycle over objects the new-object runs made, as in the bench.
        if (workload !== newCarts)
          for (const round of [ceilings, again]) await runLoad(round.cartCeilingNewObjects, options);
        else await runLoad(warmCeilings.cartCeilingNewObjects, options);
        await ratio(workload, options, { ceilings, again });
        return;
      }
      await warmUp(workload, options, 1);
      // `--idle S` first: the runtime evicts objects idle 10 s, so the run then meets them closed.
      await new Promise((resolve) => setTimeout(resolve, Number(args.idle) * 1000));
      if (args.hold) {
        process.stdout.write(`workerd pid ${runtime.workerdPid}: running ${workload.name}\n`);
        const result = await runLoad(workload, options);
        const cpu = result.workerdCpuUsPerRequest?.toFixed(0) ?? "?";
        process.stdout.write(`${workload.name}: ${result.rps.toFixed(0)} req/s, workerd CPU ${cpu} µs/request\n`);
        return;
      }
      const session = await inspector(INSPECTOR_PORT, "storefront-api");
      await session.send("Profiler.enable");
      await session.send("Profiler.setSamplingInterval", { interval: 50 });
      await session.send("Profiler.start");
      const cpuBefore = processCpuMs(runtime.workerdPid);
      const result = await runLoad(workload, options);
      const cpuAfter = processCpuMs(runtime.workerdPid);
      const { profile } = await session.send<{ profile: CpuProfile }>("Profiler.stop");
      session.close();
      if (args.out) {
        // The profile's line numbers point into this unminified bundle: keep it beside the profile.
        await writeFile(args.out, JSON.stringify(profile));
        await copyFile(bundle.scriptPath, `${args.out}.index.js`);
      }
      process.stdout.write(
        `${workload.name}: ${result.rps.toFixed(0)} req/s with the inspector attached, ${result.errors} errors\n`,
      );
      if (cpuBefore !== undefined && cpuAfter !== undefined) {
        process.stdout.write(
          `workerd process CPU: ${(((cpuAfter - cpuBefore) * 1000) / result.requests).toFixed(0)} µs/request (all isolates and threads)\n`,
        );
      }
      process.stdout.write(`${summarise(profile, result.requests, await readFile(bundle.scriptPath, "utf8"))}\n`);
    } finally {
      await runtime.dispose();
      await standIn?.stop();
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * The checkout workload asked for, prepared as the bench runs it (see the header): the carts
 * filled, the orders database migrated, the isolate warmed on other carts' checkouts. Returns the
 * workload to profile, each request sent once (`amount`).
 */
async function prepareCheckout(
  url: URL,
  mf: Awaited<ReturnType<typeof startRuntime>>["mf"],
  newCarts: Workload,
  warmCarts: Workload,
  options: LoadOptions,
  trackedLines?: Workload,
): Promise<Workload> {
  const tokensOf = (w: Workload) => w.requests.map((r) => r.headers!.authorization!.slice("Bearer ".length));
  const [tokens, warm] = [tokensOf(newCarts), tokensOf(warmCarts)];
  await runLoad(newCarts, options);
  await runLoad(warmCarts, options);
  if (trackedLines) {
    await stockTrackedAdd(url, BENCH_OPERATOR_SECRET, trackedLines);
    await runLoad({ ...trackedLines, amount: trackedLines.requests.length }, options);
  }
  await applyD1Migrations((await mf.getD1Database("ORDERS")) as unknown as D1Database);
  if (workloadName === CHECKOUT_WORKLOADS.complete) {
    await runLoad(checkoutCompleteWorkload(await openCheckouts(url, warm), BENCH_OPERATOR_SECRET), options);
    return checkoutCompleteWorkload(await openCheckouts(url, tokens), BENCH_OPERATOR_SECRET);
  }
  const make = workloadName === CHECKOUT_WORKLOADS.stripe ? checkoutStripeWorkload : checkoutCreateWorkload;
  await runLoad(make(warm), options);
  // The bench's Stripe row replaces the checkouts its create row opened.
  if (make === checkoutStripeWorkload) await openCheckouts(url, tokens);
  return make(tokens);
}

await main();
