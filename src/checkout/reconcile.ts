import * as z from "zod/mini";
import { STOCK_HISTORY_MS, type StockMovement } from "../stock/api.ts";
import { stockStore } from "../stock/store.ts";
import { checkoutHost } from "./client.ts";
import { OrdersStore } from "./orders.ts";
import { count } from "../count.ts";
import { CatalogStore } from "../catalog/store.ts";
import { counted, discountUses } from "../discounts/usage.ts";
import { DEFAULT_CURRENCY } from "../money.ts";
import { RulesStore } from "../rules/store.ts";

// Built by a pure arrow function called at once: the Worker never parses this answer, so the
// bundler leaves it out (docs/decisions/0009-schema-docs-out-of-the-worker.md).
export const DifferenceSchema = /* @__PURE__ */ (() =>
  z.object({
    kind: z.enum([
      "order_without_stock_commit",
      "commit_quantity_differs",
      "stock_commit_without_order",
      "hold_left_open",
      "payment_mismatch",
      "discount_use_without_order",
      "order_without_discount_use",
    ]),
    checkout_id: z.string(),
    order_id: z.nullable(z.string()),
    variant_id: z.nullable(z.string()),
    /** The counted discount, for the two discount kinds. */
    discount_id: z.optional(z.string()),
    expected: z.nullable(z.number().check(z.int())),
    found: z.nullable(z.number().check(z.int())),
    message: z.string(),
  }))();
export type Difference = z.infer<typeof DifferenceSchema>;

export const ReconciliationSchema = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal("reconciliation"),
    orders: z.number().check(z.int(), z.gte(0)),
    order_lines: z.number().check(z.int(), z.gte(0)),
    movements: z.number().check(z.int(), z.gte(0)),
    open_holds: z.number().check(z.int(), z.gte(0)),
    differences: z.array(DifferenceSchema),
  }))();
export type Reconciliation = z.infer<typeof ReconciliationSchema>;

/** Per checkout (the hold id), per variant: units committed and units still held, from the movement log. */
interface Ledger {
  committed: Map<string, number>;
  held: Map<string, number>;
}

function ledgerOf(map: Map<string, Ledger>, ref: string): Ledger {
  let ledger = map.get(ref);
  if (!ledger) {
    ledger = { committed: new Map(), held: new Map() };
    map.set(ref, ledger);
  }
  return ledger;
}

async function allMovements(env: Env): Promise<StockMovement[]> {
  const store = stockStore(env);
  const out: StockMovement[] = [];
  await Promise.all(
    Array.from({ length: store.shards }, async (_, shard) => {
      let after = 0;
      for (;;) {
        const page = await store.shard(shard).movements({ afterSeq: after, limit: 1000 });
        out.push(...page);
        if (page.length < 1000) break;
        after = page.at(-1)!.seq;
      }
    }),
  );
  return out;
}

/**
 * Whether `variantId` was not tracked when checkout `checkoutId` was paid: its shard committed
 * the checkout's hold without a line for it (stock skips untracked variants). An order of a
 * variant tracked only later is no difference (issue 42 point 9); a hold the shard never
 * committed is one.
 */
async function untrackedWhenPaid(env: Env, checkoutId: string, variantId: string): Promise<boolean> {
  const lines = await stockStore(env).shardFor(variantId).committedLines(checkoutId);
  return lines !== null && !lines.some((line) => line.variant_id === variantId);
}

/**
 * Compares what three places say about every sale: the orders (D1), the stock movement log (the
 * Stock shards) and the checkouts that hold units. A paid checkout must be one order whose every
 * tracked line was committed in stock for exactly its quantity, under the checkout's id; every
 * stock commit made by a checkout must have its order; a hold still holding units must belong to
 * an open checkout. `npm run orders -- check` prints the differences. A completion cut short (a
 * crash between the stock commit and the order) shows as `stock_commit_without_order` and is
 * cured by completing the checkout again.
 */
export async function reconcile(env: Env, now = Date.now()): Promise<Reconciliation> {
  const orders = new OrdersStore(env.ORDERS);
  const [rows, movements, mismatched] = await Promise.all([
    orders.unitsByOrder(),
    allMovements(env),
    orders.mismatched(now - STOCK_HISTORY_MS),
  ]);
  const ledgers = new Map<string, Ledger>();
  for (const m of movements) {
    if (m.source !== "checkout") continue;
    const ledger = ledgerOf(ledgers, m.ref);
    if (m.kind === "commit")
      ledger.committed.set(m.variant_id, (ledger.committed.get(m.variant_id) ?? 0) - m.delta_quantity);
    ledger.held.set(m.variant_id, (ledger.held.get(m.variant_id) ?? 0) + m.delta_held);
  }
  const checked = rows.filter((r) => r.created_at > now - STOCK_HISTORY_MS);
  const tracked = await stockStore(env).levels([...new Set(checked.map((r) => r.variant_id))]);
  // A payment that moved another amount than its checkout's total: written, but never a normal paid order.
  const differences: Difference[] = mismatched.map((order) => ({
    kind: "payment_mismatch",
    checkout_id: order.checkout_id,
    order_id: order.id,
    variant_id: null,
    expected: null,
    found: null,
    message: `Order ${order.id} was paid ${order.amount_paid?.amount} ${order.amount_paid?.currency}, not ${order.cost.total.amount} ${order.cost.total.currency}.`,
  }));
  const ordered = new Set(rows.map((r) => r.checkout_id));
  // Expected commits per checkout and variant (one order may name a variant on several lines).
  const expected = new Map<string, { order_id: string; checkout_id: string; variant_id: string; quantity: number }>();
  for (const r of checked) {
    if (!tracked.get(r.variant_id)?.tracked) continue;
    const key = `${r.checkout_id}\n${r.variant_id}`;
    const at = expected.get(key);
    if (at) at.quantity += r.quantity;
    else
      expected.set(key, { order_id: r.id, checkout_id: r.checkout_id, variant_id: r.variant_id, quantity: r.quantity });
  }
  for (const e of expected.values()) {
    const found = ledgers.get(e.checkout_id)?.committed.get(e.variant_id);
    if (found === undefined && (await untrackedWhenPaid(env, e.checkout_id, e.variant_id))) continue;
    if (found === undefined) {
      differences.push({
        kind: "order_without_stock_commit",
        checkout_id: e.checkout_id,
        order_id: e.order_id,
        variant_id: e.variant_id,
        expected: e.quantity,
        found: 0,
        message: `Order ${e.order_id} sold ${e.quantity} of ${e.variant_id}, but stock has no commit for its checkout.`,
      });
    } else if (found !== e.quantity) {
      differences.push({
        kind: "commit_quantity_differs",
        checkout_id: e.checkout_id,
        order_id: e.order_id,
        variant_id: e.variant_id,
        expected: e.quantity,
        found,
        message: `Order ${e.order_id} sold ${e.quantity} of ${e.variant_id}; stock committed ${found}.`,
      });
    }
  }
  let openHolds = 0;
  for (const [checkoutId, ledger] of ledgers) {
    if ([...ledger.committed.values()].some((q) => q !== 0) && !ordered.has(checkoutId)) {
      differences.push({
        kind: "stock_commit_without_order",
        checkout_id: checkoutId,
        order_id: null,
        variant_id: null,
        expected: null,
        found: null,
        message: `Stock was committed for checkout ${checkoutId}, which has no order: complete it again to write it.`,
      });
    }
    const held = [...ledger.held.values()].reduce((a, b) => a + b, 0);
    if (held <= 0) continue;
    openHolds += 1;
    const reply = await checkoutHost(env, checkoutId)?.getCheckout(checkoutId);
    const status = reply?.ok ? (JSON.parse(reply.json) as { status: string }).status : "unknown";
    // Reading a checkout past its expiry expires it and releases the hold: look again.
    const variant = [...ledger.held].find(([, units]) => units > 0)?.[0];
    const stillHeld =
      variant !== undefined && (await stockStore(env).shardFor(variant).holdState(checkoutId)) === "held";
    if (status !== "open" && stillHeld) {
      differences.push({
        kind: "hold_left_open",
        checkout_id: checkoutId,
        order_id: null,
        variant_id: null,
        expected: 0,
        found: held,
        message: `Checkout ${checkoutId} is ${status} but still holds ${count(held, "unit")} in stock.`,
      });
    }
  }
  differences.push(...(await discountDifferences(env, orders)));
  return {
    object: "reconciliation",
    orders: new Set(checked.map((r) => r.id)).size,
    order_lines: checked.length,
    movements: movements.length,
    open_holds: openHolds,
    differences,
  };
}

/**
 * Every counted discount of the live rules (usage_limit or once_per_buyer): its committed uses
 * (its usage object) against the orders that carry it (D1), checkout by checkout. A completion cut
 * short between the two shows until the checkout's alarm finishes it (or it is completed again).
 */
async function discountDifferences(env: Env, orders: OrdersStore): Promise<Difference[]> {
  const meta = await new CatalogStore(env.CATALOG).currentMeta();
  const live = meta ? await new RulesStore(env.CATALOG).live(meta.currency ?? DEFAULT_CURRENCY) : null;
  const uses = discountUses(env);
  const differences: Difference[] = [];
  for (const discount of (live?.rules.discounts ?? []).filter(counted)) {
    const [committed, carried] = await Promise.all([
      uses.committed(discount.id),
      orders.checkoutsWithDiscount(discount.id),
    ]);
    const ordered = new Set(carried);
    const spent = new Set(committed);
    for (const checkoutId of committed.filter((id) => !ordered.has(id)))
      differences.push(discountDifference("discount_use_without_order", discount.id, checkoutId));
    for (const checkoutId of carried.filter((id) => !spent.has(id)))
      differences.push(discountDifference("order_without_discount_use", discount.id, checkoutId));
  }
  return differences;
}

function discountDifference(
  kind: "discount_use_without_order" | "order_without_discount_use",
  discountId: string,
  checkoutId: string,
): Difference {
  return {
    kind,
    checkout_id: checkoutId,
    order_id: null,
    variant_id: null,
    discount_id: discountId,
    expected: null,
    found: null,
    message:
      kind === "discount_use_without_order"
        ? `Discount ${discountId} has a committed use by checkout ${checkoutId}, which has no order carrying it: complete it again.`
        : `The order of checkout ${checkoutId} carries discount ${discountId}, which has no committed use for it.`,
  };
}
