import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import app from "../../src/index.ts";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { hashToken } from "../../src/auth/token.ts";
import { BASE, call, cartCall, issueToken, operator, seedVariants, type SeedVariants } from "../helpers/cart.ts";

let seed: SeedVariants;
beforeAll(async () => {
  seed = await seedVariants();
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** DOCS_URL is empty in wrangler.toml: a 401 links to the reference of the server that answered. */
const DOCS_AUTH = `${BASE}/docs#authentication`;

async function expect401(res: Response, tokenSent: boolean): Promise<void> {
  expect(res.status).toBe(401);
  const body = (await res.json()) as { error: Record<string, unknown> };
  expect(Object.keys(body)).toEqual(["error"]);
  expect(body.error).toMatchObject({ type: "authentication_error", docs_url: DOCS_AUTH });
  expect(typeof body.error.message).toBe("string");
  expect(res.headers.get("www-authenticate")).toBe(
    tokenSent ? 'Bearer realm="storefront", error="invalid_token"' : 'Bearer realm="storefront"',
  );
  expect(res.headers.get("cache-control")).toBe("no-store");
}

describe("bearer authentication on the cart", () => {
  it("answers 401 with docs_url and a bare Bearer challenge when no token is sent", async () => {
    await expect401(await call("/api/v1/cart"), false);
  });

  it("answers 401 invalid_token for a malformed, an unknown or a wrong-scheme credential", async () => {
    await expect401(await call("/api/v1/cart", { headers: { Authorization: "Bearer not-a-token" } }), true);
    await expect401(
      await call("/api/v1/cart", { headers: { Authorization: `Bearer sf_live_${"x".repeat(44)}` } }),
      true,
    );
    await expect401(await call("/api/v1/cart", { headers: { Authorization: "Basic dXNlcjpwYXNz" } }), true);
  });

  it("accepts the scheme word in any case", async () => {
    const { token } = await issueToken();
    for (const scheme of ["Bearer", "bearer", "BEARER", "bEaReR"]) {
      const res = await call("/api/v1/cart", { headers: { Authorization: `${scheme} ${token}` } });
      expect(res.status).toBe(200);
    }
  });

  it("treats the token as case-sensitive", async () => {
    const { token } = await issueToken();
    const secret = token.slice("sf_live_".length);
    const flipped = [...secret].map((ch) => (ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase())).join("");
    expect(flipped).not.toBe(secret);
    await expect401(await call("/api/v1/cart", { headers: { Authorization: `Bearer sf_live_${flipped}` } }), true);
  });

  it("rejects two Authorization headers with 400", async () => {
    const { token } = await issueToken();
    const headers = new Headers();
    headers.append("Authorization", `Bearer ${token}`);
    headers.append("Authorization", `Bearer ${token}`);
    const res = await call("/api/v1/cart", { headers });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { type: "invalid_request_error", param: "Authorization" } });
  });

  it("never accepts a token from the query string", async () => {
    const { token } = await issueToken();
    for (const name of ["access_token", "token", "authorization"]) {
      await expect401(await call(`/api/v1/cart?${name}=${token}`), false);
    }
  });

  it("rejects a query parameter on an authenticated cart call as parameter_unknown", async () => {
    const { token } = await issueToken();
    const res = await call(`/api/v1/cart?access_token=${token}`, { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: "parameter_unknown", param: "access_token" } });
  });

  it("protects every cart operation", async () => {
    const requests: [string, string][] = [
      ["GET", "/api/v1/cart"],
      ["DELETE", "/api/v1/cart"],
      ["POST", "/api/v1/cart/lines"],
      ["PATCH", "/api/v1/cart/lines/cl_abc"],
      ["DELETE", "/api/v1/cart/lines/cl_abc"],
    ];
    for (const [method, path] of requests) {
      const body = method === "POST" || method === "PATCH" ? JSON.stringify({ quantity: 1 }) : undefined;
      const res = await call(path, {
        method,
        headers: { "Content-Type": "application/json" },
        ...(body ? { body } : {}),
      });
      await expect401(res, false);
    }
  });
});

describe("regression: defect 5, a 401's docs_url pointed at storefront.example.com under npm run dev", () => {
  it("points at the docs page of the server that answered, on the cart, at checkout and on the operator surface", async () => {
    const origin = "http://localhost:8790";
    for (const [path, method] of [
      ["/api/v1/cart", "GET"],
      ["/api/v1/checkouts", "POST"],
      ["/api/v1/operator/tokens", "GET"],
    ] as const) {
      const ctx = createExecutionContext();
      const res = await app.fetch(new Request(`${origin}${path}`, { method }), env, ctx);
      await waitOnExecutionContext(ctx);
      expect(res.status, path).toBe(401);
      expect(((await res.json()) as { error: { docs_url: string } }).error.docs_url).toBe(
        `${origin}/docs#authentication`,
      );
    }
  });

  it("uses DOCS_URL instead when it is set to an absolute URL (docs hosted elsewhere)", async () => {
    const ctx = createExecutionContext();
    const res = await app.fetch(
      new Request(`${BASE}/api/v1/cart`),
      { ...env, DOCS_URL: "https://docs.example.org/storefront" },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(((await res.json()) as { error: { docs_url: string } }).error.docs_url).toBe(
      "https://docs.example.org/storefront#authentication",
    );
  });
});

describe("POST /auth/login", () => {
  it("always answers 501 not_implemented with retry false, whatever it is sent", async () => {
    const { token } = await issueToken();
    const attempts: RequestInit[] = [
      {},
      {
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ vibes: token, linkedin_premium: true }),
      },
      { headers: { "Content-Type": "text/plain" }, body: "{not json" },
      { headers: { Authorization: `Bearer ${token}` } },
      { headers: { Authorization: "Bearer a, Bearer b" } },
      { headers: { "Content-Type": "application/json" }, body: "x".repeat(64 * 1024) },
    ];
    for (const init of attempts) {
      const res = await call("/api/v1/auth/login", { method: "POST", ...init });
      expect(res.status).toBe(501);
      const body = (await res.json()) as { error: Record<string, unknown> };
      expect(Object.keys(body)).toEqual(["error"]);
      expect(body.error).toMatchObject({ type: "not_implemented", retry: false });
      expect(typeof body.error.message).toBe("string");
      expect(res.headers.get("cache-control")).toBe("no-store");
    }
  });

  it("answers 405 with Allow for other methods", async () => {
    for (const method of ["GET", "PUT", "DELETE", "PATCH"]) {
      const res = await call("/api/v1/auth/login", { method });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toContain("POST");
      expect(res.headers.get("cache-control")).toBe("no-store");
    }
  });
});

describe("POST /checkouts", () => {
  it("answers 401 without a valid token", async () => {
    await expect401(await call("/api/v1/checkouts", { method: "POST" }), false);
    await expect401(
      await call("/api/v1/checkouts", { method: "POST", headers: { Authorization: "Bearer sf_live_unknownunknown" } }),
      true,
    );
  });

  it("is no longer reserved: a valid token with an empty cart gets 400 cart_empty (contract 9.4)", async () => {
    const { token } = await issueToken();
    const res = await call("/api/v1/checkouts", { method: "POST", headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { type: "invalid_request_error", code: "cart_empty" } });
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("answers 405 for GET", async () => {
    const res = await call("/api/v1/checkouts");
    expect(res.status).toBe(405);
    expect(res.headers.get("cache-control")).toBe("no-store");
  });
});

describe("secrets stay out of responses and logs", () => {
  it("never writes a token or a token hash into a response or a log line", async () => {
    const lines: string[] = [];
    const capture = (...args: unknown[]) => {
      lines.push(args.map(String).join(" "));
    };
    vi.spyOn(console, "log").mockImplementation(capture);
    vi.spyOn(console, "error").mockImplementation(capture);
    vi.spyOn(console, "warn").mockImplementation(capture);
    vi.spyOn(console, "info").mockImplementation(capture);

    const issued = await issueToken("log-check");
    const other = `sf_live_${"Z".repeat(44)}`;
    const variant = seed.available[0]!;
    const bodies: string[] = [];
    const responses = [
      await cartCall(issued.token, "/cart"),
      await cartCall(issued.token, "/cart/lines", { method: "POST", body: { variant_id: variant.id, quantity: 1 } }),
      await cartCall(issued.token, "/cart/lines", {
        method: "POST",
        body: { variant_id: variant.id, quantity: 1, extra: issued.token },
      }),
      await cartCall(issued.token, `/cart?token=${issued.token}`),
      await cartCall(other, "/cart"),
      await cartCall(issued.token, "/checkouts", { method: "POST" }),
      await call("/api/v1/auth/login", { method: "POST", body: JSON.stringify({ vibes: issued.token }) }),
      await operator("/tokens"),
      await operator(`/tokens/${issued.id}/revoke`, { method: "POST" }),
      await cartCall(issued.token, "/cart"),
    ];
    for (const res of responses) {
      bodies.push(await res.text());
      bodies.push(JSON.stringify([...res.headers]));
    }
    vi.restoreAllMocks();

    const secrets = [issued.token, other, await hashToken(issued.token), await hashToken(other)];
    expect(lines.length).toBeGreaterThanOrEqual(responses.length);
    for (const text of [...lines, ...bodies]) {
      for (const secret of secrets) expect(text).not.toContain(secret);
    }
  });
});
