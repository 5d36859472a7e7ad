import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { type Cart as CartView, CartSchema } from "../../src/cart/api.ts";
import { cartFor } from "../../src/cart/cart-client.ts";
import type { Cart } from "../../src/cart/cart-object.ts";
import { MIGRATIONS } from "../../src/cart/migrations.ts";
import { ErrorResponseSchema } from "../../src/http/errors.ts";
import { cartCall, cartFrom, issueToken, readCart, seedVariants, type SeedVariants } from "../helpers/cart.ts";
import { newShopper } from "../helpers/shopper.ts";

let seed: SeedVariants;
beforeAll(async () => {
  seed = await seedVariants();
});

function patchCart(token: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return cartCall(token, "/cart", { method: "PATCH", body, headers });
}

function addWith(token: string, variantId: string, quantity: number, attributes?: unknown): Promise<Response> {
  return cartCall(token, "/cart/lines", {
    method: "POST",
    body: { variant_id: variantId, quantity, ...(attributes !== undefined ? { attributes } : {}) },
  });
}

async function refusal(res: Response): Promise<{ code: string; param?: string | undefined }> {
  expect(res.status).toBe(400);
  return ErrorResponseSchema.parse(await res.json()).error;
}

describe("PATCH /cart: note and attributes", () => {
  it("sets the note and attributes; attributes replaces the set, null clears either, a field left out stays", async () => {
    const { token } = await newShopper();
    let cart = await cartFrom(
      await patchCart(token, { note: "Leave at the door", attributes: { Gift: "yes", Wrap: "red" } }),
    );
    expect(cart).toMatchObject({ note: "Leave at the door", attributes: { Gift: "yes", Wrap: "red" } });
    cart = await cartFrom(await patchCart(token, { attributes: { Occasion: "birthday" } }));
    expect(cart).toMatchObject({ note: "Leave at the door", attributes: { Occasion: "birthday" } });
    cart = await cartFrom(await patchCart(token, { note: null }));
    expect(cart).toMatchObject({ note: null, attributes: { Occasion: "birthday" } });
    cart = await cartFrom(await patchCart(token, { attributes: null }));
    expect(cart).toMatchObject({ note: null, attributes: {} });
    expect(await readCart(token)).toMatchObject({ note: null, attributes: {} });
  });

  it("stores and serves plain text exactly as written: markup, spaces, line breaks, accents and emoji", async () => {
    const { token } = await newShopper();
    const note = '  <b>Hi</b> & "quotes"\r\n\tsecond line é 🎁 ';
    const attributes = { " spaced key ": "<script>alert(1)</script>", "Ünïcode 🎁": "  trailing  " };
    await cartFrom(await patchCart(token, { note, attributes }));
    const raw = await (await cartCall(token, "/cart")).text();
    const cart = CartSchema.parse(JSON.parse(raw));
    expect(cart.note).toBe(note);
    expect(cart.attributes).toEqual(attributes);
  });

  it("returns a new cart's note as null and attributes as {}, also from POST /carts", async () => {
    const shopper = await newShopper();
    expect(shopper.cart).toMatchObject({ note: null, attributes: {} });
    expect(await readCart(shopper.token)).toMatchObject({ note: null, attributes: {} });
  });

  it("refuses what is over the limits with 400 and the field or key at fault in param, changing nothing", async () => {
    const { token } = await newShopper();
    const before = await cartFrom(await patchCart(token, { note: "kept", attributes: { kept: "yes" } }));
    const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, "v"]));
    const cases: [unknown, string, string][] = [
      [{ note: "x".repeat(5001) }, "parameter_invalid", "note"],
      [{ attributes: { ...fifty, k50: "v" } }, "parameter_invalid", "attributes"],
      [{ attributes: { ["k".repeat(101)]: "v" } }, "parameter_invalid", `attributes.${"k".repeat(101)}`],
      [{ attributes: { Engraving: "v".repeat(1001) } }, "parameter_invalid", "attributes.Engraving"],
      [{ attributes: { "": "v" } }, "parameter_invalid", "attributes."],
      [{ attributes: { Count: 3 } }, "parameter_invalid", "attributes.Count"],
      [{ attributes: ["a", "b"] }, "parameter_invalid", "attributes"],
      [{ note: 5 }, "parameter_invalid", "note"],
      [{ notes: "typo" }, "parameter_unknown", "notes"],
    ];
    for (const [body, code, param] of cases) {
      expect(await refusal(await patchCart(token, body)), JSON.stringify(body).slice(0, 60)).toMatchObject({
        code,
        param,
      });
    }
    // JSON.parse keeps __proto__ as a real key; it is refused by name, never silently dropped.
    const proto = await cartCall(token, "/cart", {
      method: "PATCH",
      body: '{"attributes":{"__proto__":"x","ok":"y"}}',
    });
    expect(await refusal(proto)).toMatchObject({ code: "parameter_invalid", param: "attributes.__proto__" });
    expect(await readCart(token)).toEqual(before);
  });

  it("counts characters as code points: 4,000 emoji (8,000 UTF-16 units) or 5,000 accented letters are a valid note, and 100-character keys are valid", async () => {
    const { token } = await newShopper();
    expect((await cartFrom(await patchCart(token, { note: "é".repeat(5000) }))).note).toHaveLength(5000);
    const note = "🎁".repeat(4000);
    const attributes = Object.fromEntries(
      Array.from({ length: 50 }, (_, i) => [`${String(i).padStart(2, "0")}${"é".repeat(98)}`, "🎁".repeat(1000)]),
    );
    expect((await cartFrom(await patchCart(token, { note }))).note).toBe(note);
    const small = Object.fromEntries(Object.entries(attributes).slice(0, 3));
    expect((await cartFrom(await patchCart(token, { attributes: small }))).attributes).toEqual(small);
    const keys = Object.fromEntries(Object.keys(attributes).map((key) => [key, "v"]));
    expect(Object.keys((await cartFrom(await patchCart(token, { attributes: keys }))).attributes)).toHaveLength(50);
  });

  it("honours an Idempotency-Key: the same request replays, another one with the key is 422", async () => {
    const { token } = await newShopper();
    const key = { "Idempotency-Key": "note-1" };
    await cartFrom(await patchCart(token, { note: "first" }, key));
    const changed = await cartFrom(await patchCart(token, { note: "changed meanwhile" }));
    const replay = await patchCart(token, { note: "first" }, key);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    // Nothing applied again; a success replays as the cart is now (issue 42, point 10: keys keep no cart).
    expect(await cartFrom(replay)).toEqual(changed);
    const reused = await patchCart(token, { note: "other" }, key);
    expect(reused.status).toBe(422);
    expect((await readCart(token)).note).toBe("changed meanwhile");
  });

  it("DELETE /cart empties the lines, the note and the attributes", async () => {
    const { token } = await newShopper();
    await cartFrom(await addWith(token, seed.available[0]!.id, 1));
    await cartFrom(await patchCart(token, { note: "n", attributes: { a: "b" } }));
    const emptied = await cartFrom(await cartCall(token, "/cart", { method: "DELETE" }));
    expect(emptied).toMatchObject({ lines: [], note: null, attributes: {} });
  });
});

describe("line attributes", () => {
  it("makes the same variant with other attributes another line, and the same attributes in any key order the same line", async () => {
    const { token } = await newShopper();
    const variant = seed.available[0]!.id;
    await cartFrom(await addWith(token, variant, 1));
    await cartFrom(await addWith(token, variant, 2, { Engraving: "A.B.", Font: "serif" }));
    let cart = await cartFrom(await addWith(token, variant, 3, { Font: "serif", Engraving: "A.B." }));
    cart = await cartFrom(await addWith(token, variant, 1, {}));
    cart = await cartFrom(await addWith(token, variant, 1, { Engraving: "C.D." }));
    expect(cart.lines.map((l) => [l.variant_id, l.quantity, l.attributes])).toEqual([
      [variant, 2, {}],
      [variant, 5, { Engraving: "A.B.", Font: "serif" }],
      [variant, 1, { Engraving: "C.D." }],
    ]);
    expect(cart.total_quantity).toBe(8);
  });

  it("refuses line attributes over the limits with the key at fault in param, adding nothing", async () => {
    const { token } = await newShopper();
    const variant = seed.available[0]!.id;
    expect(await refusal(await addWith(token, variant, 1, { Engraving: "v".repeat(1001) }))).toMatchObject({
      code: "parameter_invalid",
      param: "attributes.Engraving",
    });
    expect((await readCart(token)).lines).toEqual([]);
  });

  it("re-prices every line of a variant, whatever its attributes", async () => {
    const { token } = await newShopper();
    const variant = seed.available[0]!.id;
    await cartFrom(await addWith(token, variant, 1, { a: "1" }));
    const cart = await cartFrom(await addWith(token, variant, 1, { a: "2" }));
    expect(cart.lines.every((l) => l.available && l.unit_price.amount === cart.lines[0]!.unit_price.amount)).toBe(true);
    expect(cart.subtotal.amount).not.toBe("0.00");
  });
});

describe("migration 2 (note, attributes, line attributes)", () => {
  it("upgrades a cart created by the previous schema: its lines kept with no attributes, then lines split by attributes", async () => {
    const issued = await issueToken();
    const stub = cartFor(env, issued.holder);
    const variant = seed.available[0]!;
    await readCart(issued.token);
    // Rebuild the object's storage as schema 1 left it, with a line and the cart row.
    await runInDurableObject(stub, (_instance: Cart, state) => {
      const sql = state.storage.sql;
      for (const table of ["cart_lines", "cart", "revoked_tokens", "idempotency_keys", "schema_version"]) {
        sql.exec(`DROP TABLE IF EXISTS ${table}`);
      }
      sql.exec("CREATE TABLE schema_version (version INTEGER NOT NULL)");
      sql.exec("INSERT INTO schema_version (version) VALUES (1)");
      for (const statement of MIGRATIONS[0]!) sql.exec(statement);
      const now = Date.now();
      sql.exec(
        "INSERT INTO cart (singleton, created_at, updated_at, expires_at) VALUES (1, ?, ?, ?)",
        now,
        now,
        now + 1e9,
      );
      sql.exec(
        `INSERT INTO cart_lines (id, variant_id, position, quantity, handle, title, variant_title, unit_price_minor,
           currency, available, catalog_version) VALUES ('cl_fromschema1', ?, 1, 4, ?, ?, ?, ?, 'USD', 1, 'old-version')`,
        variant.id,
        variant.product_handle,
        variant.product_title,
        variant.title,
        variant.price_minor,
      );
    });
    await evictDurableObject(stub);
    const upgraded: CartView = await readCart(issued.token);
    expect(upgraded).toMatchObject({ note: null, attributes: {} });
    expect(upgraded.lines.map((l) => [l.id, l.quantity, l.attributes])).toEqual([["cl_fromschema1", 4, {}]]);
    await runInDurableObject(stub, (_instance: Cart, state) => {
      const version = state.storage.sql.exec<{ version: number }>("SELECT version FROM schema_version").one().version;
      expect(version).toBe(MIGRATIONS.length);
    });
    await cartFrom(await addWith(issued.token, variant.id, 1));
    const cart = await cartFrom(await addWith(issued.token, variant.id, 2, { Engraving: "A.B." }));
    expect(cart.lines.map((l) => [l.id === "cl_fromschema1", l.quantity, l.attributes])).toEqual([
      [true, 5, {}],
      [false, 2, { Engraving: "A.B." }],
    ]);
    await cartFrom(await patchCart(issued.token, { note: "after the upgrade" }));
    await evictDurableObject(stub);
    expect((await readCart(issued.token)).note).toBe("after the upgrade");
  });
});

describe("Idempotency-Key with attributes", () => {
  it("treats the same attributes in another key order as the same request: a replay, not a 422", async () => {
    const { token } = await newShopper();
    const key = { "Idempotency-Key": "attributes-order" };
    const variant = seed.available[0]!.id;
    const first = await cartCall(token, "/cart/lines", {
      method: "POST",
      body: { variant_id: variant, quantity: 1, attributes: { a: "1", b: "2" } },
      headers: key,
    });
    expect(first.status).toBe(200);
    const again = await cartCall(token, "/cart/lines", {
      method: "POST",
      body: { variant_id: variant, quantity: 1, attributes: { b: "2", a: "1" } },
      headers: key,
    });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    const patched = await patchCart(token, { attributes: { x: "1", y: "2" } }, { "Idempotency-Key": "cart-order" });
    expect(patched.status).toBe(200);
    const replay = await patchCart(token, { attributes: { y: "2", x: "1" } }, { "Idempotency-Key": "cart-order" });
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    const other = await patchCart(token, { attributes: { y: "3", x: "1" } }, { "Idempotency-Key": "cart-order" });
    expect(other.status).toBe(422);
    expect((await readCart(token)).lines.map((l) => l.quantity)).toEqual([1]);
  });
});
