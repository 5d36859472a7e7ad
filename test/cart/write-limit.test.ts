import { beforeAll, describe, expect, it } from "vitest";
import { ErrorResponseSchema } from "../../src/http/errors.ts";
import { addLine, cartCall, cartFrom, seedVariants, type SeedVariants } from "../helpers/cart.ts";
import { newShopper } from "../helpers/shopper.ts";

let seed: SeedVariants;
beforeAll(async () => {
  seed = await seedVariants();
});

const POLICY = '"cart-writes";q=120;w=60';

/** The `r` and `t` of a `RateLimit` header. */
function rateOf(res: Response): { r: number; t: number } {
  const match = /^"cart-writes";r=(\d+);t=(\d+)$/.exec(res.headers.get("ratelimit") ?? "");
  expect(match, `RateLimit: ${res.headers.get("ratelimit")}`).not.toBeNull();
  return { r: Number(match![1]), t: Number(match![2]) };
}

describe("the cart write limit's headers (IETF httpapi RateLimit draft)", () => {
  it("answers RateLimit-Policy and RateLimit on every write that reaches the cart, counting down", async () => {
    const { token } = await newShopper();
    const first = await addLine(token, seed.available[0]!.id, 1);
    expect(first.status).toBe(200);
    expect(first.headers.get("ratelimit-policy")).toBe(POLICY);
    const a = rateOf(first);
    expect(a.r).toBeLessThanOrEqual(119);
    expect(a.t).toBeGreaterThanOrEqual(1);
    expect(a.t).toBeLessThanOrEqual(60);
    const second = rateOf(await addLine(token, seed.available[0]!.id, 1));
    // One fewer, unless the minute turned between the two.
    expect(second.r === a.r - 1 || second.r === 119).toBe(true);
    // A refused write counts too (it reached the cart), and says so.
    const soldOut = await addLine(token, seed.soldOut[0]!.id, 1);
    expect(soldOut.status).toBe(404);
    expect(soldOut.headers.get("ratelimit-policy")).toBe(POLICY);
    // Reads are not writes: no limit to report.
    const read = await cartCall(token, "/cart");
    expect(read.headers.get("ratelimit")).toBeNull();
  });

  it("exposes the headers to browsers through CORS", async () => {
    const { token } = await newShopper();
    const res = await cartCall(token, "/cart", { method: "DELETE", headers: { Origin: "http://localhost:5173" } });
    expect(res.headers.get("access-control-expose-headers")).toContain("RateLimit");
    expect(res.headers.get("access-control-expose-headers")).toContain("RateLimit-Policy");
  });
});

describe("regression: 80 replays of one Idempotency-Key were refused with 429", () => {
  it("never counts an idempotent replay: 250 replays of one key all replay, none is 429, and the count does not move", async () => {
    const { token } = await newShopper();
    const key = { "Idempotency-Key": "replayed-many-times" };
    const body = { variant_id: seed.available[0]!.id, quantity: 1 };
    const first = await cartCall(token, "/cart/lines", { method: "POST", body, headers: key });
    const cart = await cartFrom(first.clone());
    const before = rateOf(first);
    let last: Response | undefined;
    for (let i = 0; i < 250; i += 1) {
      last = await cartCall(token, "/cart/lines", { method: "POST", body, headers: key });
      expect(last.status).toBe(200);
      expect(last.headers.get("idempotent-replayed")).toBe("true");
      await last.body?.cancel();
    }
    const after = rateOf(last!);
    // The same window shows the same count; a new window shows a full one.
    expect(after.r === before.r || after.r === 120).toBe(true);
    // A new write after all those replays is still allowed.
    const fresh = await addLine(token, seed.available[1]!.id, 1);
    expect(fresh.status).toBe(200);
    expect((await cartFrom(fresh)).lines).toHaveLength(cart.lines.length + 1);
  });

  it("answers a 429 with RateLimit r=0, Retry-After and the envelope", async () => {
    const { token } = await newShopper();
    // A window lets 120 writes through, two windows 240: the 241st always meets a 429.
    let limited: Response | undefined;
    for (let i = 0; i < 241 && !limited; i += 1) {
      const res = await cartCall(token, "/cart", { method: "DELETE" });
      if (res.status === 429) limited = res;
      else await res.body?.cancel();
    }
    expect(limited?.status).toBe(429);
    expect(rateOf(limited!).r).toBe(0);
    expect(Number(limited!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(ErrorResponseSchema.parse(await limited!.json()).error).toMatchObject({
      type: "rate_limit_error",
      code: "rate_limited",
    });
  });
});
