/**
 * `npm run soak [-- --clients 50 --writes 10000 --carts 50 --hot 2000 --seed 1 --json FILE]`:
 * many clients writing to carts at once, in workerd (the bench's runtime: the production bundle,
 * the seed catalog published, the cart rate limit raised as the bench raises it), then a check
 * that every accepted write was applied exactly once. Not part of CI; test/e2e/soak-smoke.test.ts
 * runs a small one inside `npm test`. test/README.md ("Soak") has the figures of a full run.
 *
 * Each client sends its writes one after another (so `--clients` is the concurrency): adds to any
 * cart, with and without an Idempotency-Key; PATCHes of lines it owns (one writer per such line,
 * so "known quantity + delta" is exact); some keyed writes retried later with the same key (they
 * must replay, even after the line changed since: a replay applies nothing and answers the cart as
 * it is then, never an older one), and some sent twice at once (exactly one may apply; the other
 * replays or answers 409 idempotency_key_in_use). A ledger sums the writes that
 * were applied (200 without `Idempotent-Replayed`) per cart and line; at the end every cart is
 * read and compared with it.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { SourceCatalog } from "../../src/catalog/schema.ts";
import { defineCli, UsageError } from "../../src/cli/args.ts";
import { seededRandom } from "../../src/publish/generate.ts";
import { buildBundle, type Bundle } from "./bundle.ts";
import { percentile } from "./figures.ts";
import { issueTokens, publishInto, readSeedCatalog } from "./fixture.ts";
import { BENCH_RATE_LIMIT, PeakSampler, processRssMiB, startRuntime } from "./runtime.ts";

export interface SoakOptions {
  /** Concurrent clients, each with one write in flight (two while it races a duplicate). */
  clients: number;
  /** Writes spread over `carts` carts. */
  writes: number;
  carts: number;
  /** Further writes, all to one hot cart. */
  hot: number;
  /** Seed of the pseudo-random plan, so a run can be repeated exactly. */
  seed: number;
}

export const FULL_SOAK: SoakOptions = { clients: 50, writes: 10_000, carts: 50, hot: 2_000, seed: 1 };

/** What a soak did and found. Any non-zero `lost`, `doubled`, `fiveXx`, `unexpected` or `networkErrors` fails it. */
export interface SoakFigures {
  options: SoakOptions;
  /** Logical writes sent (`writes + hot`); retries and raced duplicates are extra requests. */
  writes: number;
  requests: number;
  /** Writes applied (200 without Idempotent-Replayed), and of them PATCHes. */
  applied: number;
  appliedPatches: number;
  /** Keyed writes sent again after their first answer, and sent twice at once. */
  retried: number;
  raced: number;
  /** Retries and duplicates answered as replays (200, Idempotent-Replayed: true). */
  replayed: number;
  /** Raced duplicates answered 409 idempotency_key_in_use while the first was running. */
  inUse: number;
  /**
   * Replays that were not the cart as it is at the replay: not a cart, or older than the first
   * answer (a key keeps a small mark, not the answer, so a replay shows the cart now: issue 42
   * point 10, the guide's "Idempotency").
   */
  replayMismatches: number;
  /** Answers with any other status (none expected), by status. */
  unexpected: Record<string, number>;
  fiveXx: number;
  networkErrors: number;
  /** Lines compared at the end, and how many units the carts lacked or had too many against the ledger. */
  lines: number;
  lost: number;
  doubled: number;
  /** Idempotency-Keys applied more than once. */
  doubledKeys: number;
  durationS: number;
  requestsPerS: number;
  p50Ms: number;
  p99Ms: number;
  workerdPeakRssMiB?: number;
}

interface CartLine {
  id: string;
  variant_id: string;
  quantity: number;
}

/** Variants the seed can always sell: an available product's available variants. */
export function sellableVariants(catalog: SourceCatalog): string[] {
  return (
    catalog.products
      .filter((p) => p.available)
      // Untracked only: a tracked variant's live level (the seed's M / Navy has 3) refuses more adds.
      .flatMap((p) =>
        p.variants.filter((v) => v.available && v.inventory_quantity === undefined).map((v) => String(v.id)),
      )
  );
}

/** Lines owned by one client for PATCHes per ordinary cart, and at most this many in the hot cart. */
const OWNED_PER_CART = 2;
const OWNED_IN_HOT = 10;
const ADD_VARIANTS_PER_CART = 8;
const ADD_VARIANTS_HOT = 20;
const MAX_QUANTITY = 999;

/** One cart of the soak: its token, the variants anyone adds to, and the lines single clients own. */
interface SoakCart {
  token: string;
  adds: string[];
  /** variant → owning client */
  owned: Map<string, number>;
}

/** One planned write; PATCH bodies are decided when sent, from what the owner last saw. */
interface Op {
  cart: number;
  variant: string;
  kind: "add" | "own";
  quantity: number;
  key?: string;
  /** Send the same request twice at once. */
  race: boolean;
  /** Send it again, with the same key, after this many of the client's later writes. */
  retryAfter?: number;
}

/** The ledger: what each line must hold, per cart, if every applied write was applied once. */
type Ledger = Map<string, number>[];

function plan(
  options: SoakOptions,
  tokens: string[],
  hotToken: string,
  variants: string[],
): { carts: SoakCart[]; perClient: Op[][] } {
  const random = seededRandom(options.seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const ownedVariants = variants.slice(0, OWNED_IN_HOT);
  const addVariants = variants.slice(OWNED_IN_HOT);
  if (addVariants.length < ADD_VARIANTS_HOT)
    throw new Error(
      `the catalog has ${variants.length} sellable variants; the soak needs ${OWNED_IN_HOT + ADD_VARIANTS_HOT}`,
    );
  const carts: SoakCart[] = tokens.map((token, c) => {
    const start = (c * ADD_VARIANTS_PER_CART) % addVariants.length;
    const adds = Array.from(
      { length: ADD_VARIANTS_PER_CART },
      (_, i) => addVariants[(start + i) % addVariants.length]!,
    );
    const owned = new Map(
      ownedVariants.slice(0, OWNED_PER_CART).map((v, j) => [v, (c * OWNED_PER_CART + j) % options.clients] as const),
    );
    return { token, adds, owned };
  });
  const hotOwners = Math.min(options.clients, OWNED_IN_HOT);
  carts.push({
    token: hotToken,
    adds: addVariants.slice(0, ADD_VARIANTS_HOT),
    owned: new Map(ownedVariants.slice(0, hotOwners).map((v, j) => [v, j] as const)),
  });
  const hot = carts.length - 1;
  const ownedBy = Array.from({ length: options.clients }, () => [] as { cart: number; variant: string }[]);
  carts.forEach((cart, c) => {
    for (const [variant, client] of cart.owned) ownedBy[client]!.push({ cart: c, variant });
  });
  // The slots: `writes` to ordinary carts and `hot` to the hot cart, shuffled, dealt round-robin.
  const slots: boolean[] = [...Array<boolean>(options.writes).fill(false), ...Array<boolean>(options.hot).fill(true)];
  for (let i = slots.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [slots[i], slots[j]] = [slots[j]!, slots[i]!];
  }
  const planned = carts.map(() => new Map<string, number>());
  const perClient = Array.from({ length: options.clients }, () => [] as Op[]);
  slots.forEach((toHot, i) => {
    const client = i % options.clients;
    const mine = ownedBy[client]!.filter((o) => (o.cart === hot) === toHot);
    const keyed = random() < 0.4;
    const key = keyed ? `soak-${options.seed}-${i}` : undefined;
    const race = keyed && random() < 0.25;
    const retryAfter = keyed && !race && random() < 0.35 ? 1 + Math.floor(random() * 3) : undefined;
    let op: Op;
    if (mine.length > 0 && random() < 0.3) {
      const { cart, variant } = pick(mine);
      op = {
        cart,
        variant,
        kind: "own",
        quantity: 0,
        race,
        ...(key ? { key } : {}),
        ...(retryAfter ? { retryAfter } : {}),
      };
    } else {
      const cart = toHot ? hot : Math.floor(random() * options.carts);
      const quantity = 1 + Math.floor(random() * 3);
      // Keep every add line within the 999-unit cap, or the write would (rightly) be refused.
      const room = carts[cart]!.adds.filter((v) => (planned[cart]!.get(v) ?? 0) + quantity <= MAX_QUANTITY);
      if (room.length === 0)
        throw new Error(
          `cart ${cart} has no add line left under ${MAX_QUANTITY} units: lower --writes/--hot or raise --carts`,
        );
      const variant = pick(room);
      planned[cart]!.set(variant, (planned[cart]!.get(variant) ?? 0) + quantity);
      op = {
        cart,
        variant,
        kind: "add",
        quantity,
        race,
        ...(key ? { key } : {}),
        ...(retryAfter ? { retryAfter } : {}),
      };
    }
    perClient[client]!.push(op);
  });
  return { carts, perClient };
}

/** A write as sent: what it asks, and the units it adds to its line if applied. */
interface Written {
  method: "POST" | "PATCH";
  path: string;
  body: unknown;
  delta: number;
}

interface Sent {
  status: number;
  replayed: boolean;
  body: string;
}

/**
 * Runs the soak against a worker at `origin` whose seed catalog is published and whose tokens
 * (`options.carts` of them, plus one for the hot cart) are live; returns its figures.
 */
export async function soak(
  origin: URL,
  options: SoakOptions,
  tokens: string[],
  hotToken: string,
  variants: string[],
): Promise<SoakFigures> {
  const { carts, perClient } = plan(options, tokens, hotToken, variants);
  const ledger: Ledger = carts.map(() => new Map());
  const known = carts.map(() => new Map<string, { id: string; quantity: number }>());
  const appliedKeys = new Set<string>();
  let doubledKeys = 0;
  const latencies: number[] = [];
  const f = {
    requests: 0,
    applied: 0,
    appliedPatches: 0,
    retried: 0,
    raced: 0,
    replayed: 0,
    inUse: 0,
    replayMismatches: 0,
    fiveXx: 0,
    networkErrors: 0,
  };
  const unexpected: Record<string, number> = {};
  const random = seededRandom(options.seed + 1);

  async function send(
    method: string,
    path: string,
    token: string,
    body: unknown,
    key?: string,
  ): Promise<Sent | undefined> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    if (key) headers["idempotency-key"] = key;
    const started = performance.now();
    f.requests++;
    try {
      const res = await fetch(new URL(path, origin), { method, headers, body: JSON.stringify(body) });
      const text = await res.text();
      latencies.push(performance.now() - started);
      if (res.status >= 500) f.fiveXx++;
      return { status: res.status, replayed: res.headers.get("idempotent-replayed") === "true", body: text };
    } catch {
      f.networkErrors++;
      return undefined;
    }
  }

  /** The request an op makes, fixed when first sent so a retry repeats it exactly. */
  function request(op: Op): Written {
    const line = known[op.cart]!.get(op.variant);
    if (op.kind === "own" && line) {
      // Only this client writes this line, so its last answer is the line's quantity now.
      let delta = [-2, -1, 1, 2, 3][Math.floor(random() * 5)]!;
      if (line.quantity + delta < 1 || line.quantity + delta > MAX_QUANTITY) delta = -delta;
      return {
        method: "PATCH",
        path: `/api/v1/cart/lines/${line.id}`,
        body: { quantity: line.quantity + delta },
        delta,
      };
    }
    // An add; an owned line not created yet starts with one.
    const quantity = op.kind === "own" ? 1 + Math.floor(random() * 3) : op.quantity;
    return { method: "POST", path: "/api/v1/cart/lines", body: { variant_id: op.variant, quantity }, delta: quantity };
  }

  /**
   * Books an applied write in the ledger, and remembers an owned line's id and quantity. A key
   * applied a second time is a doubled write: counted, never booked, so the carts show it too.
   */
  function book(op: Op, { delta, method }: Written, answer: Sent): void {
    f.applied++;
    if (op.key && appliedKeys.has(op.key)) {
      doubledKeys++;
      return;
    }
    if (op.key) appliedKeys.add(op.key);
    if (method === "PATCH") f.appliedPatches++;
    const lines = ledger[op.cart]!;
    lines.set(op.variant, (lines.get(op.variant) ?? 0) + delta);
    if (carts[op.cart]!.owned.has(op.variant)) {
      const line = (JSON.parse(answer.body) as { lines: CartLine[] }).lines.find((l) => l.variant_id === op.variant);
      if (line) known[op.cart]!.set(op.variant, { id: line.id, quantity: line.quantity });
    }
  }

  /**
   * Whether `replay` is the cart as it is at the replay: a cart, and not older than `first` (the
   * answer the write first got). Carts' `updated_at` only moves forward.
   */
  function answersNow(replay: string, first: string): boolean {
    const now = JSON.parse(replay) as { object?: string; updated_at?: string };
    const then = JSON.parse(first) as { updated_at?: string };
    return now.object === "cart" && Date.parse(now.updated_at ?? "") >= Date.parse(then.updated_at ?? "");
  }

  function classify(
    answer: Sent | undefined,
    op: Op,
    req: Written,
    first: string | undefined,
    raced: boolean,
  ): "applied" | "replayed" | "in-use" | "other" {
    if (!answer) return "other";
    if (answer.status === 200 && !answer.replayed) {
      book(op, req, answer);
      return "applied";
    }
    if (answer.status === 200) {
      f.replayed++;
      if (first !== undefined && !answersNow(answer.body, first)) f.replayMismatches++;
      return "replayed";
    }
    if (answer.status === 409 && raced) {
      f.inUse++;
      return "in-use";
    }
    unexpected[answer.status] = (unexpected[answer.status] ?? 0) + 1;
    return "other";
  }

  async function client(index: number): Promise<void> {
    const retries: { op: Op; req: ReturnType<typeof request>; first: string; due: number }[] = [];
    const ops = perClient[index]!;
    for (let n = 0; n < ops.length || retries.length > 0; n++) {
      for (const r of retries.filter((x) => x.due <= n || n >= ops.length)) {
        retries.splice(retries.indexOf(r), 1);
        f.retried++;
        const again = await send(r.req.method, r.req.path, carts[r.op.cart]!.token, r.req.body, r.op.key);
        // A retry after the first answer must replay (apply nothing), however the line changed since.
        classify(again, r.op, r.req, r.first, false);
      }
      const op = ops[n];
      if (!op) continue;
      const req = request(op);
      const token = carts[op.cart]!.token;
      if (op.race) {
        f.raced++;
        const pair = await Promise.all([0, 1].map(() => send(req.method, req.path, token, req.body, op.key)));
        const outcomes = pair.map((a) => classify(a, op, req, undefined, true));
        // A duplicate that replays answers the cart no older than the one that ran answered.
        const ran = pair[outcomes.indexOf("applied")];
        const replay = pair[outcomes.indexOf("replayed")];
        if (ran && replay && !answersNow(replay.body, ran.body)) f.replayMismatches++;
        // Both 409 would mean neither ran: send it once more, alone, as a client would.
        if (outcomes.every((o) => o === "in-use"))
          classify(await send(req.method, req.path, token, req.body, op.key), op, req, undefined, false);
        continue;
      }
      const answer = await send(req.method, req.path, token, req.body, op.key);
      classify(answer, op, req, undefined, false);
      if (op.retryAfter && answer?.status === 200)
        retries.push({ op, req, first: answer.body, due: n + op.retryAfter });
    }
  }

  const started = performance.now();
  await Promise.all(perClient.map((_, i) => client(i)));
  const durationS = (performance.now() - started) / 1000;
  const check = await verify(
    origin,
    carts.map((c) => c.token),
    ledger,
  );
  latencies.sort((a, b) => a - b);
  return {
    options,
    writes: options.writes + options.hot,
    requests: f.requests,
    applied: f.applied,
    appliedPatches: f.appliedPatches,
    retried: f.retried,
    raced: f.raced,
    replayed: f.replayed,
    inUse: f.inUse,
    replayMismatches: f.replayMismatches,
    unexpected,
    fiveXx: f.fiveXx + check.fiveXx,
    networkErrors: f.networkErrors,
    lines: check.lines,
    lost: check.lost,
    doubled: check.doubled,
    doubledKeys,
    durationS,
    requestsPerS: f.requests / durationS,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
  };
}

/**
 * Reads every cart and compares each line with the ledger (variant → units). Units a cart lacks
 * are lost; units it has beyond the ledger (or a line the ledger does not know) are doubled.
 */
export async function verify(
  origin: URL,
  tokens: readonly string[],
  ledger: readonly ReadonlyMap<string, number>[],
): Promise<{ lines: number; lost: number; doubled: number; fiveXx: number }> {
  const out = { lines: 0, lost: 0, doubled: 0, fiveXx: 0 };
  for (const [c, token] of tokens.entries()) {
    const res = await fetch(new URL("/api/v1/cart", origin), { headers: { authorization: `Bearer ${token}` } });
    if (res.status >= 500) out.fiveXx++;
    if (res.status !== 200) throw new Error(`GET /api/v1/cart answered ${res.status} for cart ${c}`);
    const lines = ((await res.json()) as { lines: CartLine[] }).lines;
    const expected = ledger[c] ?? new Map<string, number>();
    const variants = new Set([...expected.keys(), ...lines.map((l) => l.variant_id)]);
    for (const variant of variants) {
      const want = expected.get(variant) ?? 0;
      const have = lines.find((l) => l.variant_id === variant)?.quantity ?? 0;
      out.lines++;
      if (have < want) out.lost += want - have;
      if (have > want) out.doubled += have - want;
    }
  }
  return out;
}

/** The runtime a soak needs: the bundle in workerd, the seed published, live tokens. */
export async function startSoakRuntime(bundle: Bundle, carts: number) {
  const runtime = await startRuntime({ bundle, port: 0, cacheAPI: true });
  try {
    const catalog = await readSeedCatalog();
    await publishInto(runtime.mf, catalog, runtime.workerdPid);
    const [hot, ...tokens] = await issueTokens(runtime.mf, carts + 1);
    return { runtime, tokens, hotToken: hot!, variants: sellableVariants(catalog) };
  } catch (error) {
    await runtime.dispose();
    throw error;
  }
}

/** True when nothing was lost, doubled, refused unexpectedly or answered with a 5xx. */
export function soakPassed(f: SoakFigures): boolean {
  return (
    f.lost === 0 &&
    f.doubled === 0 &&
    f.doubledKeys === 0 &&
    f.fiveXx === 0 &&
    f.networkErrors === 0 &&
    f.replayMismatches === 0 &&
    Object.keys(f.unexpected).length === 0 &&
    f.applied > 0
  );
}

export function describeSoak(f: SoakFigures): string {
  const o = f.options;
  const n = (x: number) => x.toLocaleString("en-US");
  return [
    `soak: ${o.clients} clients, ${n(o.writes)} writes over ${o.carts} carts + ${n(o.hot)} to one hot cart (seed ${o.seed}), rate limit ${n(BENCH_RATE_LIMIT)}/min`,
    `  ${n(f.requests)} requests in ${f.durationS.toFixed(1)} s: ${f.requestsPerS.toFixed(0)} req/s, p50 ${f.p50Ms.toFixed(1)} ms, p99 ${f.p99Ms.toFixed(1)} ms` +
      (f.workerdPeakRssMiB === undefined ? "" : `, workerd peak RSS ${f.workerdPeakRssMiB.toFixed(0)} MiB`),
    `  ${n(f.applied)} applied (${n(f.appliedPatches)} PATCHes); ${n(f.retried)} keyed writes retried after their answer, ${n(f.raced)} sent twice at once: ` +
      `${n(f.replayed)} replayed, ${n(f.inUse)} × 409 in use, ` +
      `${f.replayMismatches} replays not the cart as it is (older than the first answer)`,
    `  ${n(f.lines)} lines checked: ${f.lost} lost, ${f.doubled} doubled, ${f.doubledKeys} keys applied twice, ${f.fiveXx} 5xx, ` +
      `${f.networkErrors} network errors, unexpected statuses: ${JSON.stringify(f.unexpected)}`,
    `  ${soakPassed(f) ? "PASS: every accepted write applied exactly once" : "FAIL"}`,
  ].join("\n");
}

const cli = defineCli({
  command: "npm run soak",
  summary: `Many clients writing to carts at once, in workerd (the production bundle, the seed published),
then a check that every accepted write was applied exactly once. Exits 1 on any lost or doubled
unit, 5xx or unexpected status. test/README.md ("Soak") has the figures of a full run.`,
  options: {
    clients: {
      type: "integer",
      value: "N",
      min: 1,
      default: FULL_SOAK.clients,
      help: "clients, each with one write in flight",
    },
    writes: { type: "integer", value: "N", min: 0, default: FULL_SOAK.writes, help: "writes spread over the carts" },
    carts: { type: "integer", value: "N", min: 1, default: FULL_SOAK.carts, help: "carts" },
    hot: { type: "integer", value: "N", min: 0, default: FULL_SOAK.hot, help: "writes to one hot cart" },
    seed: { type: "integer", value: "N", min: 0, default: FULL_SOAK.seed, help: "the random seed" },
    json: { type: "string", value: "FILE", help: "also write the figures as JSON to FILE" },
  },
});

async function main(): Promise<void> {
  let args;
  try {
    args = cli.parse().values;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message} Run ${cli.helpCommand} for usage.\n`);
    process.exit(2);
  }
  const options: SoakOptions = {
    clients: args.clients,
    writes: args.writes,
    carts: args.carts,
    hot: args.hot,
    seed: args.seed,
  };
  const work = await mkdtemp(join(tmpdir(), "storefront-soak-"));
  try {
    process.stderr.write("[soak] building the production bundle\n");
    const bundle = await buildBundle(join(work, "bundle"));
    const { runtime, tokens, hotToken, variants } = await startSoakRuntime(bundle, options.carts);
    try {
      process.stderr.write(`[soak] ${options.clients} clients writing\n`);
      const rss = new PeakSampler(() => processRssMiB(runtime.workerdPid)).start();
      const figures = await soak(runtime.url, options, tokens, hotToken, variants);
      const peak = rss.stop();
      if (peak !== undefined) figures.workerdPeakRssMiB = peak;
      process.stdout.write(`${describeSoak(figures)}\n`);
      if (args.json) await writeFile(args.json, `${JSON.stringify(figures, null, 2)}\n`);
      if (!soakPassed(figures)) process.exitCode = 1;
    } finally {
      await runtime.dispose();
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
