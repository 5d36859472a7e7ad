import { readFileSync } from "node:fs";
import { convertV4MiniflareOptions, Miniflare } from "miniflare";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { join } from "node:path";
import type { Bundle } from "./bundle.ts";
import { COUNTING_ENTRY } from "./counting.ts";
import { BENCH_ENTRY, CEILING_BINDING, CEILING_CLASS } from "./entry.ts";

/**
 * The rate limit the benchmark gives `CART_WRITE_LIMITER`. wrangler.toml's 120 writes a minute
 * per token would turn the hot-cart workload into 429s after two seconds, so the bench measures
 * the cart itself, not the limiter's refusal; the limiter binding is still called on every write.
 */
export const BENCH_RATE_LIMIT = 1_000_000_000;

/**
 * The CART_TOKEN_SECRET the bench's runtime signs shopper tokens with (a deployment's secret; the
 * runtime runs with ENVIRONMENT=production, which refuses the development value).
 */
export const BENCH_CART_TOKEN_SECRET = "bench-cart-token-secret-not-for-production-0123456789";
/** The operator secret the bench's worker runs with: the checkout-complete workload uses the operator surface. */
export const BENCH_OPERATOR_SECRET = "bench-operator-secret-0123456789";

/** The Stripe key the bench's worker sends to the local stand-in (its shape is Stripe's; it opens nothing). */
export const BENCH_STRIPE_SECRET_KEY = "sk_test_bench0123456789";

export interface RuntimeOptions {
  bundle: Bundle;
  port: number;
  /** false: Miniflare's Cache API becomes a no-op, so every catalog read is an edge-cache miss. */
  cacheAPI: boolean;
  /** Where KV/DO/cache state lives; omitted: a temporary directory removed on dispose. */
  persistPath?: string;
  /** Opens workerd's DevTools inspector here (profiling only: it slows the runtime down). */
  inspectorPort?: number;
  /**
   * Put the counting entry module (counting.ts) in front of the bundle instead of the bench
   * entry (entry.ts, with the cart ceiling). Never for timed runs.
   */
  counting?: boolean;
  /**
   * The local Stripe stand-in's address (test/stripe/stand-in.ts), given to the worker as
   * STRIPE_API_BASE with a test key, for the checkout-with-Stripe row (entry.ts STRIPE_HOST).
   * The vars' PAYMENT_PROVIDER stays as wrangler.toml has it, so no other row calls Stripe.
   */
  stripeApiBase?: string;
  /**
   * The catalog writer Worker's build (bundle.ts buildWriterBundle), run beside the storefront on
   * the same state with CATALOG_WRITER bound to it, as a deployment has it: for the change
   * batches sent through `POST /operator/catalog/changes` (batch-file.ts --via api). Without it
   * the binding is left out: no other row sends a batch.
   */
  writer?: { dir: string; scriptPath: string };
  /** Each worker log line's message, as received (batch-file.ts reads the writer's line for a batch's entries and bytes). */
  onLog?: (message: string) => void;
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
 * The bundle always runs behind an entry module of the bench's own: entry.ts (the cart ceiling's
 * route and Durable Object; one string comparison for every other request), or counting.ts.
 */
export async function startRuntime(options: RuntimeOptions): Promise<Runtime & { logLines: () => number }> {
  const { workerOptions } = unstable_getMiniflareWorkerOptions("wrangler.toml");
  // The bundle is one ES module; wrangler's module rules describe the sources, not the bundle.
  // The catalog writer (CATALOG_WRITER, a Worker of its own) runs only when asked for (options.writer).
  const {
    modulesRules: _sourceRules,
    serviceBindings: _catalogWriter,
    ratelimits,
    ...bindings
  } = workerOptions as typeof workerOptions & {
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
      handleStructuredLogs: (log) => {
        logLines++;
        options.onLog?.(log.message);
      },
      ...(options.persistPath ? { resourcePersistencePath: options.persistPath } : {}),
      ...(options.inspectorPort ? { inspectorPort: options.inspectorPort } : {}),
      workers: [
        {
          ...bindings,
          bindings: {
            ...((bindings as { bindings?: Record<string, unknown> }).bindings ?? {}),
            CART_TOKEN_SECRET: BENCH_CART_TOKEN_SECRET,
            OPERATOR_SECRET: BENCH_OPERATOR_SECRET,
            ...(options.stripeApiBase
              ? { STRIPE_API_BASE: options.stripeApiBase, STRIPE_SECRET_KEY: BENCH_STRIPE_SECRET_KEY }
              : {}),
          },
          name: "storefront-api",
          modules: [
            options.counting
              ? {
                  type: "ESModule" as const,
                  path: join(options.bundle.dir, "bench-counting.js"),
                  contents: COUNTING_ENTRY,
                }
              : { type: "ESModule" as const, path: join(options.bundle.dir, "bench-entry.js"), contents: BENCH_ENTRY },
            { type: "ESModule" as const, path: options.bundle.scriptPath },
            ...(options.counting
              ? []
              : [
                  {
                    type: "ESModule" as const,
                    path: join(options.bundle.dir, "bench-bare-hono.js"),
                    contents: options.bundle.bareHono,
                  },
                ]),
          ],
          durableObjects: {
            ...(bindings.durableObjects as Record<string, unknown> | undefined),
            ...(options.counting ? {} : { [CEILING_BINDING]: { className: CEILING_CLASS, useSQLite: true } }),
          },
          modulesRoot: options.bundle.dir,
          ratelimits: limits,
          cacheAPI: options.cacheAPI,
          ...(options.writer ? { serviceBindings: { CATALOG_WRITER: WRITER_DESIGNATOR } } : {}),
        },
        ...(options.writer ? [writerWorker(options.writer)] : []),
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

const WRITER_NAME = "storefront-catalog-writer";
const WRITER_DESIGNATOR = { name: WRITER_NAME, entrypoint: "CatalogWriter" };

/** The catalog writer as a second worker of the runtime: its build, and the storage and self binding its config names. */
function writerWorker(writer: { dir: string; scriptPath: string }) {
  const { workerOptions } = unstable_getMiniflareWorkerOptions("writer/wrangler.toml");
  const { kvNamespaces, d1Databases, r2Buckets, compatibilityDate, compatibilityFlags } = workerOptions as {
    kvNamespaces?: unknown;
    d1Databases?: unknown;
    r2Buckets?: unknown;
    compatibilityDate?: string;
    compatibilityFlags?: string[];
  };
  return {
    name: WRITER_NAME,
    modules: [{ type: "ESModule" as const, path: writer.scriptPath }],
    modulesRoot: writer.dir,
    compatibilityDate,
    compatibilityFlags,
    kvNamespaces,
    d1Databases,
    r2Buckets,
    serviceBindings: { CATALOG_WRITER: WRITER_DESIGNATOR },
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

/** A process's resident memory now (VmRSS in /proc/<pid>/status), in MiB; undefined where /proc is absent. */
export function processRssMiB(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const kib = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
    return kib ? Number(kib) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The peak of a memory reading, sampled every `intervalMs` from `start()` until `stop()` (and
 * once at each end): workerd's RSS through a workload, or the bench process's own.
 */
export class PeakSampler {
  #peak: number | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  readonly #read: () => number | undefined;
  readonly #intervalMs: number;

  constructor(read: () => number | undefined, intervalMs = 100) {
    this.#read = read;
    this.#intervalMs = intervalMs;
  }

  start(): this {
    this.sample();
    this.#timer = setInterval(() => this.sample(), this.#intervalMs);
    this.#timer.unref();
    return this;
  }

  sample(): void {
    const value = this.#read();
    if (value !== undefined && (this.#peak === undefined || value > this.#peak)) this.#peak = value;
  }

  /** Stops sampling (after one last sample) and returns the peak; undefined if nothing was read. */
  stop(): number | undefined {
    clearInterval(this.#timer);
    this.sample();
    return this.#peak;
  }

  get peak(): number | undefined {
    return this.#peak;
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
