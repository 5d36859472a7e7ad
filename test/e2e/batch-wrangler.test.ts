import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { withLockedLocalState } from "../../src/cli/locked-state.ts";
import { HISTORY_KEY, type HistoryEntry, type Pointer, POINTER_KEY } from "../../src/catalog/layout.ts";
import type { SourceCatalog } from "../../src/catalog/schema.ts";
import { CatalogStore } from "../../src/catalog/store.ts";
import { applyBatch } from "../../src/publish/batch/apply.ts";
import { batchStateKey } from "../../src/publish/batch/browse.ts";
import { d1Target } from "../../src/publish/browse-index.ts";
import { inlineParams, wranglerBatchBrowse } from "../../src/publish/browse-remote.ts";
import { processLock } from "../../src/publish/lock.ts";
import { bindingTarget } from "../../src/publish/publish.ts";
import { cancelRelease } from "../../src/publish/release.ts";
import { remoteTarget } from "../../src/publish/remote.ts";
import { runCli } from "../helpers/cli.ts";

/**
 * `catalog:apply --remote` (issue 45 point 1): the batch applied through wrangler's kv, d1 and r2
 * commands. The commands run here with `--local --persist-to DIR` instead of `--remote` (the same
 * commands and the same files, on local state), and the version they make is compared with the
 * same batch applied in-process to a second copy of the catalog: the same KV entries (records,
 * shards, the upserted collection's blocks; no list chunks), the same browse state, in the history
 * as a batch.
 */

const scratch = mkdtempSync(join(tmpdir(), "storefront-batch-wrangler-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const seed = JSON.parse(readFileSync("seed/catalog.json", "utf8")) as SourceCatalog;
const [a, b] = seed.products;
const changed = structuredClone(a!);
for (const v of changed.variants) v.price = "1.11";
const batch = {
  upsert: [changed],
  delete: [b!.handle],
  collections: { upsert: [{ handle: "wrangler-picks", title: "Picks", products: [changed.handle] }] },
};

interface Seen {
  pointer: Pointer;
  history: HistoryEntry[];
  product: unknown;
  gone: unknown;
  /** The version's KV entries but its meta (whose published_at is the time it was written), by key. */
  entries: Record<string, string | null>;
  state: string | null;
}

async function seen(persist: string, version: string): Promise<Seen> {
  return withLockedLocalState(
    join(persist, "v3"),
    { action: "rollback" },
    { waitMs: 120_000, say: () => {} },
    async (local) => {
      const pointer = (await local.env.CATALOG.get<Pointer>(POINTER_KEY, "json")) as Pointer;
      const store = new CatalogStore(local.env.CATALOG);
      const meta = pointer.current;
      const state = await local.env.BROWSE_SNAPSHOTS.get(batchStateKey(version));
      const names = (await local.env.CATALOG.list({ prefix: `v/${version}/` })).keys.map((k) => k.name);
      const entries: Record<string, string | null> = {};
      for (const name of names.filter((n) => !n.endsWith("/meta")))
        entries[name] = await local.env.CATALOG.get(name, "text");
      return {
        pointer,
        history: (await local.env.CATALOG.get<HistoryEntry[]>(HISTORY_KEY, "json")) ?? [],
        product: await store.getProduct(meta, changed.handle),
        gone: await store.getProduct(meta, b!.handle),
        entries,
        state: state ? await state.text() : null,
      };
    },
  );
}

describe("catalog:apply through wrangler's commands (--remote, here on local state)", () => {
  it("writes parameters into SQL as literals, quotes doubled", () => {
    expect(inlineParams("SELECT ?1, ?2, ?1 WHERE x IN (SELECT value FROM json_each(?3))", ["it's", 7, "[1]"])).toBe(
      "SELECT 'it''s', 7, 'it''s' WHERE x IN (SELECT value FROM json_each('[1]'))",
    );
    expect(() => inlineParams("SELECT ?2", ["x"])).toThrow(/parameter 2/);
  });

  it("makes the version an in-process batch makes, in the history as a batch", async () => {
    const viaWrangler = join(scratch, "wrangler");
    const inProcess = join(scratch, "binding");
    for (const persist of [viaWrangler, inProcess]) {
      const published = await runCli("catalog-publish", ["--persist-to", persist], { timeoutMs: 180_000 });
      expect(published.code, published.stderr).toBe(0);
    }
    const where = ["--local", "--persist-to", viaWrangler];
    const lines: string[] = [];
    const target = remoteTarget({ where, log: (l) => lines.push(l) });
    try {
      const result = await applyBatch(target, structuredClone(batch), {
        browse: wranglerBatchBrowse({ where, log: (l) => lines.push(l) }),
        version: "via-wrangler",
      });
      expect(result.changed).toEqual({ products: 2, collections: 1 });
    } finally {
      target.dispose();
    }
    // Every command was printed before it ran, none against production.
    expect(lines.some((l) => l.includes("wrangler kv bulk put"))).toBe(true);
    expect(lines.some((l) => l.includes("wrangler d1 execute BROWSE"))).toBe(true);
    expect(lines.some((l) => l.includes("--remote"))).toBe(false);

    await withLockedLocalState(join(inProcess, "v3"), { action: "batch" }, { waitMs: 120_000, say: () => {} }, (l) =>
      applyBatch(bindingTarget(l.env.CATALOG), structuredClone(batch), {
        browse: d1Target(l.env.BROWSE, l.env.BROWSE_SNAPSHOTS),
        version: "via-wrangler",
      }),
    );
    const [w, p] = [await seen(viaWrangler, "via-wrangler"), await seen(inProcess, "via-wrangler")];
    expect(w.pointer.current.version).toBe("via-wrangler");
    expect(w.history.at(-1)).toMatchObject({ action: "batch", version: "via-wrangler" });
    expect(w.history.at(-1)?.state).toBeUndefined();
    const picks = w.entries["v/via-wrangler/c/wrangler-picks/0"] ?? "";
    expect(picks.split("\n").find((l) => l.includes(`"handle":"${changed.handle}"`))).toContain('"1.11"');
    expect(w.product).toEqual(p.product);
    expect(w.gone).toBeNull();
    expect(Object.keys(w.entries).filter((k) => /\/(pl|pli)\//.test(k))).toEqual([]);
    expect(Object.keys(w.entries).length).toBeGreaterThan(3);
    expect(w.entries).toEqual(p.entries);
    expect(w.state).not.toBeNull();
    expect(w.state).toEqual(p.state);
  }, 900_000);

  it("schedules a batch and cancels it through wrangler's commands (catalog:apply --remote --at, --cancel)", async () => {
    const where = ["--local", "--persist-to", join(scratch, "wrangler")];
    const target = remoteTarget({ where, log: () => {} });
    const browse = wranglerBatchBrowse({ where, log: () => {} });
    const releaseAt = new Date(Date.now() + 3600_000);
    try {
      const again = structuredClone(changed);
      for (const v of again.variants) v.price = "2.22";
      const result = await applyBatch(
        target,
        { upsert: [again] },
        { browse, version: "scheduled-via-wrangler", releaseAt },
      );
      expect(result.release_at).toBe(releaseAt.toISOString());
      const scheduled = (await target.readHistory()).at(-1);
      expect(scheduled).toMatchObject({ version: "scheduled-via-wrangler", state: "scheduled" });
      expect((await target.readPointer())?.current.version).toBe("via-wrangler");
      expect(await target.listKeys("v/scheduled-via-wrangler/meta")).toHaveLength(1);
      await cancelRelease(target, "scheduled-via-wrangler", { lock: processLock(target), browse, by: "test" });
      expect((await target.readHistory()).find((e) => e.version === "scheduled-via-wrangler")?.state).toBe("canceled");
      expect(await target.listKeys("v/scheduled-via-wrangler/")).toEqual([]);
      expect((await target.readPointer())?.current.version).toBe("via-wrangler");
    } finally {
      target.dispose();
    }
  }, 900_000);
});
