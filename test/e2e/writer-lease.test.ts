import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openLocalEnv } from "../../src/cli/local-env.ts";
import { withLockedLocalState } from "../../src/cli/locked-state.ts";
import { d1Query, LockBusyError, sqlLock } from "../../src/publish/lock.ts";

/**
 * Issue 45 point 1: the local tools take the D1 lease too (src/cli/locked-state.ts), so
 * they take turns with the catalog writer Worker of a running `wrangler dev`, which cannot take
 * the lock file. The Worker's lease is stood in for by sqlLock over the same D1 with a random
 * token, as src/writer/apply.ts takes it, in a Miniflare of its own on the same state, as wrangler
 * dev's. Regression: catalog:apply --local applied a batch while
 * the Worker held the lease (the tools took only the file).
 */

const state = join(mkdtempSync(join(tmpdir(), "writer-lease-")), "v3");
afterAll(() => rmSync(join(state, ".."), { recursive: true, force: true }));

describe("the local tools and the catalog writer's D1 lease", () => {
  it("refuse while the Worker holds the lease, naming it, and go ahead once it is released", async () => {
    const worker = await openLocalEnv(state);
    const held = await sqlLock(d1Query(worker.env.BROWSE), { waitMs: 0 }).acquire({
      action: "batch",
      version: "from-the-worker",
      source: "POST /api/v1/operator/catalog/changes",
    });
    const tool = () =>
      withLockedLocalState(state, { action: "publish" }, { waitMs: 0, say: () => {} }, async () => "ran");
    const refused = await tool().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LockBusyError);
    expect((refused as Error).message).toMatch(
      /batch of POST \/api\/v1\/operator\/catalog\/changes as version from-the-worker/,
    );
    await held.release();
    await worker.dispose();
    expect(await tool()).toBe("ran");
  }, 120_000);
});
