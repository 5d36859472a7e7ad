import { evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { CHECKOUT_ID_PATTERN } from "../../src/checkout/api.ts";
import type { CartWithCheckouts } from "../../src/checkout/cart-host.ts";
import type { Checkouts } from "../../src/checkout/checkout-object.ts";
import { checkoutHost, checkoutsFor, madeBy } from "../../src/checkout/client.ts";
import { CURRENT_SCHEMA, MIGRATIONS } from "../../src/checkout/checkout-rows.ts";
import type { VariantRecord } from "../../src/catalog/store.ts";
import { addLine, cartCall, issueToken, readCart, seedVariants } from "../helpers/cart.ts";
import { checkoutFrom, operatorComplete, orderFrom, postCheckout, setStock, stockOf } from "../helpers/checkout.ts";
import { bothWays } from "../helpers/sqlite-schema.ts";

// docs/decisions/0016: a holder's checkouts live in its cart's object. A first checkout made a
// Checkouts object (a new SQLite database) and read the cart over RPC: most of its cost (issue 42
// point 20, test/bench/README.md "Where a checkout's time goes").

let variants: VariantRecord[];

beforeAll(async () => {
  variants = (await seedVariants()).available;
});

async function holderWith(index: number, quantity: number): Promise<{ token: string; holder: string }> {
  const issued = await issueToken();
  expect((await addLine(issued.token, variants[index]!.id, quantity)).status).toBe(200);
  return { token: issued.token, holder: issued.holder };
}

const tables = (state: DurableObjectState) =>
  state.storage.sql
    .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .toArray()
    .map((r) => r.name);

describe("a holder's checkouts in its cart's object", () => {
  it("makes the checkout in the cart's object, its id carrying that object's id; a cart never checked out has no checkout tables", async () => {
    const { token, holder } = await holderWith(0, 1);
    const cart = checkoutsFor(env, holder);
    const before = await runInDurableObject(cart, (_i: CartWithCheckouts, state) => tables(state));
    expect(before).toContain("cart_lines");
    expect(before).not.toContain("checkouts");

    const checkout = await checkoutFrom(await postCheckout(token));
    expect(CHECKOUT_ID_PATTERN.exec(checkout.id)?.[1]).toBe(env.CART.idFromName(holder).toString());
    expect(madeBy(env, holder, checkout.id)).toBe(true);
    const after = await runInDurableObject(cart, (_i: CartWithCheckouts, state) => ({
      tables: tables(state),
      rows: state.storage.sql.exec("SELECT id FROM checkouts").toArray(),
    }));
    expect(after.tables).toEqual(expect.arrayContaining(["cart_lines", "checkouts", "checkout_idempotency_keys"]));
    expect(after.rows).toEqual([{ id: checkout.id }]);
    // Nothing was kept in a Checkouts object for the holder (reaching one here makes its tables, empty).
    const legacy = env.CHECKOUTS.get(env.CHECKOUTS.idFromName(holder));
    const kept = await runInDurableObject(legacy, (_i: Checkouts, state) =>
      state.storage.sql.exec("SELECT COUNT(*) AS n FROM checkouts").one(),
    );
    expect(kept.n).toBe(0);
  });

  it("shares the object's one alarm: a checkout's expiry comes first, a cart write never pushes it back to the cart's", async () => {
    const { token, holder } = await holderWith(1, 1);
    const stub = checkoutsFor(env, holder);
    const alarm = () => runInDurableObject(stub, (_i: CartWithCheckouts, state) => state.storage.getAlarm());
    const checkout = await checkoutFrom(await postCheckout(token));
    const expiresAt = Date.parse(checkout.expires_at);
    expect(await alarm()).toBe(expiresAt);
    // A new instance's first cart write arms the alarm again: for the checkout, not 30 days out.
    await evictDurableObject(stub);
    expect((await addLine(token, variants[2]!.id, 1)).status).toBe(200);
    expect(await alarm()).toBe(expiresAt);

    // The checkout expires at its alarm; the alarm then waits for the cart's expiry.
    await runInDurableObject(stub, async (_i: CartWithCheckouts, state) => {
      state.storage.sql.exec("UPDATE checkouts SET expires_at = ? WHERE id = ?", Date.now() - 1, checkout.id);
      await state.storage.setAlarm(Date.now() - 1);
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await checkoutFrom(await cartCall(token, `/checkouts/${checkout.id}`), 200)).status).toBe("expired");
    const cart = await readCart(token);
    expect(cart.lines).toHaveLength(2);
    const next = await alarm();
    // The settled checkout is looked at again in 30 days, about when the cart expires: the earlier of the two.
    expect(next).toBeLessThanOrEqual(Date.parse(cart.expires_at));
    expect(next).toBeGreaterThan(Date.now() + 29 * 24 * 3600 * 1000);
  });

  it("creates the checkouts' tables at once exactly as their numbered migrations make them", async () => {
    const { holder } = await issueToken();
    // A Checkouts object keeps its version in schema_version, as bothWays reads it.
    const stub = env.CHECKOUTS.get(env.CHECKOUTS.idFromName(holder));
    await runInDurableObject(stub, (_i: Checkouts, state) => {
      const { stepByStep, atOnce, versions } = bothWays(state.storage.sql, MIGRATIONS, CURRENT_SCHEMA);
      expect(Object.keys(stepByStep)).toContain("table checkout_idempotency_keys");
      expect(atOnce).toEqual(stepByStep);
      expect(versions).toEqual([MIGRATIONS.length, MIGRATIONS.length, 0]);
    });
  });
});

describe("a checkout made in a Checkouts object before the move", () => {
  it("is still found by its id alone, answered to its holder and completed into an order that empties the cart", async () => {
    const a = variants[3]!;
    await setStock({ [a.id]: 5 });
    const { token, holder } = await holderWith(3, 2);
    // What a checkout made before the move looks like: the same record, in the holder's Checkouts object.
    const made = await checkoutFrom(await postCheckout(token));
    const row = await runInDurableObject(checkoutsFor(env, holder), (_i: CartWithCheckouts, state) =>
      state.storage.sql.exec("SELECT * FROM checkouts WHERE id = ?", made.id).one(),
    );
    expect((await cartCall(token, `/checkouts/${made.id}`, { method: "DELETE" })).status).toBe(200);
    const legacyId = env.CHECKOUTS.idFromName(holder);
    const id = `chk_${legacyId.toString()}Legacy0123456789`;
    await runInDurableObject(env.CHECKOUTS.get(legacyId), (_i: Checkouts, state) => {
      const sql = state.storage.sql;
      sql.exec("INSERT INTO holder (singleton, holder) VALUES (1, ?)", holder);
      sql.exec(
        "INSERT INTO checkouts (id, status, content, created_at, expires_at) VALUES (?, 'open', ?, ?, ?)",
        id,
        row.content,
        Date.now(),
        Date.now() + 600_000,
      );
    });

    expect(madeBy(env, holder, id)).toBe(true);
    const stranger = await issueToken();
    expect(madeBy(env, stranger.holder, id)).toBe(false);
    expect((await cartCall(stranger.token, `/checkouts/${id}`)).status).toBe(404);
    const shown = await checkoutFrom(await cartCall(token, `/checkouts/${id}`), 200);
    expect(shown).toMatchObject({ id, status: "open", total_quantity: 2, cost: made.cost });

    const order = await orderFrom(await operatorComplete(shown));
    expect(order).toMatchObject({ checkout_id: id, total_quantity: 2, payment_status: "paid" });
    expect((await stockOf(a.id)).available_quantity).toBe(3);
    expect((await readCart(token)).lines).toEqual([]);
  });

  it("is told from a cart's checkout by the id's own checksum: an id of neither namespace reaches nothing", async () => {
    const { holder } = await issueToken();
    const cartId = env.CART.idFromName(holder).toString();
    const legacyId = env.CHECKOUTS.idFromName(holder).toString();
    expect(() => env.CART.idFromString(legacyId)).toThrow();
    expect(() => env.CHECKOUTS.idFromString(cartId)).toThrow();
    expect(checkoutHost(env, `chk_${cartId}0123456789abcdef`)).not.toBeNull();
    expect(checkoutHost(env, `chk_${legacyId}0123456789abcdef`)).not.toBeNull();
    expect(checkoutHost(env, `chk_${"0".repeat(64)}0123456789abcdef`)).toBeNull();
  });
});
