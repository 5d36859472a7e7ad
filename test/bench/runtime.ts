import { readFileSync } from "node:fs";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { join } from "node:path";
import type { Bundle } from "./bundle.ts";
import { COUNTING_ENTRY } from "./counting.ts";

/**
 * The rate limit the benchmark gives `CART_WRITE_LIMITER`. wrangler.toml's 120 writes a minute
 * per token would turn the hot-cart workload into 429s after two seconds, so the bench measures
 * the cart itself, not the limiter's refusal; the limiter binding is still called on every write.
 */
export const BENCH_RATE_LIMIT = 1_000_000_000;

export interface RuntimeOptions {
  bundle: Bundle;
  port: number;
  /** false: Miniflare's Cache API becomes a no-op, so every catalog read is an edge-cache miss. */
  cacheAPI: boolean;
  /** Where KV/DO/cache state lives; omitted: a temporary directory removed on dispose. */
  persistPath?: string;
  /** Opens workerd's DevTools inspector here (profiling only: it slows the runtime down). */
  inspectorPort?: number;
  /** Put the counting entry module (counting.ts) in front of the bundle. Never for timed runs. */
  counting?: boolean;
}

/** A running workerd with the production bundle, and what it cost to start. */
export interface Runtime {
  mf: Miniflare;
  url: URL;
  /** new Miniflare() until the first answered request, in ms. */
  startToFirstResponseMs: number;
  /** workerd's process id, to read the CPU time it spends on each workload. */
  workerdPid: number | undefined;
  dispose: () => Promise<void>;
}

/**
 * Starts the built bundle in workerd through Miniflare's API, with the bindings wrangler.toml
 * declares (read through wrangler itself, so they never drift), the production `vars`, and one
 * override: the cart write limiter's limit (see {@link BENCH_RATE_LIMIT}). Worker log lines are
 * received and counted, never printed: the worker still pays for writing them, as in production.
 */
export async function startRuntime(options: RuntimeOptions): Promise<Runtime & { logLines: () => number }> {
  const { workerOptions } = unstable_getMiniflareWorkerOptions("wrangler.toml");
  // The bundle is one ES module; wrangler's module rules describe the sources, not the bundle.
  const { modulesRules: _sourceRules, ratelimits, ...bindings } = workerOptions as typeof workerOptions & {
    ratelimits?: Record<string, { namespace_id: string; simple: { limit: number; period?: 10 | 60 } }>;
  };
  const limits = Object.fromEntries(
    Object.entries(ratelimits ?? {}).map(([name, rl]) => [
      name,
      { namespace_id: rl.namespace_id, simple: { limit: BENCH_RATE_LIMIT, period: rl.simple.period ?? 60 } },
    ]),
  );
  let logLines = 0;
  const started = performance.now();
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      host: "127.0.0.1",
      port: options.port,
      logRequests: false,
      handleStructuredLogs: () => {
        logLines++;
      },
      ...(options.persistPath ? { resourcePersistencePath: options.persistPath } : {}),
      ...(options.inspectorPort ? { inspectorPort: options.inspectorPort } : {}),
      workers: [
        {
          ...bindings,
          name: "storefront-api",
          ...(options.counting
            ? {
                modules: [
                  { type: "ESModule" as const, path: join(options.bundle.dir, "bench-counting.js"), contents: COUNTING_ENTRY },
                  { type: "ESModule" as const, path: options.bundle.scriptPath },
                ],
              }
            : { modules: true, scriptPath: options.bundle.scriptPath }),
          modulesRoot: options.bundle.dir,
          ratelimits: limits,
          cacheAPI: options.cacheAPI,
        },
      ],
    } as Parameters<typeof convertV4MiniflareOptions>[0]),
  );
  const url = await mf.ready;
  const first = await fetch(new URL("/api/v1/health", url));
  await first.arrayBuffer();
  if (first.status !== 200) throw new Error(`health answered ${first.status} on start`);
  const startToFirstResponseMs = performance.now() - started;
  return {
    mf,
    url,
    startToFirstResponseMs,
    workerdPid: findWorkerdPid(),
    logLines: () => logLines,
    dispose: () => mf.dispose(),
  };
}

/** The newest child of this process whose command is workerd (Linux /proc only). */
function findWorkerdPid(): number | undefined {
  try {
    const children = readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, "utf8").trim().split(/\s+/);
    const workerds = children.filter((pid) => readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "workerd");
    const last = workerds.at(-1);
    return last ? Number(last) : undefined;
  } catch {
    return undefined;
  }
}

/** CPU time (user + system) a process has used so far, in ms; undefined where /proc is absent. */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticksPerMs = 100 / 1000; // USER_HZ is 100 on Linux
    return (Number(fields[11]) + Number(fields[12])) / ticksPerMs;
  } catch {
    return undefined;
  }
}
