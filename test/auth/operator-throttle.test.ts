import { describe, expect, it } from "vitest";
import { call, OPERATOR_SECRET } from "../helpers/cart.ts";

/**
 * Regression, issue 33 point 4: wrong operator secrets were not throttled (400 guesses took 3.5 s).
 * Past 30 wrong secrets a minute from one address (CF-Connecting-IP, the OPERATOR_AUTH_LIMITER
 * binding), the address is answered 429 with Retry-After on the operator surface, the right
 * secret included (else a guesser would learn which guess was right), while other addresses and
 * the right secret from them are untouched.
 */

function attempt(secret: string, address?: string): Promise<Response> {
  return call("/api/v1/operator/tokens", {
    headers: { Authorization: `Bearer ${secret}`, ...(address ? { "CF-Connecting-IP": address } : {}) },
  });
}

describe("wrong operator secrets, per client address", () => {
  it("are answered 429 rate_limited with Retry-After past the limit, the right secret from that address too", async () => {
    const guesser = "203.0.113.7";
    // A window lets at most 30 through, so two windows at most 60: the 61st always meets a 429.
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let i = 0; i < 61 && !limited; i++) {
      const res = await attempt(`wrong-guess-${i}-0123456789abcdef`, guesser);
      await res.body?.cancel();
      if (res.status === 429) limited = await attempt(`wrong-guess-last-0123456789abcdef`, guesser);
      else statuses.push(res.status);
    }
    expect(statuses.length).toBeGreaterThanOrEqual(30);
    expect(new Set(statuses)).toEqual(new Set([401]));
    if (!limited) throw new Error("61 wrong secrets within a minute were never throttled");
    expect(limited.status).toBe(429);
    expect(limited.headers.get("Retry-After")).toBe("60");
    expect(limited.headers.get("Cache-Control")).toBe("no-store");
    const body = (await limited.json()) as { error: Record<string, unknown> };
    expect(body).toEqual({ error: { type: "rate_limit_error", code: "rate_limited", message: expect.any(String) } });
    expect(JSON.stringify(body)).not.toContain("wrong-guess");

    // The right secret from the throttled address is refused too, before any comparison.
    const right = await attempt(OPERATOR_SECRET, guesser);
    expect(right.status).toBe(429);
    await right.body?.cancel();
    // Another address is untouched: its wrong secret is a 401, its right secret a 200.
    const other = "198.51.100.20";
    expect((await attempt("another-wrong-guess-0123456789", other)).status).toBe(401);
    expect((await attempt(OPERATOR_SECRET, other)).status).toBe(200);
  });

  it("counts the guesses of every address of one IPv6 /64 together (regression: issue 42 point 12)", async () => {
    // On main each exact address had its own 30 guesses a minute: a /64 holds 2^64 of them.
    const prefix = "2001:db8:4242:12";
    let limited: Response | undefined;
    let wrong = 0;
    for (let i = 1; i <= 61 && !limited; i++) {
      const res = await attempt(`wrong-guess-v6-${i}-0123456789abcdef`, `${prefix}::${i.toString(16)}`);
      await res.body?.cancel();
      if (res.status === 429) limited = res;
      else {
        expect(res.status).toBe(401);
        wrong += 1;
      }
    }
    if (!limited) throw new Error("61 wrong secrets from one /64 within a minute were never throttled");
    expect(wrong).toBeGreaterThanOrEqual(30);
    // Any address of that /64 is refused now, the right secret included; the next /64 is not.
    const right = await attempt(OPERATOR_SECRET, `${prefix}:ffff:ffff:ffff:ffff`);
    expect(right.status).toBe(429);
    await right.body?.cancel();
    expect((await attempt(OPERATOR_SECRET, "2001:db8:4242:13::1")).status).toBe(200);
  });

  it("never counts the right secret: an operator's own calls are not throttled", async () => {
    const operator = "192.0.2.44";
    for (let i = 0; i < 70; i++) {
      const res = await attempt(OPERATOR_SECRET, operator);
      await res.body?.cancel();
      expect(res.status).toBe(200);
    }
  });
});
