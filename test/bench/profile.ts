/**
 * `node test/bench/profile.ts [--workload NAME] [--products N] [--edge-cache off] [--seconds S]`:
 * a CPU profile of the worker's own isolate while one benchmark workload runs, taken through
 * workerd's DevTools inspector (Miniflare's `inspectorPort`), summarised as self time per function
 * and per bundle region, plus how much of workerd's CPU the worker's JavaScript accounts for.
 * `--cpu-prof` does not exist in workerd; this is the profile the benchmark's findings cite.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildBundle } from "./bundle.ts";
import { issueTokens, publishInto, readSeedCatalog } from "./fixture.ts";
import { inspector } from "./inspector.ts";
import { largeCatalog } from "./large-catalog.ts";
import { runLoad, type Workload } from "./load.ts";
import { processCpuMs, startRuntime } from "./runtime.ts";
import { cartWorkloads, catalogWorkloads, ceilingWorkload, withEtags } from "./workloads.ts";

const { values: args } = parseArgs({
  options: {
    workload: { type: "string", default: "product detail" },
    products: { type: "string" },
    "edge-cache": { type: "string", default: "on" },
    seconds: { type: "string", default: "4" },
    out: { type: "string" },
  },
});

const INSPECTOR_PORT = 8829;

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

function summarise(profile: CpuProfile, requests: number): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const totalUs = profile.endTime - profile.startTime;
  const byFunction = new Map<string, number>();
  let idle = 0;
  for (const [id, us] of self) {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === "(idle)") idle += us;
    const name = `${frame.functionName || "(anonymous)"} ${frame.url ? `${frame.url.split("/").at(-1)}:${frame.lineNumber + 1}` : ""}`.trim();
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
  }
  const busy = totalUs - idle;
  const lines = [
    `profiled ${(totalUs / 1e6).toFixed(1)} s, ${requests} requests: worker isolate busy ${(busy / 1000).toFixed(0)} ms = ${(busy / requests).toFixed(0)} µs/request`,
    "top self time (µs per request):",
  ];
  const top = [...byFunction].filter(([name]) => !name.startsWith("(idle)")).sort((a, b) => b[1] - a[1]).slice(0, 25);
  for (const [name, us] of top) lines.push(`  ${(us / requests).toFixed(1).padStart(8)}  ${name}`);
  return lines.join("\n");
}

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), "storefront-profile-"));
  try {
    // Unminified, so the profile names functions; the timed bench always uses the real build.
    const bundle = await buildBundle(join(work, "bundle"), ["--no-minify"]);
    const catalog = args.products ? largeCatalog(Number(args.products)) : await readSeedCatalog();
    const runtime = await startRuntime({ bundle, port: 8828, cacheAPI: args["edge-cache"] !== "off", inspectorPort: INSPECTOR_PORT });
    try {
      await publishInto(runtime.mf, catalog, runtime.workerdPid);
      const tokens = args.workload.startsWith("add to cart") ? await issueTokens(runtime.mf, 501) : [];
      const all: Workload[] = [ceilingWorkload, ...catalogWorkloads(catalog), ...(tokens.length ? cartWorkloads(catalog, tokens.slice(1), tokens[0]!) : [])];
      let workload = all.find((w) => w.name === args.workload);
      if (!workload) throw new Error(`unknown workload; one of: ${all.map((w) => w.name).join(", ")}`);
      if (workload.name === "304 revalidation") {
        const ready = await withEtags(workload, runtime.url);
        if (typeof ready === "string") throw new Error(ready);
        workload = ready;
      }
      const options = { url: runtime.url, connections: 10, durationS: Number(args.seconds), workerdPid: runtime.workerdPid };
      await runLoad(workload, { ...options, durationS: 1 });
      const session = await inspector(INSPECTOR_PORT, "storefront-api");
      await session.send("Profiler.enable");
      await session.send("Profiler.setSamplingInterval", { interval: 50 });
      await session.send("Profiler.start");
      const cpuBefore = processCpuMs(runtime.workerdPid);
      const result = await runLoad(workload, options);
      const cpuAfter = processCpuMs(runtime.workerdPid);
      const { profile } = await session.send<{ profile: CpuProfile }>("Profiler.stop");
      session.close();
      if (args.out) await writeFile(args.out, JSON.stringify(profile));
      process.stdout.write(`${workload.name}: ${result.rps.toFixed(0)} req/s with the inspector attached, ${result.errors} errors\n`);
      if (cpuBefore !== undefined && cpuAfter !== undefined) {
        process.stdout.write(`workerd process CPU: ${(((cpuAfter - cpuBefore) * 1000) / result.requests).toFixed(0)} µs/request (all isolates and threads)\n`);
      }
      process.stdout.write(`${summarise(profile, result.requests)}\n`);
    } finally {
      await runtime.dispose();
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

await main();
