import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { withLockedLocalState } from "../../src/cli/locked-state.ts";
import { HISTORY_KEY, type HistoryEntry, type Pointer, POINTER_KEY } from "../../src/catalog/layout.ts";
import { generateCatalog } from "../../src/publish/generate.ts";
import { bindingTarget } from "../../src/publish/publish.ts";
import { runCli, STACK_FRAME, startUntil } from "../helpers/cli.ts";

/**
 * Issue 45 point 1, with real processes on real local state, as publish-kill.test.ts does for a
 * publish: a `catalog:apply` killed with kill -9 while it writes its version leaves the live
 * version whole (the pointer still names the version before, every answer of it readable) and
 * the history gap-free (no entry half-written, the next holder of the lock settles what the
 * batch left and deletes its entries); the next batch then applies as if nothing happened.
 */

const scratch = mkdtempSync(join(tmpdir(), "storefront-batch-kill-"));
const persist = join(scratch, "state");
const state = join(persist, "v3");
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const catalog = generateCatalog({ products: 6_000, seed: 11 });

/** A batch of `n` price changes (spread over the catalog, so it writes many entries), as a file. */
function priceBatch(name: string, n: number, price: string): string {
  const file = join(scratch, name);
  const step = Math.floor(catalog.products.length / n);
  const upsert = Array.from({ length: n }, (_, i) => {
    const p = structuredClone(catalog.products[i * step]);
    for (const v of p?.variants ?? []) v.price = price;
    return p;
  });
  writeFileSync(file, JSON.stringify({ upsert }));
  return file;
}

async function read(): Promise<{ pointer: Pointer | null; history: HistoryEntry[]; left: string[] }> {
  return withLockedLocalState(state, { action: "rollback" }, { waitMs: 120_000, say: () => {} }, async (local) => ({
    pointer: await local.env.CATALOG.get<Pointer>(POINTER_KEY, "json"),
    history: (await local.env.CATALOG.get<HistoryEntry[]>(HISTORY_KEY, "json")) ?? [],
    left: await bindingTarget(local.env.CATALOG).listKeys("v/batch-killed/"),
  }));
}

describe.skipIf(process.platform !== "linux")("a catalog:apply killed with kill -9 (issue 45 point 1)", () => {
  it("leaves the live version whole and the history gap-free; the next --list deletes what it wrote", async () => {
    const file = join(scratch, "catalog.json");
    writeFileSync(file, JSON.stringify(catalog));
    const published = await runCli("catalog-publish", ["--persist-to", persist, file], { timeoutMs: 240_000 });
    expect(published.code, published.stderr).toBe(0);
    const before = await read();
    expect(before.pointer?.current.version).toBeTruthy();

    const { child, out } = await startUntil(
      "catalog-apply",
      ["--persist-to", persist, "--version", "batch-killed", priceBatch("killed.json", 1_000, "1.11")],
      /entries written/,
    );
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    expect(out()).not.toContain("Pointer switched");

    const list = await runCli("catalog-rollback", ["--persist-to", persist, "--list"], { timeoutMs: 120_000 });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stderr).not.toMatch(STACK_FRAME);
    expect(list.stdout).toContain("An interrupted publish of batch-killed never went live");
    expect(list.stdout).not.toMatch(/publishing/);
    const after = await read();
    expect(after.pointer).toEqual(before.pointer);
    expect(after.left).toEqual([]);
    // Gap-free: every entry completed or marked abandoned, numbered one after another.
    expect(after.history.map((e) => e.seq)).toEqual(after.history.map((_, i) => (after.history[0]?.seq ?? 1) + i));
    expect(after.history.filter((e) => e.state === "publishing")).toEqual([]);
    expect(after.history.filter((e) => e.version === "batch-killed").every((e) => e.state === "abandoned")).toBe(true);

    // The next batch applies on the version the killed one left live.
    const next = await runCli("catalog-apply", ["--persist-to", persist, priceBatch("next.json", 10, "2.22")], {
      timeoutMs: 240_000,
    });
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toContain(`Previous: ${before.pointer?.current.version}`);
    const done = await read();
    expect(done.history.at(-1)).toMatchObject({ action: "batch", from: before.pointer?.current.version });
    expect(done.history.at(-1)?.state).toBeUndefined();
  }, 600_000);
});
