import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli, STACK_FRAME } from "../helpers/cli.ts";
import { openLocalEnv } from "../../src/cli/local-env.ts";
import { withLockedLocalState } from "../../src/cli/locked-state.ts";
import { LOCK_FILE } from "../../src/publish/lock-file.ts";
import { bindingTarget, KEEP_VERSIONS, listHistory, rollbackCatalog } from "../../src/publish/publish.ts";
import { CatalogStore } from "../../src/catalog/store.ts";
import type { HistoryEntry, Pointer } from "../../src/catalog/layout.ts";

/**
 * Issue 22, item 3, with real processes on real local state: `catalog:publish` twice and
 * `catalog:rollback` started at the same moment, each its own Node process with its own
 * Miniflare on one persist directory (as two operators, or an operator and a script, would).
 * Regression: one publish failed after its version went live, the other's "previous" skipped it,
 * and a cleanup deleted a version still being written.
 */

const scratch = mkdtempSync(join(tmpdir(), "storefront-race-"));
const persist = join(scratch, "state");
const state = join(persist, "v3");
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The seed with every price moved by `cents`, written to a file: each version has its own prices. */
function catalogFile(name: string, cents: number): string {
  const catalog = JSON.parse(readFileSync("seed/catalog.json", "utf8")) as {
    products: { variants: { price: string }[] }[];
  };
  for (const p of catalog.products)
    for (const v of p.variants) v.price = ((Math.round(Number(v.price) * 100) + cents) / 100).toFixed(2);
  const file = join(scratch, name);
  writeFileSync(file, JSON.stringify(catalog));
  return file;
}

/** Opens the local state (under the publish lock, like the tools) and reads what a test checks. */
async function inspect<T>(read: (env: Awaited<ReturnType<typeof openLocalEnv>>["env"]) => Promise<T>): Promise<T> {
  return withLockedLocalState(state, { action: "rollback" }, { waitMs: 120_000, say: () => {} }, (local) =>
    read(local.env),
  );
}

/** The lowest price of the seed's first product in a version, read through the catalog store. */
async function firstPrice(
  env: Awaited<ReturnType<typeof openLocalEnv>>["env"],
): Promise<{ version: string; minor: number | undefined }> {
  const store = new CatalogStore(env.CATALOG);
  const meta = await store.currentMeta();
  if (!meta) throw new Error("nothing published");
  const product = await store.getProduct(meta, "essential-crew-tee-black");
  return { version: meta.version, minor: product ? Math.min(...product.variants.map((v) => v[2])) : undefined };
}

describe("catalog:publish twice and catalog:rollback at once, as real processes", () => {
  it("take turns and leave a complete, consistent history whose every kept version rolls back whole", async () => {
    const base = [catalogFile("base-0.json", 0), catalogFile("base-1.json", 100)];
    for (const file of base)
      expect((await runCli("catalog-publish", ["--persist-to", persist, file], { timeoutMs: 120_000 })).code).toBe(0);
    const a = catalogFile("a.json", 200);
    const b = catalogFile("b.json", 300);
    const runs = await Promise.all([
      runCli("catalog-publish", ["--persist-to", persist, a], { timeoutMs: 180_000 }),
      runCli("catalog-rollback", ["--persist-to", persist], { timeoutMs: 180_000 }),
      runCli("catalog-publish", ["--persist-to", persist, b], { timeoutMs: 180_000 }),
    ]);
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).not.toMatch(STACK_FRAME);
    }
    // At least two of the three found the lock taken and said whom they waited for.
    expect(
      runs.filter((r) => /Waiting up to 600 s for another catalog operation to end: (publish|rollback)/.test(r.stdout))
        .length,
    ).toBeGreaterThanOrEqual(2);

    const list = await runCli("catalog-rollback", ["--persist-to", persist, "--list"], { timeoutMs: 120_000 });
    expect(list.code, list.stderr).toBe(0);
    const rows = list.stdout.split("\n").filter((l) => /^\d+\s/.test(l));
    expect(rows).toHaveLength(5);
    expect(rows.map((r) => r.split(/\s+/)[2]).sort()).toEqual(["publish", "publish", "publish", "publish", "rollback"]);
    expect(list.stdout).toContain(`${a} by `);
    expect(rows.filter((r) => /\slive\s/.test(r))).toHaveLength(1);

    const { history, pointer, live } = await inspect(async (env) => ({
      history: (await env.CATALOG.get<HistoryEntry[]>("catalog:history", "json")) ?? [],
      pointer: (await env.CATALOG.get<Pointer>("catalog:pointer", "json")) as Pointer,
      live: await firstPrice(env),
    }));
    // Consistent and complete: numbered 1..5, each from the version the one before made live, ending at the pointer.
    expect(history.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    history.forEach((e, i) => expect(e.from).toBe(i === 0 ? null : history[i - 1]?.version));
    expect(history.at(-1)?.version).toBe(pointer.current.version);
    expect(history.at(-1)?.from).toBe(pointer.previous?.version);
    // The pointer names a fully written version: it answers its own prices.
    const centsOf = (version: string) => {
      const source = history.find((e) => e.version === version && e.action === "publish")?.source ?? "";
      return source.endsWith("a.json")
        ? 200
        : source.endsWith("b.json")
          ? 300
          : source.endsWith("base-1.json")
            ? 100
            : 0;
    };
    expect(new Set(history.filter((e) => e.action === "publish").map((e) => e.version)).size).toBe(4);
    expect(live).toEqual({ version: pointer.current.version, minor: 2800 + centsOf(pointer.current.version) });

    // Every version in the kept history goes live again, whole (one through the CLI's --to).
    const kept = (await inspect((env) => listHistory(bindingTarget(env.CATALOG)))).filter(
      (l) => l.kept && l.action === "publish",
    );
    expect(kept).toHaveLength(Math.min(4, KEEP_VERSIONS));
    const [viaCli, ...rest] = kept.filter((l) => l.version !== pointer.current.version);
    const to = await runCli("catalog-rollback", ["--persist-to", persist, "--to", viaCli?.version ?? ""], {
      timeoutMs: 120_000,
    });
    expect(to.code, to.stderr).toBe(0);
    expect(await inspect(firstPrice)).toEqual({
      version: viaCli?.version,
      minor: 2800 + centsOf(viaCli?.version ?? ""),
    });
    for (const line of rest) {
      const now = await withLockedLocalState(
        state,
        { action: "rollback" },
        { waitMs: 120_000, say: () => {} },
        async (local, lock) => {
          await rollbackCatalog(local.env.CATALOG, { to: line.version, lock });
          return firstPrice(local.env);
        },
      );
      expect(now).toEqual({ version: line.version, minor: 2800 + centsOf(line.version) });
    }
  }, 600_000);

  it("refuses at once with --wait 0 while a live process holds the lock, naming it; breaks a dead holder's lock and deletes what it half wrote", async () => {
    const lockPath = join(state, LOCK_FILE);
    const holder = {
      token: "held-by-test",
      pid: process.pid,
      host: hostname(),
      since: new Date().toISOString(),
      action: "publish",
      version: "someone-elses",
      source: "big.json",
    };
    writeFileSync(lockPath, JSON.stringify(holder));
    const refused = await runCli(
      "catalog-publish",
      ["--persist-to", persist, "--wait", "0", catalogFile("c.json", 400)],
      { timeoutMs: 120_000 },
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `Another catalog publish or rollback is running: publish of big.json as version someone-elses (pid ${process.pid} on ${hostname()})`,
    );
    expect(refused.stderr).toContain("Nothing was done");
    expect(refused.stderr).toContain(lockPath);
    expect(refused.stderr).not.toMatch(STACK_FRAME);

    // A holder that died (a pid that no longer runs) mid-publish: its half-written version goes.
    rmSync(lockPath);
    const local = await openLocalEnv(state);
    await local.env.CATALOG.put("v/died-writing/ps/0", "{}");
    await local.dispose();
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
    writeFileSync(
      lockPath,
      JSON.stringify({ ...holder, token: "dead", pid: Number(dead.stdout), version: "died-writing" }),
    );
    const published = await runCli(
      "catalog-publish",
      ["--persist-to", persist, "--wait", "0", catalogFile("d.json", 500)],
      { timeoutMs: 120_000 },
    );
    expect(published.code, published.stderr).toBe(0);
    const left = await inspect(async (env) => (await env.CATALOG.list({ prefix: "v/died-writing/" })).keys.length);
    expect(left).toBe(0);
  }, 300_000);
});
