import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import type { Miniflare } from "miniflare";
import { TokenStore } from "../../src/auth/token-store.ts";
import { d1Target } from "../../src/publish/browse-index.ts";
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
export async function publishInto(mf: Miniflare, catalog: SourceCatalog, workerdPid: number | undefined): Promise<PublishFigures> {
  const binding = await kv(mf, "CATALOG");
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
      browse: d1Target((await mf.getD1Database("BROWSE")) as unknown as D1Database, (await mf.getR2Bucket("BROWSE_SNAPSHOTS")) as unknown as R2Bucket),
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
    return {
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
