/**
 * Machine-independent figures: how many KV reads, KV bytes and Cache API calls one request of
 * each workload makes. A busy 2-core machine blurs timings; these counts do not move with load,
 * so they are what the findings in the README rest on.
 *
 * The counting runtime runs the same built bundle behind a small entry module that hands the
 * worker (and the Cart Durable Object) counting wrappers of its KV bindings and of the Cache API,
 * and answers `GET /__bench/counts` with the totals since the last call. It is never the runtime
 * that is timed.
 */
import type { BenchRequest, Workload } from "./load.ts";

/** The entry module placed in front of the bundle (`./index.js`) in the counting runtime. */
export const COUNTING_ENTRY = `
import worker, { Cart as BaseCart } from "./index.js";
export * from "./index.js";

let counts = {};
const add = (name, n = 1) => { counts[name] = (counts[name] ?? 0) + n; };
const size = (v) => v == null ? 0 : typeof v === "string" ? v.length : v instanceof ArrayBuffer ? v.byteLength : JSON.stringify(v).length;

function countingKv(kv, name) {
  return new Proxy(kv, {
    get(target, prop) {
      if (prop === "get") return async (...args) => { add(name + " reads"); const v = await target.get(...args); add(name + " bytes", size(v)); return v; };
      if (prop === "getWithMetadata") return async (...args) => { add(name + " reads"); const v = await target.getWithMetadata(...args); add(name + " bytes", size(v.value)); return v; };
      if (prop === "put") return (...args) => { add(name + " writes"); return target.put(...args); };
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
// One wrapped env per env: workerd hands every request and object of the isolate the same binding
// objects, and the worker keeps what it reads within the TTL in maps keyed by the binding (the
// pointer, live stock's overlay, the rules pointer). A new wrapper per request or object missed
// them all, and counted two to three reads a request that the timed runtime never makes.
const wrapped = new WeakMap();
const countingEnv = (env) => {
  let counted = wrapped.get(env);
  if (!counted) {
    counted = { ...env, CATALOG: countingKv(env.CATALOG, "CATALOG"), TOKENS: countingKv(env.TOKENS, "TOKENS") };
    wrapped.set(env, counted);
  }
  return counted;
};

let cachePatched = false;
function patchCache() {
  if (cachePatched || typeof caches === "undefined") return;
  cachePatched = true;
  const cache = caches.default;
  const match = cache.match.bind(cache);
  const put = cache.put.bind(cache);
  cache.match = async (...args) => { add("cache matches"); const hit = await match(...args); if (hit) add("cache hits"); return hit; };
  cache.put = (...args) => { add("cache puts"); return put(...args); };
}

export class Cart extends BaseCart {
  constructor(ctx, env) { super(ctx, countingEnv(env)); }
}

export default {
  async fetch(request, env, ctx) {
    patchCache();
    if (new URL(request.url).pathname === "/__bench/counts") {
      const body = JSON.stringify(counts);
      counts = {};
      return new Response(body, { headers: { "content-type": "application/json" } });
    }
    return worker.fetch(request, countingEnv(env), ctx);
  },
};
`;

/** Per-request averages of one workload: `CATALOG reads`, `CATALOG bytes`, `cache matches`... */
export interface Counts {
  name: string;
  requests: number;
  perRequest: Record<string, number>;
}

async function send(origin: URL, r: BenchRequest): Promise<number> {
  const res = await fetch(new URL(r.path, origin), {
    method: r.method ?? "GET",
    ...(r.headers ? { headers: r.headers } : {}),
    ...(r.body ? { body: r.body } : {}),
  });
  await res.arrayBuffer();
  return res.status;
}

async function takeCounts(origin: URL): Promise<Record<string, number>> {
  const res = await fetch(new URL("/__bench/counts", origin));
  return (await res.json()) as Record<string, number>;
}

/**
 * Sends `perWorkload` requests of each workload one at a time (after one untimed pass over its
 * URLs, so a cache-on runtime is measured on hits) and returns the per-request counts.
 */
export async function countWorkloads(
  origin: URL,
  workloads: readonly Workload[],
  perWorkload: number,
  warm: boolean,
): Promise<Counts[]> {
  const out: Counts[] = [];
  for (const w of workloads) {
    // A fixed-count workload (new carts) must meet fresh state, so it is never warmed.
    if (warm && !w.amount) for (const r of w.requests.slice(0, perWorkload)) await send(origin, r);
    await takeCounts(origin);
    const n = Math.min(perWorkload, w.amount ?? perWorkload);
    for (let i = 0; i < n; i++) await send(origin, w.requests[i % w.requests.length]!);
    const totals = await takeCounts(origin);
    out.push({
      name: w.name,
      requests: n,
      perRequest: Object.fromEntries(Object.entries(totals).map(([k, v]) => [k, v / n])),
    });
  }
  return out;
}
