import { describe, expect, it } from "vitest";
import { addLine, call, issueToken, seedVariants } from "../helpers/cart.ts";
import { postCheckout } from "../helpers/checkout.ts";

/**
 * Contract 9.4 [revised, turn 5], issue 42 point 5: POST /checkouts is limited to 10 a minute per
 * token and 60 a minute per client address (an IPv6 address by its /64), 429 `rate_limit_error`
 * with `Retry-After`, so no token or client re-creates checkouts without end.
 */

async function errorOf(res: Response): Promise<Record<string, unknown>> {
  return ((await res.json()) as { error: Record<string, unknown> }).error;
}

describe("the limits of POST /checkouts", () => {
  it("answers 429 rate_limited with Retry-After past 10 POST /checkouts a minute with one token", async () => {
    const variant = (await seedVariants()).available[9]!;
    const { token } = await issueToken();
    expect((await addLine(token, variant.id, 1)).status).toBe(200);
    // A window lets 10 through, two windows 20: the 21st always meets a 429.
    let limited: Response | undefined;
    for (let i = 0; i < 21 && !limited; i++) {
      const res = await postCheckout(token);
      if (res.status === 429) limited = res;
      else expect(res.status).toBe(201);
    }
    if (!limited) throw new Error("21 checkouts within a minute were never limited");
    expect(limited.headers.get("Retry-After")).toBe("60");
    expect(await errorOf(limited)).toMatchObject({
      type: "rate_limit_error",
      code: "rate_limited",
      message: expect.stringContaining("for this token"),
    });
  }, 30_000);

  it("is not a cart write: a token past its 120 cart writes a minute still checks out", async () => {
    const variant = (await seedVariants()).available[8]!;
    const { token } = await issueToken();
    // A window lets 120 through, two windows 240: the 241st add always meets a 429.
    let writes = 0;
    let limited = false;
    while (!limited && writes < 241) {
      const res = await addLine(token, variant.id, 1);
      writes += 1;
      if (res.status === 429) limited = true;
      else expect(res.status).toBe(200);
    }
    expect(limited).toBe(true);
    // The cart write limit is spent; the checkout's own (10 a minute) is not.
    const res = await postCheckout(token);
    expect(res.status).toBe(201);
  }, 60_000);

  it("answers 429 past 60 POST /checkouts a minute from one address, every address of an IPv6 /64 counting as one", async () => {
    const prefix = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:5`;
    const tokens = await Promise.all(Array.from({ length: 13 }, () => issueToken()));
    // 13 tokens × 10 (each within its own limit) from 130 addresses of one /64: past two windows of 60.
    let limited: Response | undefined;
    let sent = 0;
    for (const { token } of tokens) {
      for (let i = 0; i < 10 && !limited; i++) {
        // An unknown query parameter: refused (400) after the limits, so nothing is held or made.
        const res = await call("/api/v1/checkouts?nope=1", {
          method: "POST",
          headers: { Authorization: `Bearer ${token}`, "CF-Connecting-IP": `${prefix}::${((sent += 1)).toString(16)}` },
        });
        if (res.status === 429) limited = res;
        else expect(res.status).toBe(400);
      }
    }
    if (!limited) throw new Error(`${sent} checkouts from one /64 within a minute were never limited`);
    expect(sent).toBeGreaterThan(60);
    expect(await errorOf(limited)).toMatchObject({
      code: "rate_limited",
      message: expect.stringContaining("from this address"),
    });
  });
});
