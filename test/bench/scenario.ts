import type { SourceCatalog } from "../../src/catalog/schema.ts";
import { POINTER_KEY, type Pointer } from "../../src/catalog/layout.ts";
import { DEFAULT_SHARD_PRODUCTS, shardCount } from "../../src/browse/shards.ts";
import { type PublishCatalog, productAt } from "../../src/publish/catalog-input.ts";
import type { Bundle } from "./bundle.ts";
import { type Counts, countWorkloads } from "./counting.ts";
import { issueTokens, measureColdStart, publishInto, type PublishFigures } from "./fixture.ts";
import type { CliPublish } from "./publish-cli.ts";
import { type LoadOptions, type LoadResult, probe, runLoad, warmUp, type Workload } from "./load.ts";
import {
  applyBareCeiling,
  applyCartCeilings,
  CART_CEILING_FIELDS,
  CHECKOUT_LIMITED_ROW,
  CHECKOUT_ROWS,
  type CartCeilingField,
  type CeilingFigures,
  PLAIN_ADD,
  RULES_ROWS,
  type Scenario,
  SHOPPER_CART_ROWS,
  STOCK_ROWS,
  type StockVisibility,
  type WorkloadFigures,
} from "./report.ts";
import { BENCH_CART_TOKEN_SECRET, BENCH_OPERATOR_SECRET, PeakSampler, processRssMiB, startRuntime } from "./runtime.ts";
import { issueShopperToken } from "../../src/auth/shopper-token.ts";
import {
  bareWorkloads,
  cartCeilingWorkloads,
  cartWorkloads,
  issueCartFloorWorkload,
  issueCartWorkload,
  shopperCartWorkloads,
  catalogWorkloads,
  ceilingWorkload,
  checkoutCompleteWorkload,
  checkoutCreateWorkload,
  checkoutFloorWorkload,
  checkoutStripeWorkload,
  openCheckouts,
  setStock,
  stockTrackedAdd,
  stockFlipTarget,
  stockProductPage,
  stockReadWorkloads,
  trackedAddWorkload,
  withEtags,
} from "./workloads.ts";
import { applyD1Migrations } from "../../src/cli/d1-migrations.ts";
import { StripeStandIn } from "../stripe/stand-in.ts";
import type { Currency } from "../../src/money.ts";
import type { RulesDocument } from "../../src/rules/schema.ts";
import {
  LIMITED_CODE_RULES,
  manyDiscounts,
  patchCarts,
  publishRules,
  rulesAddWorkloads,
  setBuyers,
  zonesAndTax,
} from "./rules-workloads.ts";

/** How long and how hard each workload runs, and which ones (`--only`). */
export interface RunSettings {
  connections: number;
  durationS: number;
  warmupS: number;
  cartTokens: number;
  /** Requests per workload in the counting pass (sequential, so cheap at any machine load). */
  countedRequests: number;
  /** Live stock: how many operator changes the time to visibility is measured over. */
  stockChanges: number;
  selected: (workload: Workload) => boolean;
}

/** Progress goes to stderr, so stdout holds only the report (pipe it into a file as is). */
export function log(message: string): void {
  process.stderr.write(`[bench] ${message}\n`);
}

/** Probe, warm up (duration workloads only), then the measured run. */
async function measure(workload: Workload, options: LoadOptions, settings: RunSettings): Promise<WorkloadFigures> {
  const reason = await probe(workload, options.url);
  if (reason) {
    log(`  ${workload.name}: not measured (${reason})`);
    return { name: workload.name, skipped: reason };
  }
  await warmUp(workload, options, settings.warmupS);
  const result = await runLoad(workload, options);
  log(`  ${workload.name}: ${result.rps.toFixed(0)} req/s, p50 ${result.p50Ms.toFixed(2)} ms, ${result.errors} errors`);
  return { ...result, ratioToCeiling: Number.NaN };
}

/** One runtime's job: which catalog, served how, and whether to publish it and drive the cart. */
export interface ScenarioInput {
  label: string;
  /** The catalog served: objects (then it can be published here), or read from its file (a ProductList). */
  catalog: PublishCatalog;
  port: number;
  persistPath: string;
  edgeCache: boolean;
  /**
   * true: publish `catalog` into the runtime from this process (publishInto; it must then be a
   * SourceCatalog). A CliPublish: catalog:publish already published it into `persistPath`
   * (publish-cli.ts); the runtime checks it serves that version, then measures the cold start.
   * false: published by an earlier scenario.
   */
  publish: boolean | CliPublish;
  cart: boolean;
  /** Live stock's read rows and time to visibility (STOCK_ROWS): the large catalog, edge cache on. */
  stock?: boolean;
  /** Products per browse shard (PublishOptions.shardProducts); the default when absent. */
  shardProducts?: number;
}

/**
 * The counting pass over a catalog's persisted state: per-request KV reads, KV bytes and Cache
 * API calls of every workload, with and without the edge cache (see counting.ts).
 */
export async function countScenario(
  bundle: Bundle,
  input: Pick<ScenarioInput, "label" | "catalog" | "port" | "persistPath" | "cart">,
  settings: RunSettings,
): Promise<{ catalog: string; edgeCache: boolean; counts: Counts[] }[]> {
  const out: { catalog: string; edgeCache: boolean; counts: Counts[] }[] = [];
  for (const edgeCache of [true, false]) {
    const { label, catalog, cart } = input;
    const runtime = await startRuntime({
      bundle,
      port: input.port,
      cacheAPI: edgeCache,
      persistPath: input.persistPath,
      counting: true,
    });
    try {
      const workloads: Workload[] = [];
      for (const w of catalogWorkloads(catalog).filter(settings.selected)) {
        const ready = w.name === "304 revalidation" ? await withEtags(w, runtime.url) : w;
        if (typeof ready !== "string") workloads.push(ready);
      }
      if (cart && edgeCache) {
        const tokens = await issueTokens(runtime.mf, settings.countedRequests + 1);
        workloads.push(...cartWorkloads(catalog, tokens.slice(1), tokens[0]!).filter(settings.selected));
      }
      out.push({
        catalog: label,
        edgeCache,
        counts: await countWorkloads(runtime.url, workloads, settings.countedRequests, true),
      });
    } finally {
      await runtime.dispose();
    }
  }
  return out;
}

/** The mean of two CPU-per-request figures; undefined when either run could not read it. */
function meanCpu(a: LoadResult, b: LoadResult): number | undefined {
  return a.workerdCpuUsPerRequest === undefined || b.workerdCpuUsPerRequest === undefined
    ? undefined
    : (a.workerdCpuUsPerRequest + b.workerdCpuUsPerRequest) / 2;
}

/** A ceiling run before and after what it bounds (the machine is shared): mean req/s and CPU per request, the rest from the first run. */
function bracket(before: LoadResult, after: LoadResult, healthRps: number): CeilingFigures {
  const rps = (before.rps + after.rps) / 2;
  const peaks = [before.workerdPeakRssMiB, after.workerdPeakRssMiB].filter((x) => x !== undefined);
  return {
    ...before,
    rps,
    workerdCpuUsPerRequest: meanCpu(before, after),
    errors: before.errors + after.errors,
    workerdPeakRssMiB: peaks.length > 0 ? Math.max(...peaks) : undefined,
    runs: [before.rps, after.rps],
    ratioToCeiling: rps / healthRps,
  };
}

/**
 * The cart workloads, each right after its own cart ceiling (entry.ts) and followed by the
 * ceiling again, so a ratio compares runs seconds apart: new objects (and new carts) first,
 * which also creates the objects and carts the existing-object runs cycle over.
 */
async function measureCart(
  input: ScenarioInput,
  runtime: Awaited<ReturnType<typeof startRuntime>>,
  options: LoadOptions,
  settings: RunSettings,
  standIn: StripeStandIn | undefined,
): Promise<{ workloads: WorkloadFigures[]; ceilings: Partial<Record<CartCeilingField, [LoadResult, LoadResult]>> }> {
  const workloads: WorkloadFigures[] = [];
  const ceilings: Partial<Record<CartCeilingField, [LoadResult, LoadResult]>> = {};
  // The checkout workloads need the carts the cart workloads fill, so selecting one runs them too.
  const checkoutRows = [...Object.values(CHECKOUT_ROWS), CHECKOUT_LIMITED_ROW].filter(({ workload }) =>
    settings.selected({ name: workload, requests: [], ok: [] }),
  );
  const selected = [
    ...cartWorkloads(input.catalog, ["t"], "t").map((w) => w.name),
    ...checkoutRows.map((row) => row.workload),
  ].filter((name) => settings.selected({ name, requests: [], ok: [] }));
  // The rules and checkout rows run on the distinct carts and are judged against the plain add: measure it too.
  const rulesSelected = RULES_ROWS.some(({ workload }) => settings.selected({ name: workload, requests: [], ok: [] }));
  if ((rulesSelected || checkoutRows.length > 0) && !selected.includes(PLAIN_ADD)) selected.push(PLAIN_ADD);
  const shopperSelected = [...shopperCartWorkloads(input.catalog, ["t"]), issueCartWorkload].some(settings.selected);
  const trackedSelected = settings.selected({ name: STOCK_ROWS.trackedAdd, requests: [], ok: [] });
  if (selected.length === 0 && !shopperSelected && !trackedSelected) return { workloads, ceilings };
  log(`  issuing ${settings.cartTokens + 1} tokens`);
  const tokens = await issueTokens(runtime.mf, settings.cartTokens + 1);
  const [hot, ...distinct] = tokens;
  const carts = cartWorkloads(input.catalog, distinct, hot!);
  const first = cartCeilingWorkloads(distinct.length, "a");
  const again = cartCeilingWorkloads(distinct.length, "b");
  for (const { field, workload: name } of CART_CEILING_FIELDS) {
    const cart = carts.find((w) => w.name === name)!;
    if (!selected.includes(name)) {
      // Not measured, but the existing-object runs need their objects and carts to exist.
      if (field === "cartCeilingNewObjects") {
        await runLoad(first.cartCeilingNewObjects, options);
        await runLoad(cart, options);
      }
      continue;
    }
    const before = await measure(first[field], options, settings);
    workloads.push(await measure(cart, options, settings));
    const after = await measure(again[field], options, settings);
    if ("skipped" in before || "skipped" in after) {
      workloads.push("skipped" in before ? before : after);
      continue;
    }
    ceilings[field] = [before, after];
  }
  const rulesRows = rulesAddWorkloads(carts.find((w) => w.name === PLAIN_ADD)!.requests).filter(settings.selected);
  if (rulesRows.length > 0)
    workloads.push(...(await measureRulesAdds(input, runtime, distinct, rulesRows, options, settings)));
  if (trackedSelected) workloads.push(await measureTrackedAdd(input, runtime, distinct, options, settings));
  if (shopperSelected) workloads.push(...(await measureShopperCarts(input, distinct.length, options, settings)));
  // Checkout (contract 9.4), on the carts the workloads above filled: create (plain, with a
  // limited code, with Stripe), then complete. The limited code is judged against the plain create.
  if (checkoutRows.length > 0) {
    const create = checkoutCreateWorkload(distinct);
    const limited: Workload = { ...create, name: CHECKOUT_LIMITED_ROW.workload };
    const stripe = checkoutStripeWorkload(distinct);
    // The orders database, as npm run dev and a deploy migrate it.
    await applyD1Migrations((await runtime.mf.getD1Database("ORDERS")) as unknown as D1Database);
    const created = settings.selected(create) || settings.selected(limited);
    // The floor first, on the cart ceiling's objects of round a (made with the carts, idle as long).
    if (created) workloads.push(await measure(checkoutFloorWorkload(distinct.length), options, settings));
    if (created) workloads.push(await measure(create, options, settings));
    if (settings.selected(limited))
      workloads.push(await measureLimitedCode(runtime, distinct, limited, options, settings));
    if (settings.selected(stripe)) {
      if (!standIn) throw new Error("the Stripe row needs the runtime started with the stand-in");
      // Each cart's checkout made again, as after the create row: the holders' checkout tables exist.
      if (!created) await openCheckouts(runtime.url, distinct);
      workloads.push(await measureStripe(stripe, standIn, options, settings));
    }
    const ids = await openCheckouts(runtime.url, distinct);
    const complete = checkoutCompleteWorkload(ids, BENCH_OPERATOR_SECRET);
    if (settings.selected(complete)) workloads.push(await measure(complete, options, settings));
  }
  return { workloads, ceilings };
}

/**
 * The creates with Stripe (issue 43): every answer must have made its Checkout Session at the
 * stand-in, so a create that answered 201 without one (the Worker not in Stripe mode) counts as
 * an error of the row, not as a fast create.
 */
async function measureStripe(
  row: Workload,
  standIn: StripeStandIn,
  options: LoadOptions,
  settings: RunSettings,
): Promise<WorkloadFigures> {
  const made = () => standIn.seen.filter((s) => s.path === "/v1/checkout/sessions" && s.status === 200).length;
  const before = made();
  const figures = await measure(row, options, settings);
  if ("skipped" in figures) return figures;
  const missing = figures.requests - (made() - before);
  if (missing > 0) {
    figures.errors += missing;
    figures.statuses["201 without a Stripe session"] = missing;
  }
  return figures;
}

/**
 * The checkout creates again with one usage-limited code entered in every cart (issue 44): the
 * code is published and entered (unmeasured), the row runs, then `{}` is published, so the code
 * is unknown again for the rows after it (the carts keep it, inapplicable: no use is reserved).
 */
async function measureLimitedCode(
  runtime: Awaited<ReturnType<typeof startRuntime>>,
  tokens: readonly string[],
  row: Workload,
  options: LoadOptions,
  settings: RunSettings,
): Promise<WorkloadFigures> {
  await publishRules(runtime.url, BENCH_OPERATOR_SECRET, LIMITED_CODE_RULES);
  try {
    log(`  entering the limited code in ${tokens.length} carts`);
    await patchCarts(runtime.url, tokens, { discount_codes: ["BENCH5"] });
    return await measure(row, options, settings);
  } finally {
    await publishRules(runtime.url, BENCH_OPERATOR_SECRET, {});
  }
}

/**
 * The cart add with a rules document live (issues 43 and 44), on the carts the rows above filled:
 * each cart first gets a buyer in the first zone (unmeasured), then each document is published
 * through the operator surface and its row runs the plain add's requests; `{}` is published at
 * the end, so the rows after it (tracked add, checkout) run as without rules.
 */
async function measureRulesAdds(
  input: ScenarioInput,
  runtime: Awaited<ReturnType<typeof startRuntime>>,
  tokens: readonly string[],
  rows: readonly Workload[],
  options: LoadOptions,
  settings: RunSettings,
): Promise<WorkloadFigures[]> {
  const currency = (input.catalog.currency ?? "USD") as Currency;
  const documents: Record<string, RulesDocument> = {
    [RULES_ROWS[0].workload]: zonesAndTax(currency),
    [RULES_ROWS[1].workload]: manyDiscounts(currency),
  };
  log(`  setting the buyer of ${tokens.length} carts`);
  await setBuyers(runtime.url, tokens);
  const figures: WorkloadFigures[] = [];
  try {
    for (const row of rows) {
      await publishRules(runtime.url, BENCH_OPERATOR_SECRET, documents[row.name]!);
      figures.push(await measure(row, options, settings));
    }
  } finally {
    await publishRules(runtime.url, BENCH_OPERATOR_SECRET, {});
  }
  return figures;
}

/**
 * The tracked add (issue 35): the distinct-carts adds of one tracked variant, each also reading
 * its Stock object, between two runs of the existing-object cart ceiling (round a's objects, as
 * the distinct-carts row). The variant's level is first set to 1,000,000 through the operator
 * surface, far above what a run can add, so every add answers 200. Runs before the checkout rows,
 * whose checkouts then hold (and complete) real stock of that variant.
 */
async function measureTrackedAdd(
  input: ScenarioInput,
  runtime: Awaited<ReturnType<typeof startRuntime>>,
  tokens: readonly string[],
  options: LoadOptions,
  settings: RunSettings,
): Promise<WorkloadFigures> {
  const workload = trackedAddWorkload(input.catalog, tokens);
  if (!workload) return { name: STOCK_ROWS.trackedAdd, skipped: "the catalog tracks no variant's stock" };
  await stockTrackedAdd(runtime.url, BENCH_OPERATOR_SECRET, workload);
  // Each run (ceiling, row, ceiling) first touches every one of its objects (`objectPerRequest`).
  const ceiling = cartCeilingWorkloads(tokens.length, "a").cartCeiling;
  const before = await measure(ceiling, options, settings);
  const row = await measure(workload, options, settings);
  const after = await measure(ceiling, options, settings);
  if (!("skipped" in row) && !("skipped" in before) && !("skipped" in after))
    row.ratioToCartCeiling = row.rps / ((before.rps + after.rps) / 2);
  return row;
}

/**
 * Live stock on a catalog (issue 35): first the time to visibility (quiet: one change at a time,
 * `settings.stockChanges` of them, each flipping a tracked variant between 0 and 5 units and
 * polling `GET /products/{handle}?include=variants` every 10 ms until that variant's `available`
 * answers it), then
 * the read rows while the same variant flips every second. A change the operator surface refuses
 * during a read row counts as one of that row's errors.
 */
async function measureStock(
  input: ScenarioInput,
  runtime: Awaited<ReturnType<typeof startRuntime>>,
  options: LoadOptions,
  settings: RunSettings,
): Promise<{ workloads: WorkloadFigures[]; visibility?: StockVisibility }> {
  const workloads: WorkloadFigures[] = [];
  const flip = stockFlipTarget(input.catalog);
  const reads = flip ? stockReadWorkloads(input.catalog, flip).filter(settings.selected) : [];
  const visibilitySelected = settings.selected({ name: STOCK_ROWS.visibility, requests: [], ok: [] });
  if (!flip) {
    if (visibilitySelected || reads.length > 0) log("  live stock: the catalog tracks no variant to flip");
    return { workloads };
  }
  const change = (level: number) =>
    setStock(runtime.url, BENCH_OPERATOR_SECRET, [{ variant_id: flip.variantId, set: level }]);
  let visibility: StockVisibility | undefined;
  if (visibilitySelected) {
    const times: number[] = [];
    const detail = new URL(stockProductPage(flip.handle), runtime.url);
    for (let i = 0; i < settings.stockChanges; i++) {
      const level = i % 2 === 0 ? 0 : 5;
      const started = performance.now();
      await change(level);
      for (;;) {
        const res = await fetch(detail);
        const body = (await res.json()) as { variants?: { id: string; available: boolean }[] };
        const shown = body.variants?.find((v) => v.id === flip.variantId)?.available;
        if (res.status === 200 && shown === level > 0) break;
        if (performance.now() - started > 70_000)
          throw new Error(`a stock change of ${flip.variantId} was not visible in ${detail.pathname} within 70 s`);
        await new Promise((r) => setTimeout(r, 10));
      }
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    visibility = {
      changes: times.length,
      p50Ms: times[Math.min(times.length - 1, Math.floor(0.5 * times.length))] ?? Number.NaN,
      maxMs: times.at(-1) ?? Number.NaN,
    };
    log(
      `  ${STOCK_ROWS.visibility}: p50 ${visibility.p50Ms.toFixed(0)} ms, max ${visibility.maxMs.toFixed(0)} ms over ${visibility.changes} changes`,
    );
  }
  for (const workload of reads) {
    await change(5);
    let flips = 0;
    let refused = 0;
    const changer = setInterval(() => {
      change(flips++ % 2 === 0 ? 0 : 5).catch(() => {
        refused++;
      });
    }, 1000);
    try {
      const row = await measure(workload, options, settings);
      if (!("skipped" in row) && refused > 0) {
        row.errors += refused;
        row.statuses["operator stock change refused"] = refused;
      }
      workloads.push(row);
    } finally {
      clearInterval(changer);
    }
  }
  await change(5);
  return { workloads, ...(visibility ? { visibility } : {}) };
}

/**
 * The shopper-token rows: each between two runs of the cart ceiling it is judged against (new
 * objects of their own rounds, or round a's existing ones), its ratio set here; then POST /carts,
 * judged against the bare Worker like the reads. Shopper tokens are signed here with the bench's
 * CART_TOKEN_SECRET, as POST /carts would sign them (that route is measured on its own).
 */
async function measureShopperCarts(
  input: ScenarioInput,
  count: number,
  options: LoadOptions,
  settings: RunSettings,
): Promise<WorkloadFigures[]> {
  const out: WorkloadFigures[] = [];
  const now = Date.now();
  const tokens = await Promise.all(
    Array.from({ length: count }, async () => (await issueShopperToken(BENCH_CART_TOKEN_SECRET, now)).token),
  );
  const rows = shopperCartWorkloads(input.catalog, tokens);
  const brackets: Record<(typeof SHOPPER_CART_ROWS)[number]["field"], [Workload, Workload]> = {
    cartCeilingNewObjects: [
      cartCeilingWorkloads(count, "c").cartCeilingNewObjects,
      cartCeilingWorkloads(count, "d").cartCeilingNewObjects,
    ],
    cartCeiling: [cartCeilingWorkloads(count, "a").cartCeiling, cartCeilingWorkloads(count, "a").cartCeiling],
  };
  for (const { field, workload: name } of SHOPPER_CART_ROWS) {
    const row = rows.find((w) => w.name === name)!;
    if (!settings.selected(row)) {
      // Not measured, but the distinct-carts row needs the carts the new-carts row creates.
      if (field === "cartCeilingNewObjects") await runLoad(row, options);
      continue;
    }
    const [first, second] = brackets[field];
    const before = await measure(first, options, settings);
    const measured = await measure(row, options, settings);
    const after = await measure(second, options, settings);
    if (!("skipped" in measured) && !("skipped" in before) && !("skipped" in after)) {
      measured.ratioToCartCeiling = measured.rps / ((before.rps + after.rps) / 2);
    }
    out.push(measured);
  }
  if (settings.selected(issueCartWorkload)) {
    out.push(await measure(issueCartFloorWorkload, options, settings));
    out.push(await measure(issueCartWorkload, options, settings));
  }
  return out;
}

/** The bare ceilings (entry.ts), each warmed up and then measured: run before and after a scenario's workloads. */
async function measureBare(
  options: LoadOptions,
  settings: RunSettings,
): Promise<Record<keyof typeof bareWorkloads, LoadResult>> {
  const out = {} as Record<keyof typeof bareWorkloads, LoadResult>;
  for (const [field, workload] of Object.entries(bareWorkloads) as [
    keyof typeof bareWorkloads,
    (typeof bareWorkloads)[keyof typeof bareWorkloads],
  ][]) {
    await runLoad(workload, { ...options, durationS: settings.warmupS });
    out[field] = await runLoad(workload, options);
    log(
      `  ${workload.name}: ${out[field].rps.toFixed(0)} req/s, ${(out[field].workerdCpuUsPerRequest ?? Number.NaN).toFixed(0)} µs of workerd CPU per request`,
    );
  }
  return out;
}

/** One runtime: start, (publish), ceilings, workloads, ceilings again, dispose; workerd's RSS sampled throughout. */
export async function runScenario(
  bundle: Bundle,
  input: ScenarioInput,
  settings: RunSettings,
  onStarted: (ms: number) => void,
  onPublished: (figures: PublishFigures) => void,
): Promise<Scenario> {
  log(
    `${input.label} catalog (${input.catalog.products.length} products), edge cache ${input.edgeCache ? "on" : "off"}`,
  );
  // The checkout with Stripe calls the local stand-in (test/stripe/stand-in.ts), in this process,
  // so workerd's CPU per request leaves its time out.
  const stripeSelected = input.cart && settings.selected({ name: CHECKOUT_ROWS.stripe.workload, requests: [], ok: [] });
  const standIn = stripeSelected ? new StripeStandIn() : undefined;
  standIn?.warm();
  const runtime = await startRuntime({
    bundle,
    port: input.port,
    cacheAPI: input.edgeCache,
    persistPath: input.persistPath,
    ...(standIn ? { stripeApiBase: await standIn.start() } : {}),
  });
  onStarted(runtime.startToFirstResponseMs);
  try {
    if (input.publish === true) {
      log(`  publishing ${input.catalog.products.length} products`);
      if (!Array.isArray(input.catalog.products)) throw new Error("publishInto takes a catalog held as objects");
      const catalog = input.catalog as SourceCatalog;
      const figures = await publishInto(runtime.mf, catalog, runtime.workerdPid, input.shardProducts);
      log(`  published ${figures.entries} KV entries in ${(figures.ms / 1000).toFixed(1)} s`);
      onPublished(figures);
    } else if (input.publish) {
      await servesPublished(runtime, input.catalog, input.publish.version);
      const shards = shardCount(input.catalog.products.length, input.shardProducts ?? DEFAULT_SHARD_PRODUCTS);
      log(`  cold start of ${input.publish.version} (${shards} shard${shards > 1 ? "s" : ""})`);
      const coldStart = await measureColdStart(runtime.mf, input.publish.version, shards);
      onPublished({ ...input.publish.figures, coldStart });
    }
    const afterStartMiB = processRssMiB(runtime.workerdPid);
    const rss = new PeakSampler(() => processRssMiB(runtime.workerdPid)).start();
    const options: LoadOptions = {
      url: runtime.url,
      connections: settings.connections,
      durationS: settings.durationS,
      workerdPid: runtime.workerdPid,
    };
    const bareBefore = await measureBare(options, settings);
    await runLoad(ceilingWorkload, { ...options, durationS: settings.warmupS });
    const ceiling = await runLoad(ceilingWorkload, options);
    log(`  ceiling: ${ceiling.rps.toFixed(0)} req/s, p50 ${ceiling.p50Ms.toFixed(2)} ms`);
    const workloads: WorkloadFigures[] = [];
    for (const w of catalogWorkloads(input.catalog).filter(settings.selected)) {
      const ready = w.name === "304 revalidation" ? await withEtags(w, runtime.url) : w;
      workloads.push(
        typeof ready === "string" ? { name: w.name, skipped: ready } : await measure(ready, options, settings),
      );
    }
    const stock = input.stock ? await measureStock(input, runtime, options, settings) : { workloads: [] };
    workloads.push(...stock.workloads);
    const cart = input.cart
      ? await measureCart(input, runtime, options, settings, standIn)
      : { workloads: [], ceilings: {} };
    workloads.push(...cart.workloads);
    // The ceiling again at the end: the machine is shared, so the ratio uses the mean of both.
    const after = await runLoad(ceilingWorkload, options);
    log(`  ceiling again: ${after.rps.toFixed(0)} req/s`);
    const bareAfter = await measureBare(options, settings);
    const peakMiB = rss.stop();
    const afterWorkloadsMiB = processRssMiB(runtime.workerdPid);
    log(
      `  workerd RSS: ${mib(afterStartMiB)} MiB after start, peak ${mib(peakMiB)} MiB, ${mib(afterWorkloadsMiB)} MiB after the workloads`,
    );
    const ceilingRps = (ceiling.rps + after.rps) / 2;
    for (const w of workloads) if ("ratioToCeiling" in w) w.ratioToCeiling = w.rps / ceilingRps;
    const scenario: Scenario = {
      catalog: input.label,
      products: input.catalog.products.length,
      edgeCache: input.edgeCache,
      ceiling: { ...ceiling, rps: ceilingRps, workerdCpuUsPerRequest: meanCpu(ceiling, after) },
      ceilingRuns: [ceiling.rps, after.rps],
      workloads,
      workerdRss: { afterStartMiB, peakMiB, afterWorkloadsMiB },
      ...(stock.visibility ? { stockVisibility: stock.visibility } : {}),
    };
    for (const [field, runs] of Object.entries(cart.ceilings) as [CartCeilingField, [LoadResult, LoadResult]][]) {
      scenario[field] = bracket(runs[0], runs[1], ceilingRps);
    }
    for (const field of ["bareWorker", "bareHono"] as const)
      scenario[field] = bracket(bareBefore[field], bareAfter[field], ceilingRps);
    applyCartCeilings(scenario);
    applyBareCeiling(scenario);
    return scenario;
  } finally {
    await runtime.dispose();
    await standIn?.stop();
  }
}

/**
 * Fails unless the runtime serves `version` of `catalog` (what catalog:publish published into
 * its persist dir): the pointer names it with the catalog's product count, and the first list
 * page starts with the catalog's first product.
 */
export async function servesPublished(
  runtime: Awaited<ReturnType<typeof startRuntime>>,
  catalog: PublishCatalog,
  version: string,
): Promise<void> {
  const kv = (await runtime.mf.getKVNamespace("CATALOG")) as unknown as KVNamespace;
  const pointer = await kv.get<Pointer>(POINTER_KEY, "json");
  if (pointer?.current.version !== version || pointer.current.products !== catalog.products.length)
    throw new Error(
      `the runtime's state serves ${pointer ? `${pointer.current.version} (${pointer.current.products} products)` : "no catalog"}, ` +
        `not the ${catalog.products.length} products catalog:publish published as ${version}`,
    );
  const response = await fetch(new URL("/api/v1/products?limit=1", runtime.url));
  const page = (await response.json()) as { data?: { handle: string }[] };
  const first = catalog.products.length > 0 ? productAt(catalog.products, 0).handle : undefined;
  if (response.status !== 200 || page.data?.[0]?.handle !== first)
    throw new Error(`the runtime's first product is ${page.data?.[0]?.handle}, the catalog file's ${first}`);
  log(`  serves ${version}, published by catalog:publish (${catalog.products.length} products)`);
}

const mib = (x: number | undefined) => (x === undefined ? "-" : x.toFixed(0));
