/**
 * `npm exec -- node test/bench/stock.ts [--changes 100] [--seconds 5]`: live stock's figures
 * (issue 35) on the production bundle in workerd, as `npm run bench` runs it (production vars,
 * CATALOG_POINTER_TTL_MS 1000), on the seed catalog with the Canvas Market Tote tracked:
 * - time to visibility: an operator change that sells the tote out (or back in), until
 *   `GET /products/canvas-market-tote` answers it (404 sold_out / 200), p50 and max over N changes;
 * - hot catalog reads (product detail, list first page) with stock quiet, then with a change of
 *   availability every second (CPU per request and req/s side by side);
 * - add to cart of an untracked variant vs a tracked one (the stock check: one Stock object read).
 * Prints one JSON document on stdout.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildBundle } from "./bundle.ts";
import { issueTokens, publishInto, readSeedCatalog } from "./fixture.ts";
import { type LoadResult, runLoad } from "./load.ts";
import { startRuntime } from "./runtime.ts";

const { values: args } = parseArgs({
  options: { changes: { type: "string", default: "100" }, seconds: { type: "string", default: "5" } },
});
const CHANGES = Number(args.changes);
const SECONDS = Number(args.seconds);
const PORT = 8829;
const API = "/api/v1";
const TOTE = "canvas-market-tote";
const M_NAVY = "44102938475615";
const UNTRACKED = "44102938475602";

const say = (line: string) => process.stderr.write(`[stock bench] ${line}\n`);
const percentile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

const dir = await mkdtemp(join(tmpdir(), "stock-bench-"));
const secret = randomBytes(24).toString("base64url");
try {
  say("building the bundle");
  const bundle = await buildBundle(join(dir, "bundle"));
  const runtime = await startRuntime({ bundle, port: PORT, cacheAPI: true, extraVars: { OPERATOR_SECRET: secret } });
  try {
    const catalog = await readSeedCatalog();
    const tote = catalog.products.find((p) => p.handle === TOTE)!.variants[0]!;
    tote.inventory_quantity = 5;
    await publishInto(runtime.mf, catalog, runtime.workerdPid);
    const url = (path: string) => new URL(path, runtime.url);
    const change = async (variant: string, set: number) => {
      const res = await fetch(url(`${API}/operator/stock`), {
        method: "POST",
        headers: { Authorization: `Bearer ${secret}`, "Content-Type": "application/json" },
        body: JSON.stringify({ changes: [{ variant_id: variant, set }] }),
      });
      if (res.status !== 200) throw new Error(`stock change answered ${res.status}: ${await res.text()}`);
    };

    say(`time to visibility over ${CHANGES} changes`);
    const visible: number[] = [];
    for (let i = 0; i < CHANGES; i++) {
      const level = i % 2 === 0 ? 0 : 5;
      const started = performance.now();
      await change(tote.id, level);
      for (;;) {
        const res = await fetch(url(`${API}/products/${TOTE}`));
        await res.arrayBuffer();
        if (res.status === (level === 0 ? 404 : 200)) break;
        if (performance.now() - started > 70_000) throw new Error("a change was not visible within 70 s");
        await new Promise((r) => setTimeout(r, 10));
      }
      visible.push(performance.now() - started);
    }
    visible.sort((a, b) => a - b);

    const options = { url: runtime.url, connections: 10, durationS: SECONDS, workerdPid: runtime.workerdPid };
    const reads = (name: string) => ({
      name,
      requests: [
        { path: `${API}/products/essential-crew-tee-black` },
        { path: `${API}/products/${TOTE}` },
        { path: `${API}/products` },
      ],
      ok: [200, 404],
    });
    await change(tote.id, 5);
    say("hot catalog reads, stock quiet");
    await runLoad(reads("warm-up"), { ...options, durationS: 1 });
    const quiet = await runLoad(reads("hot reads, stock quiet"), options);
    say("hot catalog reads, availability changing every second");
    let flip = 0;
    const changer = setInterval(() => void change(tote.id, flip++ % 2 === 0 ? 0 : 5).catch(() => undefined), 1000);
    const busy = await runLoad(reads("hot reads, stock changing every second"), options);
    clearInterval(changer);

    say("add to cart: untracked vs tracked (stock check)");
    await change(M_NAVY, 1_000_000);
    const tokens = await issueTokens(runtime.mf, 50);
    const add = (variant: string) =>
      tokens.map((token) => ({
        method: "POST" as const,
        path: `${API}/cart/lines`,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ variant_id: variant, quantity: 1 }),
      }));
    await runLoad({ name: "warm-up", requests: add(UNTRACKED), ok: [200], amount: tokens.length }, options);
    await runLoad({ name: "warm-up", requests: add(M_NAVY), ok: [200], amount: tokens.length }, options);
    const untracked = await runLoad(
      { name: "add to cart, untracked variant", requests: add(UNTRACKED), ok: [200] },
      options,
    );
    const tracked = await runLoad(
      { name: "add to cart, tracked variant (stock check)", requests: add(M_NAVY), ok: [200] },
      options,
    );

    const row = (r: LoadResult) => ({
      name: r.name,
      rps: Math.round(r.rps),
      p50Ms: r.p50Ms,
      p99Ms: r.p99Ms,
      cpuUsPerRequest: r.workerdCpuUsPerRequest === undefined ? null : Math.round(r.workerdCpuUsPerRequest),
      errors: r.errors,
      statuses: r.statuses,
    });
    const figures = {
      timeToVisibilityMs: {
        changes: CHANGES,
        p50: Math.round(percentile(visible, 0.5)),
        max: Math.round(visible.at(-1) ?? 0),
      },
      hotReads: [row(quiet), row(busy)],
      hotReadsCpuRatio:
        quiet.workerdCpuUsPerRequest && busy.workerdCpuUsPerRequest
          ? Number((busy.workerdCpuUsPerRequest / quiet.workerdCpuUsPerRequest).toFixed(2))
          : null,
      addToCart: [row(untracked), row(tracked)],
      trackedToUntrackedRps: Number((tracked.rps / untracked.rps).toFixed(2)),
    };
    process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
  } finally {
    await runtime.dispose();
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
