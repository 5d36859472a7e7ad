/**
 * `node test/bench/memory.ts [--products 20000] [--seconds 2]`: how much of workerd's resident
 * memory is the worker's own. workerd runs the worker's isolate and Miniflare's simulators (KV,
 * Cache API, Durable Object storage, the rate limiter, its own entry and loopback workers) in one
 * process, so its RSS alone cannot say. This runs the same load twice, on the production bundle
 * and on a scratch copy of it whose two in-isolate memos have a budget of 0 (the answer memo of
 * src/http/catalog-read.ts, 8 MiB, and the parsed-value memo of src/catalog/store.ts, 16 MiB), and
 * reads at each step workerd's RSS (/proc VmRSS) and the worker isolate's V8 heap after a full GC
 * (DevTools `Runtime.getHeapUsage` through Miniflare's `inspectorPort`; the heap the 128 MB
 * Worker limit applies to). The inspector is attached only to read heap sizes, never to profile.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { type Bundle, buildBundle, withoutMemos } from "./bundle.ts";
import { issueTokens, publishInto, readSeedCatalog } from "./fixture.ts";
import { inspector, inspectorTargets } from "./inspector.ts";
import { largeCatalog } from "./large-catalog.ts";
import { runLoad } from "./load.ts";
import { PeakSampler, processRssMiB, startRuntime } from "./runtime.ts";
import { cartWorkloads, catalogWorkloads, withEtags } from "./workloads.ts";

const { values: args } = parseArgs({
  options: { products: { type: "string", default: "20000" }, seconds: { type: "string", default: "2" } },
});
const INSPECTOR_PORT = 8827;
const PORT = 8826;
/** The worker's own isolate among workerd's inspector targets. */
const WORKER_TARGET = "core:user:storefront-api";

interface Step {
  step: string;
  rssMiB: number | undefined;
  /** The worker isolate's used V8 heap after a full GC. */
  heapMiB: number;
  /** The used V8 heaps of every other isolate in workerd (Miniflare's simulators and helpers), not collected first. */
  otherHeapsMiB: number;
}

/** `promise`, or NaN after `ms` (an isolate that never answers must not hang the run). */
function within<T>(promise: Promise<T>, ms = 10_000): Promise<T | typeof Number.NaN> {
  return Promise.race([promise, new Promise<number>((resolve) => setTimeout(() => resolve(Number.NaN), ms).unref())]);
}

/** The used heap of every isolate but the worker's, in MiB. */
async function otherHeaps(port: number, worker: string): Promise<number> {
  let total = 0;
  for (const target of (await inspectorTargets(port)).filter((t) => t.id !== worker)) {
    const session = await inspector(port, target);
    try {
      const usage = await within(session.send<{ usedSize: number }>("Runtime.getHeapUsage"));
      total += typeof usage === "number" ? usage : usage.usedSize;
    } finally {
      session.close();
    }
  }
  return total / 2 ** 20;
}

async function measure(
  bundle: Bundle,
  label: string,
  persistPath: string,
): Promise<{ steps: Step[]; peakRssMiB: number | undefined }> {
  const runtime = await startRuntime({
    bundle,
    port: PORT,
    cacheAPI: true,
    persistPath,
    inspectorPort: INSPECTOR_PORT,
  });
  const worker = (await inspectorTargets(INSPECTOR_PORT)).find((t) => t.id === WORKER_TARGET);
  if (!worker) throw new Error(`workerd exposes no inspector target ${WORKER_TARGET}`);
  const session = await inspector(INSPECTOR_PORT, worker);
  await session.send("HeapProfiler.enable");
  const steps: Step[] = [];
  const take = async (step: string) => {
    // workerd runs the collection when the isolate is next entered: one request enters it.
    const collected = session.send("HeapProfiler.collectGarbage");
    await (await fetch(new URL("/api/v1/health", runtime.url))).arrayBuffer();
    await within(collected);
    const usage = await within(session.send<{ usedSize: number }>("Runtime.getHeapUsage"));
    const heapMiB = typeof usage === "number" ? usage : usage.usedSize / 2 ** 20;
    const rssMiB = processRssMiB(runtime.workerdPid);
    const otherHeapsMiB = await otherHeaps(INSPECTOR_PORT, WORKER_TARGET);
    steps.push({ step, rssMiB, heapMiB, otherHeapsMiB });
    process.stderr.write(
      `[memory] ${label}, ${step}: RSS ${rssMiB?.toFixed(0)} MiB, worker heap ${heapMiB.toFixed(1)} MiB, other isolates ${otherHeapsMiB.toFixed(1)} MiB\n`,
    );
  };
  try {
    await take("idle after start");
    const catalog = Number(args.products) > 0 ? largeCatalog(Number(args.products)) : await readSeedCatalog();
    await publishInto(runtime.mf, catalog, runtime.workerdPid);
    await take(`after publishing ${catalog.products.length} products`);
    const rss = new PeakSampler(() => processRssMiB(runtime.workerdPid)).start();
    const options = {
      url: runtime.url,
      connections: 10,
      durationS: Number(args.seconds),
      workerdPid: runtime.workerdPid,
    };
    for (const w of catalogWorkloads(catalog)) {
      const ready = w.name === "304 revalidation" ? await withEtags(w, runtime.url) : w;
      if (typeof ready !== "string") await runLoad(ready, options);
    }
    await take("after the catalog workloads");
    const [hot, ...tokens] = await issueTokens(runtime.mf, 201);
    for (const w of cartWorkloads(catalog, tokens, hot!)) await runLoad(w, options);
    const peakRssMiB = rss.stop();
    await take("after the cart workloads (200 carts)");
    return { steps, peakRssMiB };
  } finally {
    session.close();
    await runtime.dispose();
  }
}

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), "storefront-memory-"));
  try {
    const bundle = await buildBundle(join(work, "bundle"));
    const bare = await withoutMemos(bundle, await mkdtemp(join(work, "no-memos-")));
    const a = await measure(bundle, "memos as built", join(work, "state-a"));
    const b = await measure(bare, "memos budget 0", join(work, "state-b"));
    const f = (x: number | undefined) => (x === undefined ? "-" : x.toFixed(0));
    const lines = [
      "| step | workerd RSS MiB | worker heap MiB | other isolates' heaps MiB | RSS, memos 0 | worker heap, memos 0 | other heaps, memos 0 |",
      "|:--|--:|--:|--:|--:|--:|--:|",
    ];
    a.steps.forEach((s, i) => {
      const t = b.steps[i]!;
      lines.push(
        `| ${s.step} | ${f(s.rssMiB)} | ${s.heapMiB.toFixed(1)} | ${s.otherHeapsMiB.toFixed(1)} | ${f(t.rssMiB)} | ${t.heapMiB.toFixed(1)} | ${t.otherHeapsMiB.toFixed(1)} |`,
      );
    });
    lines.push(`| peak through the workloads | ${f(a.peakRssMiB)} | | | ${f(b.peakRssMiB)} | | |`);
    process.stdout.write(`${lines.join("\n")}\n`);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await main();
