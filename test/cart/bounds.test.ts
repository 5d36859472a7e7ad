import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { MAX_CART_ATTRIBUTE_BYTES } from "../../src/cart/api.ts";
import { cartFor } from "../../src/cart/cart-client.ts";
import type { Cart } from "../../src/cart/cart-object.ts";
import { ErrorResponseSchema } from "../../src/http/errors.ts";
import { cartCall, cartFrom, issueToken, readCart, seedVariants, type SeedVariants } from "../helpers/cart.ts";

/**
 * Issue 42, point 10: one cart could grow to 320 MB (every keyed add stored its whole answer for
 * 24 h) and its note and attributes without bound. A cart's attribute bytes are capped, and a
 * key keeps only what a replay needs.
 */
let seed: SeedVariants;
beforeAll(async () => {
  seed = await seedVariants();
});

const EURO = "€"; // 3 bytes of UTF-8, 1 character

function add(token: string, body: Record<string, unknown>, key?: string): Promise<Response> {
  return cartCall(token, "/cart/lines", {
    method: "POST",
    body,
    ...(key ? { headers: { "Idempotency-Key": key } } : {}),
  });
}

function patchCart(token: string, body: unknown): Promise<Response> {
  return cartCall(token, "/cart", { method: "PATCH", body });
}

async function ledgerRows(holder: string): Promise<{ key: string; reply: string }[]> {
  return runInDurableObject(cartFor(env, holder), (_instance: Cart, state) =>
    state.storage.sql.exec<{ key: string; reply: string }>("SELECT key, reply FROM idempotency_keys").toArray(),
  );
}

describe("a cart's attribute bytes", () => {
  it(`holds exactly ${MAX_CART_ATTRIBUTE_BYTES} bytes of note and attributes, its lines' included, and refuses one more with 400 attributes_too_large, changing nothing`, async () => {
    const { token } = await issueToken("attribute budget");
    const variant = seed.available[0]!.id;
    // 21 lines of 3 + 3,000 bytes (a key of 3 ASCII characters, a value of 1,000 three-byte ones).
    for (let i = 0; i < 21; i += 1) {
      const attributes = { [`k${String(i).padStart(2, "0")}`]: EURO.repeat(1000) };
      expect((await add(token, { variant_id: variant, quantity: 1, attributes })).status).toBe(200);
    }
    const used = 21 * 3003;
    const rest = MAX_CART_ATTRIBUTE_BYTES - used;
    const full = await cartFrom(await patchCart(token, { note: "n".repeat(rest - 4), attributes: { ab: "cd" } }));
    expect(full.lines).toHaveLength(21);

    const refusals: [Promise<Response>, string][] = [
      [patchCart(token, { note: "n".repeat(rest - 3) }), "note"],
      [patchCart(token, { attributes: { ab: "cde" } }), "attributes"],
      [add(token, { variant_id: variant, quantity: 1, attributes: { x: "" } }), "attributes"],
    ];
    for (const [pending, param] of refusals) {
      const res = await pending;
      expect(res.status).toBe(400);
      const { error } = ErrorResponseSchema.parse(await res.json());
      expect(error).toMatchObject({ type: "invalid_request_error", code: "attributes_too_large", param });
      expect(error.message).toContain("65,536 bytes");
    }
    expect(await readCart(token)).toEqual(full);

    // What adds no bytes still works: more units on a line, a smaller note, an add without attributes.
    const line = full.lines[0]!;
    const grown = await cartFrom(
      await add(token, { variant_id: variant, quantity: 2, attributes: { k00: EURO.repeat(1000) } }),
    );
    expect(grown.lines.find((l) => l.id === line.id)?.quantity).toBe(3);
    expect((await patchCart(token, { note: "short" })).status).toBe(200);
    expect((await add(token, { variant_id: variant, quantity: 1 })).status).toBe(200);
    // The bytes freed by the shorter note can be spent again.
    expect((await add(token, { variant_id: variant, quantity: 1, attributes: { x: "y" } })).status).toBe(200);
  });

  it("counts UTF-8 bytes, not characters or JSON escapes: a four-byte emoji counts 4, an escaped control character 1", async () => {
    const { token } = await issueToken("byte counting");
    // 16,384 emoji = 65,536 bytes: the whole budget, sent over four requests (each under 16 KiB of JSON).
    const emoji = "🎁".repeat(1000);
    for (let i = 0; i < 16; i += 1) {
      const attributes = { [`k${String(i).padStart(2, "0")}`]: emoji };
      expect((await add(token, { variant_id: seed.available[0]!.id, quantity: 1, attributes })).status).toBe(200);
    }
    // 16 × (3 + 4,000) = 64,048 bytes; \u0001 is 6 bytes of JSON but 1 of text.
    const left = MAX_CART_ATTRIBUTE_BYTES - 16 * 4003;
    expect((await patchCart(token, { note: "\u0001".repeat(left) })).status).toBe(200);
    const res = await patchCart(token, { note: "\u0001".repeat(left + 1) });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: "attributes_too_large", param: "note" } });
  });
});

describe("Idempotency-Key replays stay small", () => {
  it("keeps no copy of the cart under a key: a success is stored as a mark of a few bytes, a refusal whole", async () => {
    const issued = await issueToken("small replays");
    const attributes = { Engraving: EURO.repeat(1000) };
    const first = await add(issued.token, { variant_id: seed.available[0]!.id, quantity: 1, attributes }, "big-add");
    expect(first.status).toBe(200);
    expect((await first.arrayBuffer()).byteLength).toBeGreaterThan(3000);
    const refused = await add(issued.token, { variant_id: seed.soldOut[0]!.id, quantity: 1 }, "sold-out-add");
    expect(refused.status).toBe(404);
    const rows = new Map((await ledgerRows(issued.holder)).map((row) => [row.key, row.reply]));
    expect(rows.get("big-add")).toBe('{"ok":true}');
    expect(JSON.parse(rows.get("sold-out-add")!)).toMatchObject({ ok: false, failure: { code: "sold_out" } });
    expect(rows.get("sold-out-add")!.length).toBeLessThan(200);
  });

  it("replays a success with the cart as it is at the replay, applying nothing again", async () => {
    const { token } = await issueToken("replay renders");
    const [a, b] = seed.available;
    const body = { variant_id: a!.id, quantity: 2 };
    const first = await cartFrom(await add(token, body, "replay-me"));
    const same = await add(token, body, "replay-me");
    expect(same.headers.get("idempotent-replayed")).toBe("true");
    expect(await cartFrom(same)).toEqual(first);

    const later = await cartFrom(await add(token, { variant_id: b!.id, quantity: 1 }));
    const replay = await add(token, body, "replay-me");
    expect(replay.status).toBe(200);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    const shown = await cartFrom(replay);
    expect(shown).toEqual(later);
    expect(shown.lines.find((l) => l.variant_id === a!.id)?.quantity).toBe(2);
  });

  it("replays a refusal as it was, status, code and message", async () => {
    const { token } = await issueToken("replay refusal");
    const body = { variant_id: seed.soldOut[0]!.id, quantity: 1 };
    const first = await add(token, body, "refused");
    const firstText = await first.text();
    const replay = await add(token, body, "refused");
    expect(replay.status).toBe(first.status);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(JSON.parse(await replay.text()).error).toEqual({
      ...JSON.parse(firstText).error,
      request_id: undefined,
    });
  });
});
