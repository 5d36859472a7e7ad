import autocannon from "autocannon";
import { countErrors, percentile } from "./figures.ts";
import { PeakSampler, processCpuMs, processRssMiB } from "./runtime.ts";

/** One HTTP request of a workload; a workload cycles through its list. */
export interface BenchRequest {
  method?: "GET" | "POST" | "PATCH";
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** What a workload sends and which statuses count as success. */
export interface Workload {
  name: string;
  /** Requests are sent in order, round-robin over all connections. */
  requests: BenchRequest[];
  /** Statuses that count as success; anything else is an error. */
  ok: number[];
  /** Send exactly this many requests (no warm-up) instead of running for a duration. */
  amount?: number;
  /**
   * Each request names its own Durable Object (a cart, a ceiling object), cycled over. The local
   * runtime evicts an object after 10 s without a request (Miniflare's `preventEviction` docs),
   * and reopens it on the next one: with a thousand objects cycled over in runs of 5 s, part of
   * one run's objects were evicted while the next run went on (their SQLite databases closed
   * under it) and part had to start again in it, so an existing-object run measured a varying
   * share of object start-up and shutdown (a tracked add ranged 2,100-4,100 µs of CPU per request
   * from run to run, its ceiling 1,450-3,600). See `warmUp`.
   */
  objectPerRequest?: boolean;
}

/** How long the local runtime keeps an idle Durable Object (10 s, Miniflare's docs), and a second more. */
export const OBJECT_EVICTION_S = 11;

/**
 * The warm-up before a timed run: `seconds` of the workload; for a workload whose requests each
 * name their own object (`Workload.objectPerRequest`), first `OBJECT_EVICTION_S` idle, so every
 * object the runs before touched has been evicted and none is closed during this run, then one
 * pass over all of its own objects, so the timed run meets them open, as "existing" says.
 */
export async function warmUp(workload: Workload, options: LoadOptions, seconds: number): Promise<void> {
  if (workload.amount) return;
  if (workload.objectPerRequest) {
    await new Promise((resolve) => setTimeout(resolve, OBJECT_EVICTION_S * 1000));
    await runLoad({ ...workload, amount: workload.requests.length }, options);
  } else await runLoad(workload, { ...options, durationS: seconds });
}

/** The figures of one workload run. */
export interface LoadResult {
  name: string;
  requests: number;
  durationS: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  statuses: Record<string, number>;
  /** CPU time workerd spent per request (all of its threads), in µs. Undefined off Linux. */
  workerdCpuUsPerRequest: number | undefined;
  /** workerd's peak resident memory (VmRSS, sampled every 100 ms) during the run, in MiB. Undefined off Linux. */
  workerdPeakRssMiB: number | undefined;
}

export interface LoadOptions {
  url: URL;
  connections: number;
  durationS: number;
  workerdPid: number | undefined;
}

/**
 * Drives one workload with autocannon over loopback and returns requests/s, latency percentiles
 * computed from every response's own duration (autocannon's histogram truncates to whole ms,
 * too coarse for 1-3 ms answers), the status mix, workerd's CPU time per request and its peak RSS.
 */
export async function runLoad(workload: Workload, options: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  const cursor = { next: 0 };
  const list = workload.requests;
  const rss = new PeakSampler(() => processRssMiB(options.workerdPid)).start();
  const cpuBefore = processCpuMs(options.workerdPid);
  const started = performance.now();
  const instance = autocannon({
    url: options.url.origin,
    connections: options.connections,
    // Stop is only checked once per sample: 100 ms samples let a run end within 0.1 s of its
    // duration (or its last request), instead of on the next whole second.
    sampleInt: 100,
    ...(workload.amount ? { amount: workload.amount } : { duration: options.durationS }),
    // One template; setupRequest fills it with the next request of the workload, so a list of
    // thousands (many tokens, many handles) is shared by all connections in order.
    requests: [
      {
        setupRequest: (req: Record<string, unknown>) => {
          const r = list[cursor.next++ % list.length]!;
          return { ...req, method: r.method ?? "GET", path: r.path, headers: { ...(r.headers ?? {}) }, body: r.body };
        },
      },
    ],
  });
  let lastResponseAt = started;
  instance.on("response", (_client: unknown, _status: number, _bytes: number, responseTime: number) => {
    latencies.push(responseTime);
    lastResponseAt = performance.now();
  });
  const res = await instance;
  // From the start to the last response: autocannon's own duration ends on a sample tick.
  const durationS = (lastResponseAt - started) / 1000;
  const cpuAfter = processCpuMs(options.workerdPid);
  const workerdPeakRssMiB = rss.stop();
  const statuses: Record<string, number> = {};
  for (const [code, stat] of Object.entries(res.statusCodeStats ?? {})) statuses[code] = Number(stat.count);
  const answered = Object.values(statuses).reduce((a, b) => a + b, 0);
  latencies.sort((a, b) => a - b);
  return {
    name: workload.name,
    requests: answered,
    durationS,
    rps: answered / durationS,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    errors: countErrors(statuses, workload.ok, res.errors), // autocannon counts timeouts among errors
    statuses,
    workerdCpuUsPerRequest:
      cpuBefore !== undefined && cpuAfter !== undefined && answered > 0
        ? ((cpuAfter - cpuBefore) * 1000) / answered
        : undefined,
    workerdPeakRssMiB,
  };
}

/**
 * Sends a workload's first request once. Returns why it cannot be measured (the status and error
 * code it answered), or undefined when it answers as the workload expects.
 */
export async function probe(workload: Workload, url: URL): Promise<string | undefined> {
  const r = workload.requests[0];
  if (!r) return "no requests";
  const init: RequestInit = {
    method: r.method ?? "GET",
    ...(r.headers ? { headers: r.headers } : {}),
    ...(r.body ? { body: r.body } : {}),
  };
  const res = await fetch(new URL(r.path, url), init);
  const text = await res.text();
  if (workload.ok.includes(res.status)) return undefined;
  let code = "";
  try {
    const error = (JSON.parse(text) as { error?: { code?: string; type?: string } }).error;
    code = error?.code ?? error?.type ?? "";
  } catch {
    // not JSON: the status says enough
  }
  return `${r.method ?? "GET"} ${r.path.split("?")[0]} answered ${res.status} ${code}`.trim();
}
