import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildBundle } from "../bench/bundle.ts";
import { issueTokens } from "../bench/fixture.ts";
import { describeSoak, soak, type SoakOptions, soakPassed, startSoakRuntime, verify } from "../bench/soak.ts";

// A CI-sized `npm run soak` (test/bench/soak.ts): the same code, the same runtime (the production
// bundle in workerd through Miniflare, the cart rate limit raised as the bench raises it), fewer writes.
const SMOKE: SoakOptions = { clients: 5, writes: 300, carts: 10, hot: 60, seed: 7 };

let work: string;
let started: Awaited<ReturnType<typeof startSoakRuntime>>;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "storefront-soak-smoke-"));
  started = await startSoakRuntime(await buildBundle(join(work, "bundle")), SMOKE.carts);
});

afterAll(async () => {
  await started?.runtime.dispose();
  await rm(work, { recursive: true, force: true });
});

describe("soak smoke: concurrent cart writes in workerd", () => {
  it("applies every accepted write exactly once: adds and PATCHes, keyed, retried and raced, 0 lost, 0 doubled, 0 5xx", async () => {
    const f = await soak(started.runtime.url, SMOKE, started.tokens, started.hotToken, started.variants);
    expect(soakPassed(f), describeSoak(f)).toBe(true);
    expect(f).toMatchObject({
      lost: 0,
      doubled: 0,
      doubledKeys: 0,
      fiveXx: 0,
      networkErrors: 0,
      replayMismatches: 0,
      unexpected: {},
    });
    // Every planned write answered, and every kind of write was exercised.
    expect(f.applied).toBeGreaterThanOrEqual(SMOKE.writes + SMOKE.hot);
    expect(f.appliedPatches).toBeGreaterThan(0);
    expect(f.retried).toBeGreaterThan(0);
    expect(f.raced).toBeGreaterThan(0);
    expect(f.replayed).toBeGreaterThanOrEqual(f.retried);
    expect(f.lines).toBeGreaterThan(SMOKE.carts);
  });

  it("counts a unit the ledger does not hold as doubled, and one it holds but the cart lacks as lost", async () => {
    const [token] = await issueTokens(started.runtime.mf, 1);
    const variant = started.variants[0]!;
    const add = await fetch(new URL("/api/v1/cart/lines", started.runtime.url), {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ variant_id: variant, quantity: 2 }),
    });
    expect(add.status).toBe(200);
    expect(await verify(started.runtime.url, [token!], [new Map([[variant, 2]])])).toMatchObject({
      lost: 0,
      doubled: 0,
    });
    expect(await verify(started.runtime.url, [token!], [new Map([[variant, 1]])])).toMatchObject({
      lost: 0,
      doubled: 1,
    });
    expect(await verify(started.runtime.url, [token!], [new Map([[variant, 3]])])).toMatchObject({
      lost: 1,
      doubled: 0,
    });
  });
});
