import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import type { Miniflare } from "miniflare";
import { TokenStore } from "../../src/auth/token-store.ts";
import { browseRegion, pickReplica, replicaName } from "../../src/browse/placement.ts";
import { browseSnapshotKey } from "../../src/browse/snapshot.ts";
import { DEFAULT_SHARD_PRODUCTS, shardCount } from "../../src/browse/shards.ts";
import { d1Target } from "../../src/publish/browse-index.ts";
import { RETRIED_CALLS, retrying } from "../../src/cli/local-env.ts";
import { publishCatalog } from "../../src/publish/publish.ts";
import type { SourceCatalog } from "../../src/catalog/schema.ts";

/** The catalog the service ships with, as the project's own schema describes it. */
export async function readSeedCatalog(): Promise<SourceCatalog> {
  return JSON.parse(await readFile("seed/catalog.json", "utf8")) as SourceCatalog;
}

/** What publishing cost, measured in this process (which builds every entry) and in workerd. */
export interface PublishFigures {
  products: number;
  entries: number;
  ms: number;
  /** Of `ms`: validating the source with the zod schemas and planning the version. */
  validateMs: number;
  /** Of `ms`: building and writing every entry (the generator builds as the writes go). */
  writeMs: number;
  /** Resident memory of the bench process just before publishing (wrangler, Miniflare, the source catalog). */
  rssBeforeMiB: number;
  /** Peak resident memory of the bench process while publishing, sampled every 50 ms. */
  peakRssMiB: number;
  /** workerd's high-water resident memory (VmHWM) after the publish; Linux only. */
  workerdPeakRssMiB: number | undefined;
  /**
   * Who published, when not the bench process itself: "catalog:publish", a child process
   * (publish-cli.ts) whose peak RSS is `peakRssMiB` (`rssBeforeMiB` NaN) and whose own workerd's
   * is `workerdPeakRssMiB`.
   */
  publisher?: "catalog:publish";
  /** The first browse answers after the publish (coldStart). */
  coldStart?: ColdStart;
}

/**
 * Cold start, over HTTP right after the publish: the first browse answer of a new engine
 * (`snapshotMs`: it loads the version's snapshot from R2 and builds its VersionIndex), the same
 * query again from that engine (`warmMs`), the first answer of a replica in another region
 * (`replicaMs`, a request whose `cf` says Asia), and the first answer of an engine that finds no
 * snapshot and reads D1 (`d1Ms`: the snapshot moved aside for one request, a request from Oceania,
 * then put back). Each is one request's wall time as the client sees it.
 */
export interface ColdStart {
  snapshotBytes: number;
  snapshotMs: number;
  /** Of snapshotMs, as the new engine timed it (BrowseEngine.built): the R2 reads, the decode, the VersionIndex build; absent if the engine could not be asked. */
  readMs?: number;
  decodeMs?: number;
  buildMs?: number;
  warmMs: number;
  replicaMs: number;
  d1Ms: number;
}

/**
 * Each figure gets its own URL, so the edge cache (on in the first scenario) never answers for
 * an engine: `limit` varies. "Same engine again" takes a limit whose hash picks the same replica.
 */
const coldQuery = (limit: number) => `/api/v1/products?q=tee&sort=price_asc&limit=${limit}`;

async function timedBrowse(mf: Miniflare, limit: number, cf: Record<string, string>): Promise<number> {
  const started = performance.now();
  const response = await mf.dispatchFetch(`http://localhost${coldQuery(limit)}`, { cf });
  await response.text();
  if (response.status !== 200) throw new Error(`cold browse answered ${response.status}`);
  if (response.headers.get("cf-cache-status") === "HIT") throw new Error("cold browse answered from the edge cache");
  return performance.now() - started;
}

/** The cold-start figures of `version` (ColdStart); of a sharded one, its engines loading their shards at once. */
export async function measureColdStart(mf: Miniflare, version: string, shards = 1): Promise<ColdStart> {
  const bucket = await mf.getR2Bucket("BROWSE_SNAPSHOTS");
  const keys = Array.from({ length: shards }, (_, shard) =>
    browseSnapshotKey(version, shards > 1 ? { shard, shards } : undefined),
  );
  const europe = { continent: "EU", country: "FR", longitude: "2.35" };
  const first = 20;
  const again =
    [21, 22, 23, 24, 25, 26].find(
      (l) =>
        pickReplica(new URL(coldQuery(l), "http://x").pathname + new URL(coldQuery(l), "http://x").search, "2") ===
        pickReplica(new URL(coldQuery(first), "http://x").pathname + new URL(coldQuery(first), "http://x").search, "2"),
    ) ?? first;
  const snapshotMs = await timedBrowse(mf, first, europe);
  const split = await engineBuild(mf, version, first, europe, shards);
  const warmMs = await timedBrowse(mf, again, europe);
  const replicaMs = await timedBrowse(mf, 27, { continent: "AS", country: "JP", longitude: "139.7" });
  // Without its manifest the snapshot is not found (the chunks stay): the next new engine reads D1.
  const texts: string[] = [];
  for (const key of keys) {
    const manifest = await bucket.get(key);
    texts.push(await (manifest as NonNullable<typeof manifest>).text());
  }
  await bucket.delete(keys);
  let d1Ms: number;
  try {
    d1Ms = await timedBrowse(mf, 28, { continent: "OC", country: "AU", longitude: "151.2" });
  } finally {
    for (const [i, key] of keys.entries()) await bucket.put(key, texts[i] as string);
  }
  return {
    snapshotBytes: texts.reduce((n, text) => n + (JSON.parse(text) as { bytes: number }).bytes, 0),
    snapshotMs,
    ...split,
    warmMs,
    replicaMs,
    d1Ms,
  };
}

/**
 * What the engine that answered `coldQuery(limit)` from `cf` says its build cost (BrowseEngine.built,
 * over Miniflare's proxy): of a sharded version, the slowest shard's; {} if it cannot say.
 */
async function engineBuild(
  mf: Miniflare,
  version: string,
  limit: number,
  cf: Record<string, string>,
  shards: number,
): Promise<Pick<ColdStart, "readMs" | "decodeMs" | "buildMs">> {
  try {
    const url = new URL(coldQuery(limit), "http://x");
    const replicas = (await mf.getBindings<{ BROWSE_REPLICAS?: string }>()).BROWSE_REPLICAS;
    const replica = pickReplica(url.pathname + url.search, replicas);
    const namespace = await mf.getDurableObjectNamespace("BROWSE_ENGINE");
    const splits: { readMs: number; decodeMs: number; buildMs: number }[] = [];
    for (let shard = 0; shard < shards; shard++) {
      const name = replicaName(version, browseRegion(cf), replica, shards > 1 ? shard : undefined);
      const stub = namespace.get(namespace.idFromName(name)) as unknown as {
        built(): Promise<{ readMs: number; decodeMs: number; buildMs: number } | null>;
      };
      const built = await stub.built();
      if (!built) return {};
      splits.push(built);
    }
    const total = (s: { readMs: number; decodeMs: number; buildMs: number }) => s.readMs + s.decodeMs + s.buildMs;
    const built = splits.reduce((a, b) => (total(b) > total(a) ? b : a));
    return { readMs: built.readMs, decodeMs: built.decodeMs, buildMs: built.buildMs };
  } catch (error) {
    process.stderr.write(`[bench] cold start: the engine's own split unavailable (${String(error)})\n`);
    return {};
  }
}

async function kv(mf: Miniflare, binding: string): Promise<KVNamespace> {
  // Miniflare's proxy implements the KVNamespace binding API; only the type names differ.
  return (await mf.getKVNamespace(binding)) as unknown as KVNamespace;
}

/**
 * Publishes `catalog` with the project's own publish function into the runtime's CATALOG
 * binding and its BROWSE index (through Miniflare's binding proxies, so every write crosses into
 * workerd as the local CLI's do), timing it and sampling this process's memory.
 */
export async function publishInto(
  mf: Miniflare,
  catalog: SourceCatalog,
  workerdPid: number | undefined,
  shardProducts?: number,
): Promise<PublishFigures> {
  const say = (line: string) => process.stderr.write(`[bench]     ${line}\n`);
  const binding = retrying(await kv(mf, "CATALOG"), RETRIED_CALLS.kv, say);
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 50);
  const started = performance.now();
  const phases: Record<string, number> = {};
  let reported = 0;
  try {
    const result = await publishCatalog(binding, catalog, {
      browse: d1Target(
        retrying((await mf.getD1Database("BROWSE")) as unknown as D1Database, RETRIED_CALLS.d1, say),
        retrying((await mf.getR2Bucket("BROWSE_SNAPSHOTS")) as unknown as R2Bucket, RETRIED_CALLS.r2, say),
      ),
      shardProducts,
      onProgress: ({ phase, written, total }) => {
        phases[phase] ??= performance.now();
        // Progress only for a catalog big enough to wait for (not the seed's few entries).
        if (phase === "writing" && total >= 1000 && written >= reported + total / 4) {
          reported = written;
          process.stderr.write(`[bench]     ${written}/${total} entries\n`);
        }
      },
    });
    const ms = performance.now() - started;
    const validated = phases.validated ?? started;
    peak = Math.max(peak, process.memoryUsage().rss);
    const shards = shardCount(result.products, shardProducts ?? DEFAULT_SHARD_PRODUCTS);
    const coldStart = result.products > 0 ? await measureColdStart(mf, result.version, shards) : undefined;
    return {
      ...(coldStart ? { coldStart } : {}),
      products: result.products,
      entries: result.entries,
      ms,
      validateMs: validated - started,
      writeMs: (phases.switched ?? validated) - validated,
      rssBeforeMiB: before / 2 ** 20,
      peakRssMiB: peak / 2 ** 20,
      workerdPeakRssMiB: workerdHighWater(workerdPid),
    };
  } finally {
    clearInterval(sampler);
  }
}

function workerdHighWater(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kib = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
    return kib ? Number(kib) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Issues `count` live tokens with the auth module's own TokenStore, into the runtime's TOKENS
 * binding. The bench worker runs with ENVIRONMENT=production, which refuses sf_dev_ tokens, so
 * these are real `sf_live_` tokens, each its own holder and therefore its own cart.
 */
export async function issueTokens(mf: Miniflare, count: number, concurrency = 16): Promise<string[]> {
  const store = new TokenStore(await kv(mf, "TOKENS"));
  const tokens: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const { token } = await store.issue({ label: "bench" });
      tokens.push(token);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return tokens;
}
