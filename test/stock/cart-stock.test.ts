import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { CatalogStore } from "../../src/catalog/store.ts";
import { stockStore } from "../../src/stock/store.ts";
import { addLine, cartCall, cartFrom, issueToken, readCart } from "../helpers/cart.ts";
import { publishSeedCatalog } from "../helpers/catalog.ts";

/** The seed's tracked variants (seed/catalog.json): Heavyweight Pocket Tee - Navy, M has 3 left, S none. */
const THREE_LEFT = "44102938475615";
const NONE_LEFT = "44102938475614";
const UNTRACKED = "44102938475616";

const stock = stockStore(env);
let batch = 0;
/** Sets levels as the operator would (its own batch id each time). */
async function setLevels(levels: Record<string, number>): Promise<void> {
  batch += 1;
  const changes = Object.entries(levels).map(([variantId, value], index) => ({
    index,
    variantId,
    op: "set" as const,
    value,
  }));
  const outcome = await stock.apply(`test-${batch}-${crypto.randomUUID()}`, "fp", "operator", changes);
  if (!outcome.ok) throw new Error(outcome.message);
}

beforeAll(async () => {
  const version = await publishSeedCatalog();
  const meta = await new CatalogStore(env.CATALOG).currentMeta();
  expect(meta?.version).toBe(version);
  // The publish's levels, as the first cart request of the version would write them.
  await stock.ensureSynced(meta!);
});

describe("add to cart checks live stock", () => {
  it("writes the published file's levels into the Stock objects once per version", async () => {
    const levels = await stock.levels([THREE_LEFT, NONE_LEFT, UNTRACKED]);
    expect(levels.get(THREE_LEFT)).toMatchObject({ tracked: true, quantity: 3, available_quantity: 3 });
    expect(levels.get(NONE_LEFT)).toMatchObject({ tracked: true, quantity: 0, in_stock: false });
    expect(levels.get(UNTRACKED)).toMatchObject({ tracked: false });
    const meta = (await new CatalogStore(env.CATALOG).currentMeta())!;
    const again = await stock.coordinator().syncVersion(meta.version);
    expect(again).toMatchObject({ version: meta.version, tracked: 2 });
    const log = await stock.movements(THREE_LEFT);
    expect(log.filter((m) => m.source === "publish")).toHaveLength(1);
  });

  it("answers 409 insufficient_stock with available_quantity for more than is left, and changes nothing", async () => {
    await setLevels({ [THREE_LEFT]: 3 });
    const { token } = await issueToken();
    const res = await addLine(token, THREE_LEFT, 4);
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({
      error: {
        type: "invalid_request_error",
        code: "insufficient_stock",
        param: "quantity",
        available_quantity: 3,
        message: "Only 3 left; the line would hold 4.",
      },
    });
    expect((await readCart(token)).lines).toEqual([]);
    const added = await cartFrom(await addLine(token, THREE_LEFT, 2));
    expect(added.lines[0]).toMatchObject({ variant_id: THREE_LEFT, quantity: 2, available: true, in_stock: true });
    // The line's total counts: 2 in the cart plus 2 more is above 3.
    const more = await addLine(token, THREE_LEFT, 2);
    expect(more.status).toBe(409);
    expect(await more.json()).toMatchObject({ error: { code: "insufficient_stock", available_quantity: 3 } });
    expect(await cartFrom(await addLine(token, THREE_LEFT, 1))).toMatchObject({ total_quantity: 3 });
  });

  it("answers 404 sold_out when nothing is left, and sells again once restocked without a publish", async () => {
    await setLevels({ [NONE_LEFT]: 0 });
    const { token } = await issueToken();
    const res = await addLine(token, NONE_LEFT, 1);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error: { type: "not_found_error", code: "sold_out", message: "Sold out", param: "variant_id" },
    });
    await setLevels({ [NONE_LEFT]: 5 });
    const cart = await cartFrom(await addLine(token, NONE_LEFT, 5));
    expect(cart.lines[0]).toMatchObject({ variant_id: NONE_LEFT, quantity: 5, available: true, in_stock: true });
  });

  it("shows per tracked line on a cart read whether its quantity is still in stock", async () => {
    await setLevels({ [THREE_LEFT]: 3 });
    const { token } = await issueToken();
    await cartFrom(await addLine(token, THREE_LEFT, 3));
    await cartFrom(await addLine(token, UNTRACKED, 2));
    await setLevels({ [THREE_LEFT]: 2 });
    let cart = await readCart(token);
    expect(cart.lines.map((l) => [l.variant_id, l.available, l.in_stock])).toEqual([
      [THREE_LEFT, true, false],
      [UNTRACKED, true, true],
    ]);
    await setLevels({ [THREE_LEFT]: 0 });
    cart = await readCart(token);
    expect(cart.lines[0]).toMatchObject({ available: false, in_stock: false });
    // A sold-out line is left out of the subtotal, as a catalog sell-out is.
    expect(cart.subtotal.amount).toBe("69.00");
    await setLevels({ [THREE_LEFT]: 10 });
    cart = await readCart(token);
    expect(cart.lines[0]).toMatchObject({ available: true, in_stock: true });
  });

  it("refuses to grow a tracked line past what is left (PATCH), and lets it shrink", async () => {
    await setLevels({ [THREE_LEFT]: 3 });
    const { token } = await issueToken();
    const cart = await cartFrom(await addLine(token, THREE_LEFT, 2));
    const lineId = cart.lines[0]!.id;
    const grow = await cartCall(token, `/cart/lines/${lineId}`, { method: "PATCH", body: { quantity: 5 } });
    expect(grow.status).toBe(409);
    expect(await grow.json()).toMatchObject({ error: { code: "insufficient_stock", available_quantity: 3 } });
    const ok = await cartFrom(
      await cartCall(token, `/cart/lines/${lineId}`, { method: "PATCH", body: { quantity: 3 } }),
    );
    expect(ok.lines[0]!.quantity).toBe(3);
  });

  it("counts units a checkout holds as gone", async () => {
    await setLevels({ [THREE_LEFT]: 3 });
    const held = await stock.hold(`chk-${crypto.randomUUID()}`, [{ variant_id: THREE_LEFT, quantity: 2 }]);
    expect(held.ok).toBe(true);
    const { token } = await issueToken();
    const res = await addLine(token, THREE_LEFT, 2);
    expect(res.status).toBe(409);
    expect(await res.json()).toMatchObject({ error: { available_quantity: 1 } });
  });
});
