import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli, STACK_FRAME, startUntil } from "../helpers/cli.ts";
import { withLockedLocalState } from "../../src/cli/locked-state.ts";
import { generateCatalog } from "../../src/publish/generate.ts";
import { bindingTarget } from "../../src/publish/publish.ts";
import { type Pointer, POINTER_KEY } from "../../src/catalog/layout.ts";

/**
 * Issue 33 point 3, with real processes on real local state: a `catalog:publish` killed with
 * kill -9 while it writes leaves no workerd running (workerd is started bound to its parent:
 * src/cli/workerd-bound.sh), and the next command that takes the lock (here `--list`) settles what
 * it left: its version deleted, named, never live. And the rollback's own guards: `--expect`
 * refuses when the live version moved, and a rollback that waited says what it rolls back from.
 */

const scratch = mkdtempSync(join(tmpdir(), "storefront-kill-"));
const persist = join(scratch, "state");
const state = join(persist, "v3");
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A generated catalog big enough that its publish runs for seconds, written to a file. */
function bigCatalog(name: string, seed: number): string {
  const file = join(scratch, name);
  writeFileSync(file, JSON.stringify(generateCatalog({ products: 6_000, seed })));
  return file;
}

/** The pids whose parent is `pid` (Linux /proc). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) out.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return out;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/^\S+ \S+ Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8").replace(/\(.*\)/, "x"));
  } catch {
    return false;
  }
}

async function livePointer(): Promise<Pointer | null> {
  return withLockedLocalState(state, { action: "rollback" }, { waitMs: 120_000, say: () => {} }, (local) =>
    local.env.CATALOG.get<Pointer>(POINTER_KEY, "json"),
  );
}

describe.skipIf(process.platform !== "linux")("a catalog:publish killed with kill -9 (issue 33 point 3)", () => {
  it("leaves no workerd running, and the next --list deletes its half-written version and says so", async () => {
    const base = await runCli("catalog-publish", ["--persist-to", persist], { timeoutMs: 120_000 });
    expect(base.code, base.stderr).toBe(0);
    const live = (await livePointer())?.current.version;
    expect(live).toBeTruthy();

    const file = bigCatalog("big.json", 7);
    const { child } = await startUntil(
      "catalog-publish",
      ["--persist-to", persist, "--version", "killed-mid-write", file],
      /entries written/,
    );
    const workerds = childrenOf(child.pid as number).filter((pid) =>
      readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("workerd"),
    );
    expect(workerds.length).toBeGreaterThan(0);
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    // Regression: each killed publish left its workerd running for minutes.
    const deadline = Date.now() + 5_000;
    while (workerds.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(workerds.filter(alive)).toEqual([]);

    const list = await runCli("catalog-rollback", ["--persist-to", persist, "--list"], { timeoutMs: 120_000 });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stderr).not.toMatch(STACK_FRAME);
    expect(list.stdout).toContain("An interrupted publish of killed-mid-write never went live");
    expect(list.stdout).not.toMatch(/publishing/);
    expect((await livePointer())?.current.version).toBe(live);
    const left = await withLockedLocalState(state, { action: "rollback" }, { waitMs: 120_000, say: () => {} }, (l) =>
      bindingTarget(l.env.CATALOG).listKeys("v/killed-mid-write/"),
    );
    expect(left).toEqual([]);
  }, 300_000);

  it("stopped with SIGTERM mid-write: exits, its workerd with it, and the next --list settles its version", async () => {
    const live = (await livePointer())?.current.version;
    const { child } = await startUntil(
      "catalog-publish",
      ["--persist-to", persist, "--version", "terminated-mid-write", bigCatalog("term.json", 9)],
      /entries written/,
    );
    const workerds = childrenOf(child.pid as number).filter((pid) =>
      readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("workerd"),
    );
    expect(workerds.length).toBeGreaterThan(0);
    const exited = new Promise<number | null>((resolve) =>
      child.once("exit", (code, signal) => resolve(code ?? (signal ? 128 + 15 : null))),
    );
    child.kill("SIGTERM");
    expect(await exited).toBe(143);
    const deadline = Date.now() + 5_000;
    while (workerds.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(workerds.filter(alive)).toEqual([]);
    const list = await runCli("catalog-rollback", ["--persist-to", persist, "--list"], { timeoutMs: 120_000 });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain("An interrupted publish of terminated-mid-write never went live");
    expect((await livePointer())?.current.version).toBe(live);
  }, 300_000);

  it("rollback --expect refuses when the live version moved; a rollback that waited says what it rolls back from", async () => {
    const before = (await livePointer())?.current.version as string;
    const refused = await runCli("catalog-rollback", ["--persist-to", persist, "--expect", "not-the-live-one"], {
      timeoutMs: 120_000,
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`Refused: the live catalog is ${before}, not not-the-live-one (--expect)`);
    expect(refused.stderr).not.toMatch(STACK_FRAME);
    expect((await livePointer())?.current.version).toBe(before);

    // A publish holds the lock; the rollback started meanwhile waits, then rolls back from the new version.
    const file = bigCatalog("next.json", 8);
    const publishing = await startUntil(
      "catalog-publish",
      ["--persist-to", persist, "--version", "published-meanwhile", file],
      /Catalog is valid/,
    );
    const rollback = runCli("catalog-rollback", ["--persist-to", persist], { timeoutMs: 240_000 });
    await new Promise((resolve) => publishing.child.once("exit", resolve));
    const rolled = await rollback;
    expect(rolled.code, rolled.stderr).toBe(0);
    expect(rolled.stdout).toMatch(/Waiting up to 600 s for another catalog operation to end: publish/);
    expect(rolled.stdout).toContain(
      `The wait is over: catalog published-meanwhile is live now; rolling back from published-meanwhile to ${before}.`,
    );
    expect(rolled.stdout).toContain(`Rolled back from published-meanwhile: catalog ${before} is live again`);
  }, 400_000);
});
