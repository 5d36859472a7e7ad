import { listDurableObjectIds } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it, vi } from "vitest";
import {
  DEV_CART_TOKEN_SECRET,
  issueShopperToken,
  renewShopperToken,
  SHOPPER_PREFIX,
  SHOPPER_TOKEN_LIFETIME_MS,
  shopperHolderOf,
  verifyShopperToken,
} from "../../src/auth/shopper-token.ts";
import { OperatorClient, runTokenCommand } from "../../src/cli/operator-client.ts";
import { CartTokenSchema } from "../../src/cart/api.ts";
import { ErrorResponseSchema } from "../../src/http/errors.ts";
import { countingKv } from "../helpers/counting-kv.ts";
import {
  addLine,
  call,
  cartCall,
  cartFrom,
  OPERATOR_SECRET,
  readCart,
  seedVariants,
  type SeedVariants,
} from "../helpers/cart.ts";
import { newShopper } from "../helpers/shopper.ts";
import { fetchAs, ORIGIN } from "../helpers/worker.ts";

let seed: SeedVariants;
beforeAll(async () => {
  seed = await seedVariants();
});

const DAY = 86_400_000;
const OTHER_SECRET = "another-cart-token-secret-0123456789abcdef";

/** A token for a new holder as if issued at `issuedAt` (the signer takes the clock as a parameter). */
async function tokenIssuedAt(issuedAt: number, secret = DEV_CART_TOKEN_SECRET): Promise<string> {
  return (await issueShopperToken(secret, issuedAt)).token;
}

async function errorOf(res: Response): Promise<Record<string, unknown>> {
  return ErrorResponseSchema.parse(await res.json()).error;
}

describe("POST /carts", () => {
  it("answers 201 with a signed sf_cart_ token, its expiry 30 days out and the new empty cart, no-store", async () => {
    const before = Date.now();
    const res = await call("/api/v1/carts", { method: "POST" });
    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const issued = CartTokenSchema.parse(await res.json());
    expect(issued.object).toBe("cart_token");
    expect(issued.token).toMatch(/^sf_cart_[0-9a-f]{106}$/);
    expect(Date.parse(issued.expires_at)).toBeGreaterThanOrEqual(
      Math.floor((before + SHOPPER_TOKEN_LIFETIME_MS) / 1000) * 1000,
    );
    expect(Date.parse(issued.expires_at)).toBeLessThanOrEqual(Date.now() + SHOPPER_TOKEN_LIFETIME_MS);
    expect(issued.cart).toMatchObject({ object: "cart", lines: [], total_quantity: 0, subtotal: { amount: "0.00" } });
    // The cart it names is the one the token opens.
    expect((await readCart(issued.token)).id).toBe(issued.cart.id);
  });

  it("accepts {} and refuses any field with 400 parameter_unknown", async () => {
    const empty = await call("/api/v1/carts", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{}",
    });
    expect(empty.status).toBe(201);
    const field = await call("/api/v1/carts", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ holder: "shp_00000000000000000000000000000000" }),
    });
    expect(field.status).toBe(400);
    expect(await errorOf(field)).toMatchObject({ code: "parameter_unknown", param: "holder" });
  });

  it("writes nothing: no cart object and no token record comes into being until the first cart write", async () => {
    const objectsBefore = (await listDurableObjectIds(env.CART)).length;
    const recordsBefore = (await env.TOKENS.list()).keys.length;
    const shopper = await newShopper();
    expect((await listDurableObjectIds(env.CART)).length).toBe(objectsBefore);
    expect((await env.TOKENS.list()).keys.length).toBe(recordsBefore);
    await cartFrom(await addLine(shopper.token, seed.available[0]!.id, 1));
    expect((await listDurableObjectIds(env.CART)).length).toBe(objectsBefore + 1);
  });

  it("gives each visitor a cart of their own", async () => {
    const [a, b] = [await newShopper(), await newShopper()];
    expect(a.cart.id).not.toBe(b.cart.id);
    await cartFrom(await addLine(a.token, seed.available[0]!.id, 2));
    expect((await readCart(a.token)).total_quantity).toBe(2);
    expect((await readCart(b.token)).lines).toEqual([]);
  });
});

describe("checking a shopper token", () => {
  it("reads nothing from TOKENS KV on cart reads and writes made with a shopper token", async () => {
    const shopper = await newShopper();
    const counting = countingKv(env.TOKENS);
    const auth = { Authorization: `Bearer ${shopper.token}` };
    const add = {
      method: "POST",
      headers: { ...auth, "Content-Type": "application/json" },
      body: JSON.stringify({ variant_id: seed.available[0]!.id, quantity: 1 }),
    };
    expect((await fetchAs("development", "/api/v1/cart/lines", add, { TOKENS: counting.kv })).status).toBe(200);
    expect((await fetchAs("development", "/api/v1/cart", { headers: auth }, { TOKENS: counting.kv })).status).toBe(200);
    expect(counting.reads).toEqual([]);
  });

  it("answers 401 token_invalid for a forged, truncated, re-encoded or re-prefixed token, and one of another secret", async () => {
    const { token } = await newShopper();
    const body = token.slice(SHOPPER_PREFIX.length);
    const lastDigit = token.at(-1) === "0" ? "1" : "0";
    const holderDigit = body[5] === "0" ? "1" : "0";
    const bad: Record<string, string> = {
      "signature changed": token.slice(0, -1) + lastDigit,
      "holder changed": `${SHOPPER_PREFIX}${body.slice(0, 5)}${holderDigit}${body.slice(6)}`,
      truncated: token.slice(0, -2),
      "one byte more": `${token}00`,
      "upper-case hex": SHOPPER_PREFIX + body.toUpperCase(),
      base64url:
        SHOPPER_PREFIX +
        btoa(String.fromCharCode(...body.match(/../g)!.map((h) => Number.parseInt(h, 16)))).replace(/[+/=]/g, "_"),
      "another prefix": `sf_carts_${body}`,
      "live prefix": `sf_live_${body}`,
      "dev prefix": `sf_dev_${body}`,
      "another secret": await tokenIssuedAt(Date.now(), OTHER_SECRET),
    };
    for (const [what, forged] of Object.entries(bad)) {
      const res = await cartCall(forged, "/cart");
      expect(res.status, what).toBe(401);
      expect(await errorOf(res), what).toMatchObject({ type: "authentication_error", code: "token_invalid" });
      expect(res.headers.get("www-authenticate"), what).toContain('error="invalid_token"');
    }
  });

  it("compares signatures in constant time through WebCrypto and checks the expiry only once the signature holds", async () => {
    const now = Date.now();
    const expired = await tokenIssuedAt(now - 31 * DAY);
    expect(await verifyShopperToken(expired, { current: DEV_CART_TOKEN_SECRET }, now)).toEqual({
      ok: false,
      code: "token_expired",
    });
    // The same expired token under another secret is not "expired": it was never valid.
    expect(await verifyShopperToken(expired, { current: OTHER_SECRET }, now)).toEqual({
      ok: false,
      code: "token_invalid",
    });
  });

  it("names the cart's Durable Object from the holder inside the verified token, never from anything else sent", async () => {
    const shopper = await newShopper();
    await cartFrom(await addLine(shopper.token, seed.available[0]!.id, 1));
    const verdict = await verifyShopperToken(shopper.token, { current: DEV_CART_TOKEN_SECRET }, Date.now());
    if (!verdict.ok) throw new Error("the issued token does not verify");
    const id = env.CART.idFromName(verdict.claims.holder);
    expect(shopper.cart.id).toBe(`cart_${id.toString().slice(0, 24)}`);
  });
});

describe("a deployed worker's CART_TOKEN_SECRET", () => {
  it("refuses to issue or check shopper tokens without a secret or with the development value: 503 cart_tokens_unconfigured, never a 500", async () => {
    const shopper = await newShopper();
    const settings: [string, Partial<Env>][] = [
      ["no secret", { CART_TOKEN_SECRET: undefined } as unknown as Partial<Env>],
      ["the development value", { CART_TOKEN_SECRET: DEV_CART_TOKEN_SECRET } as unknown as Partial<Env>],
      ["a short secret", { CART_TOKEN_SECRET: "short-secret-0123456789" } as unknown as Partial<Env>],
    ];
    for (const [what, vars] of settings) {
      const issue = await fetchAs("production", "/api/v1/carts", { method: "POST" }, vars);
      expect(issue.status, what).toBe(503);
      const error = await errorOf(issue);
      expect(error, what).toMatchObject({ type: "api_error", code: "cart_tokens_unconfigured" });
      expect(String(error.message)).toContain("CART_TOKEN_SECRET");
      expect(String(error.message)).not.toContain(DEV_CART_TOKEN_SECRET);
      const read = await fetchAs(
        "production",
        "/api/v1/cart",
        { headers: { Authorization: `Bearer ${shopper.token}` } },
        vars,
      );
      expect(read.status, what).toBe(503);
    }
  });

  it("issues with a real secret in production", async () => {
    const vars = { CART_TOKEN_SECRET: OTHER_SECRET } as unknown as Partial<Env>;
    const res = await fetchAs("production", "/api/v1/carts", { method: "POST" }, vars);
    expect(res.status).toBe(201);
    const { token } = CartTokenSchema.parse(await res.json());
    const read = await fetchAs("production", "/api/v1/cart", { headers: { Authorization: `Bearer ${token}` } }, vars);
    expect(read.status).toBe(200);
  });
});

describe("lifetime and renewal", () => {
  async function readWith(token: string, vars: Partial<Env> = {}): Promise<Response> {
    return fetchAs("development", "/api/v1/cart", { headers: { Authorization: `Bearer ${token}` } }, vars);
  }

  it("carries no Cart-Token while a token is in the first half of its life", async () => {
    const res = await readWith(await tokenIssuedAt(Date.now() - 14 * DAY));
    expect(res.status).toBe(200);
    expect(res.headers.get("cart-token")).toBeNull();
  });

  it("past half its life, answers a fresh token for the same cart in Cart-Token, expiring 30 days from now", async () => {
    const old = await tokenIssuedAt(Date.now() - 16 * DAY);
    const oldCart = await cartFrom(await addLine(old, seed.available[0]!.id, 1));
    const res = await readWith(old);
    const fresh = res.headers.get("cart-token");
    expect(fresh).toMatch(/^sf_cart_[0-9a-f]{106}$/);
    expect(fresh).not.toBe(old);
    const expires = Date.parse(res.headers.get("cart-token-expires") ?? "");
    expect(expires).toBeGreaterThan(Date.now() + SHOPPER_TOKEN_LIFETIME_MS - 60_000);
    const same = await readCart(fresh!);
    expect(same.id).toBe(oldCart.id);
    expect(same.total_quantity).toBe(1);
    // Refusals carry no renewal.
    const refused = await addLine(old, "999999999999", 1);
    expect(refused.status).toBe(404);
    expect(refused.headers.get("cart-token")).toBeNull();
  });

  it("keeps the cart of a shopper who keeps using it past one token lifetime; an expired token is 401 token_expired", async () => {
    const start = Date.now() - 29 * DAY;
    const first = await issueShopperToken(DEV_CART_TOKEN_SECRET, start);
    const cart = await cartFrom(await addLine(first.token, seed.available[0]!.id, 3));
    // Day 29: the shopper comes back and the answer renews the token.
    const renewed = (await readWith(first.token)).headers.get("cart-token");
    expect(renewed).not.toBeNull();
    // Day 31: the first token has expired; the renewed one still opens the same cart.
    const sameHolderExpired = await renewShopperToken(DEV_CART_TOKEN_SECRET, first.claims, start - 2 * DAY);
    const expired = await readWith(sameHolderExpired.token);
    expect(expired.status).toBe(401);
    expect(await errorOf(expired)).toMatchObject({ type: "authentication_error", code: "token_expired" });
    expect(expired.headers.get("www-authenticate")).toContain('error="invalid_token"');
    const kept = await readCart(renewed!);
    expect(kept.id).toBe(cart.id);
    expect(kept.total_quantity).toBe(3);
  });
});

describe("rotating CART_TOKEN_SECRET", () => {
  const rotating = {
    CART_TOKEN_SECRET: OTHER_SECRET,
    CART_TOKEN_SECRET_PREVIOUS: DEV_CART_TOKEN_SECRET,
  } as unknown as Partial<Env>;
  const retired = { CART_TOKEN_SECRET: OTHER_SECRET } as unknown as Partial<Env>;

  it("accepts a token of CART_TOKEN_SECRET_PREVIOUS and renews it with the new secret at once", async () => {
    const shopper = await newShopper();
    await cartFrom(await addLine(shopper.token, seed.available[0]!.id, 1));
    // Production ignores the development value even as the previous secret.
    const res = await fetchAs(
      "production",
      "/api/v1/cart",
      { headers: { Authorization: `Bearer ${shopper.token}` } },
      rotating,
    );
    expect(res.status).toBe(401);
    const dev = await fetchAs(
      "development",
      "/api/v1/cart",
      { headers: { Authorization: `Bearer ${shopper.token}` } },
      rotating,
    );
    expect(dev.status).toBe(200);
    const renewed = dev.headers.get("cart-token")!;
    expect((await verifyShopperToken(renewed, { current: OTHER_SECRET }, Date.now())).ok).toBe(true);
    const again = await fetchAs(
      "development",
      "/api/v1/cart",
      { headers: { Authorization: `Bearer ${renewed}` } },
      retired,
    );
    expect(again.status).toBe(200);
    expect(CartTokenSchema.shape.cart.parse(await again.json()).total_quantity).toBe(1);
  });

  it("refuses a token of a retired secret with 401 token_invalid", async () => {
    const shopper = await newShopper();
    const res = await fetchAs(
      "development",
      "/api/v1/cart",
      { headers: { Authorization: `Bearer ${shopper.token}` } },
      retired,
    );
    expect(res.status).toBe(401);
    expect(await errorOf(res)).toMatchObject({ code: "token_invalid" });
  });
});

describe("issuing limits and CORS", () => {
  it("answers 429 rate_limited with Retry-After above 20 new carts a minute from one address, and not for another", async () => {
    // A window lets 20 through, two windows 40: the 41st always meets a 429.
    let limited: Response | undefined;
    for (let i = 0; i < 41 && !limited; i++) {
      const res = await call("/api/v1/carts", { method: "POST", headers: { "CF-Connecting-IP": "203.0.113.77" } });
      if (res.status === 429) limited = res;
      else expect(res.status).toBe(201);
    }
    expect(limited?.status).toBe(429);
    expect(limited!.headers.get("retry-after")).toBe("60");
    expect(await errorOf(limited!)).toMatchObject({ type: "rate_limit_error", code: "rate_limited" });
    const other = await call("/api/v1/carts", { method: "POST", headers: { "CF-Connecting-IP": "203.0.113.78" } });
    expect(other.status).toBe(201);
  });

  it("counts every address of one IPv6 /64 as one client (regression: issue 42 point 12)", async () => {
    // On main each exact address had its own budget: 30 addresses of one /64 all answered 201.
    const prefix = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:42`;
    const statuses: number[] = [];
    for (let i = 1; i <= 41; i++) {
      const res = await call("/api/v1/carts", { method: "POST", headers: { "CF-Connecting-IP": `${prefix}::${i}` } });
      await res.body?.cancel();
      statuses.push(res.status);
    }
    // A window lets 20 through, two windows 40: the 41st always meets a 429.
    expect(statuses.filter((s) => s === 201).length).toBeLessThanOrEqual(40);
    expect(statuses).toContain(429);
    const next = await call("/api/v1/carts", { method: "POST", headers: { "CF-Connecting-IP": `${prefix}:1:2:3:4` } });
    expect(next.status).toBe(429);
    // Another /64 has its own budget.
    const other = await call("/api/v1/carts", { method: "POST", headers: { "CF-Connecting-IP": `${prefix}1::1` } });
    expect(other.status).toBe(201);
  });

  it("lets an allowed origin call POST /carts and read Cart-Token, and preflights If-None-Match on the cart", async () => {
    const origin = "http://localhost:5173";
    const res = await call("/api/v1/carts", { method: "POST", headers: { Origin: origin } });
    expect(res.status).toBe(201);
    expect(res.headers.get("access-control-allow-origin")).toBe(origin);
    expect(res.headers.get("access-control-expose-headers")).toContain("Cart-Token");
    const preflight = await call("/api/v1/cart", {
      method: "OPTIONS",
      headers: {
        Origin: origin,
        "Access-Control-Request-Method": "GET",
        "Access-Control-Request-Headers": "authorization,if-none-match",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("if-none-match");
    const carts = await call("/api/v1/carts", {
      method: "OPTIONS",
      headers: { Origin: origin, "Access-Control-Request-Method": "POST" },
    });
    expect(carts.headers.get("access-control-allow-origin")).toBe(origin);
    expect(carts.headers.get("access-control-allow-methods")).toContain("POST");
  });
});

describe("revoking a leaked shopper token", () => {
  const operatorClient = () =>
    new OperatorClient(ORIGIN, OPERATOR_SECRET, (input, init) => exports.default.fetch(input, init));

  it("fails the holder's very next cart request, and every token renewed from it, with 401 token_revoked; other shoppers are untouched", async () => {
    const leaked = await issueShopperToken(DEV_CART_TOKEN_SECRET, Date.now() - 20 * DAY);
    await cartFrom(await addLine(leaked.token, seed.available[0]!.id, 1));
    const renewed = (await cartCall(leaked.token, "/cart")).headers.get("cart-token")!;
    expect(renewed).not.toBeNull();
    const bystander = await newShopper();
    const holder = shopperHolderOf(leaked.token)!;
    const lines = await runTokenCommand({ action: "revoke", target: "local", shopperHolder: holder }, operatorClient());
    expect(lines.join("\n")).toContain(holder);
    expect(lines.join("\n")).not.toContain(leaked.token);
    for (const token of [leaked.token, renewed]) {
      for (const res of [await cartCall(token, "/cart"), await addLine(token, seed.available[0]!.id, 1)]) {
        expect(res.status).toBe(401);
        expect(await errorOf(res)).toMatchObject({ code: "token_revoked" });
      }
    }
    expect((await cartCall(bystander.token, "/cart")).status).toBe(200);
  });

  it("refuses a holder that is not a shopper holder with 400, and the token itself in the body as an unknown field", async () => {
    const { token } = await newShopper();
    for (const body of [{ holder: "hld_someone" }, { holder: token }, { token }]) {
      const res = await call("/api/v1/operator/tokens/revoke-shopper", {
        method: "POST",
        headers: { Authorization: `Bearer ${OPERATOR_SECRET}`, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(400);
      expect(await res.text()).not.toContain(token.slice(8));
    }
    expect((await cartCall(token, "/cart")).status).toBe(200);
  });
});

describe("shopper tokens and the signing secret stay out of answers and logs", () => {
  it("never writes a shopper token, its signature or CART_TOKEN_SECRET into a log line, an error or a header it was not meant for", async () => {
    const lines: string[] = [];
    const capture = (...args: unknown[]) => {
      lines.push(args.map(String).join(" "));
    };
    for (const level of ["log", "error", "warn", "info"] as const) vi.spyOn(console, level).mockImplementation(capture);
    const shopper = await newShopper();
    const forged = `${shopper.token.slice(0, -1)}${shopper.token.endsWith("0") ? "1" : "0"}`;
    const answers = [
      await cartCall(shopper.token, "/cart"),
      await addLine(shopper.token, seed.available[0]!.id, 1),
      await cartCall(shopper.token, "/cart", { method: "PATCH", body: { notes: shopper.token } }),
      await cartCall(shopper.token, "/cart/lines", {
        method: "POST",
        body: { variant_id: shopper.token, quantity: 1 },
      }),
      await cartCall(shopper.token, `/cart?token=${shopper.token}`),
      await cartCall(forged, "/cart"),
      await call("/api/v1/carts", {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Request-Id": shopper.token.slice(0, 60) },
        body: JSON.stringify({ token: shopper.token, secret: DEV_CART_TOKEN_SECRET }),
      }),
      await fetchAs("production", "/api/v1/carts", { method: "POST" }, {
        CART_TOKEN_SECRET: DEV_CART_TOKEN_SECRET,
      } as unknown as Partial<Env>),
    ];
    const texts: string[] = [];
    for (const res of answers) {
      texts.push(await res.text(), JSON.stringify([...res.headers]));
    }
    vi.restoreAllMocks();
    expect(lines.length).toBeGreaterThanOrEqual(answers.length);
    const signature = shopper.token.slice(-64);
    for (const text of [...lines, ...texts]) {
      expect(text).not.toContain(signature);
      expect(text).not.toContain(forged.slice(-64));
      expect(text).not.toContain(DEV_CART_TOKEN_SECRET);
    }
    for (const text of texts) expect(text).not.toContain(shopper.token.slice(8));
  });
});
