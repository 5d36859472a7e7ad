import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { exports } from "cloudflare:workers";
import { call, issueToken, OPERATOR_SECRET, seedVariants } from "../helpers/cart.ts";
import { SecretScanner } from "./secrets.ts";

/**
 * `X-Request-Id: dev-operator-secret` (or `Bearer:sf_…`) was echoed
 * in the response and the log line, because only ids starting `sf_` were refused; and a value a
 * client sent was repeated back wherever the worker quotes the request (a facet's `selected`
 * value, an error message, a cached 404). The operator secret, like tokens, never comes back.
 */

let token: string;

/** Every log line written while `run` runs. */
async function logged(run: () => Promise<void>): Promise<string[]> {
  const lines: string[] = [];
  const capture = (...args: unknown[]) => void lines.push(args.map(String).join(" "));
  for (const level of ["log", "info", "warn", "error", "debug"] as const)
    vi.spyOn(console, level).mockImplementation(capture);
  try {
    await run();
  } finally {
    vi.restoreAllMocks();
  }
  return lines;
}

/** The whole answer as text: status line, every header and the body. */
async function whole(res: Response): Promise<string> {
  return `${res.status}\n${[...res.headers].map(([k, v]) => `${k}: ${v}`).join("\n")}\n\n${await res.text()}`;
}

beforeAll(async () => {
  await seedVariants();
  token = (await issueToken("echo")).token;
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe("X-Request-Id", () => {
  it("is minted, never echoed or logged, when the inbound id holds the operator secret, a token or a Bearer value", async () => {
    const refused = [
      OPERATOR_SECRET,
      `x.${OPERATOR_SECRET}.y`,
      `Bearer:${token}`,
      `Bearer-${"a".repeat(20)}`,
      "sf_dev_LocalToken_A1",
      token,
      "a".repeat(65),
      "client:trace:1",
      "two words",
    ];
    const lines = await logged(async () => {
      for (const id of refused) {
        const res = await call("/api/v1/health", { headers: { "X-Request-Id": id } });
        await res.body?.cancel();
        expect(res.headers.get("x-request-id"), id).toMatch(/^req_[0-9a-f]{32}$/);
      }
    });
    expect(lines.length).toBeGreaterThanOrEqual(refused.length);
    for (const line of lines) {
      expect(line).not.toContain(OPERATOR_SECRET);
      expect(line).not.toContain(token);
      expect(line.toLowerCase()).not.toContain("bearer");
    }
  });

  it("is minted, never echoed or logged, for a value that could be a credential whatever its prefix (issue 33 point 6)", async () => {
    // Regression: a token's secret part sent without its `sf_live_` prefix was echoed and logged.
    const secretPart = token.slice("sf_live_".length);
    const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJzaG9wcGVyIn0.c2lnbmF0dXJlLXBhcnQtb2YtaXQ";
    const refused = [
      secretPart,
      `live_${secretPart}`,
      `trace.${secretPart}.1`,
      jwt,
      "aB3dE5fG7hJ9kL1mN3pQ", // 20 base62 characters, both cases
      "Zm9vYmFyYmF6cXV4cXV1eA", // base64 of a secret
      "a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0", // 40 hex digits: a SHA-1-sized secret
      "k3j4h5g6f7d8s9a0q1w2e3r4t5y6u7i8o9p0", // base36, 36 characters
    ];
    const lines = await logged(async () => {
      for (const id of refused) {
        const res = await call("/api/v1/health", { headers: { "X-Request-Id": id } });
        await res.body?.cancel();
        expect(res.headers.get("x-request-id"), id).toMatch(/^req_[0-9a-f]{32}$/);
      }
    });
    expect(lines.length).toBeGreaterThanOrEqual(refused.length);
    for (const line of lines) for (const id of refused) expect(line).not.toContain(id);
  });

  it("echoes an id that looks like an id: letters, digits, dot, underscore and hyphen, 1 to 64 of them", async () => {
    for (const id of [
      "a",
      "client-trace-0001",
      "3f1c2d9a.8b7e_4f6a",
      "Z".repeat(64),
      "req_3f1c2d9a8b7e4f6a9c0d1e2f3a4b5c6d",
      "0af7651916cd43dd8448eb211c80319c",
      "123e4567-e89b-12d3-a456-426614174000",
      "Checkout-Retry-7",
    ]) {
      const res = await call("/api/v1/health", { headers: { "X-Request-Id": id } });
      await res.body?.cancel();
      expect(res.headers.get("x-request-id")).toBe(id);
    }
  });
});

describe("the operator secret and tokens are never repeated back", () => {
  const SECRET_CARRIERS = (secret: string): [string, RequestInit?][] => [
    [`/api/v1/products/facets?tag=${secret}`],
    [`/api/v1/products/facets?vendor=x&option.size=${secret}`],
    [`/api/v1/collections/frontpage/facets?tag=${secret}`],
    [`/api/v1/products?q=${secret}`],
    [`/api/v1/products?tag=${secret}`],
    [`/api/v1/products?${secret}=1`],
    [`/api/v1/products?limit=${secret}`],
    [`/api/v1/collections?starting_after=${secret}`],
    [`/api/v1/products/essential-crew-tee-black?include=${secret}`],
    [`/api/v1/products/essential-crew-tee-black/variants?size=${secret}`],
    [`/api/v1/products/${secret}`],
    [`/api/v1/products/${secret}/variants`],
    [`/api/v1/collections/${secret}`],
    [`/api/v1/${secret}`],
    [`/api/v1/cart?${secret}=1`, { headers: { Authorization: `Bearer ${token}` } }],
    ["/api/v1/cart", { headers: { Authorization: `Bearer ${secret}` } }],
  ];

  it.each([
    ["the operator secret", () => OPERATOR_SECRET],
    ["a token", () => token],
    ["a dev token", () => "sf_dev_LocalToken_A1"],
  ])(
    "as %s in a facet filter, a query parameter, a path or a header: not in the answer, a repeat of it (cached) or the log",
    async (_name, secretOf) => {
      const secret = secretOf();
      const scanner = new SecretScanner();
      await scanner.add(secret);
      const answers: string[] = [];
      const lines = await logged(async () => {
        for (const [path, init] of SECRET_CARRIERS(secret)) {
          // Twice: the second may come from the isolate's memo or the Cache API.
          for (let i = 0; i < 2; i++) answers.push(`${path}\n${await whole(await call(path, init))}`);
        }
      });
      for (const answer of answers) {
        expect(answer.slice(answer.indexOf("\n") + 1)).not.toContain(secret);
        expect(scanner.findings(answer.slice(answer.indexOf("\n") + 1))).toEqual([]);
        expect(Number(answer.split("\n")[1]), answer).toBeLessThan(500);
      }
      for (const line of lines) expect(scanner.findings(line)).toEqual([]);
    },
  );

  it("refuses a credential in a catalog query with 400 naming the parameter, not the value", async () => {
    const res = await call(`/api/v1/products/facets?tag=${OPERATOR_SECRET}`);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: { type: "invalid_request_error", code: "parameter_invalid", param: "tag" },
    });
  });

  it("answers the secret as a product handle 404 without caching it", async () => {
    const res = await call(`/api/v1/products/${OPERATOR_SECRET}`);
    expect(res.status).toBe(404);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await res.json()).toMatchObject({ error: { code: "resource_missing", param: "handle" } });
  });

  it("never quotes the secret from the request's host in a 401's docs_url", async () => {
    const res = await exports.default.fetch(`https://${OPERATOR_SECRET}.example/api/v1/cart`, {
      headers: { Authorization: "Bearer sf_live_nope12345678" },
    });
    const text = await whole(res);
    expect(res.status).toBe(401);
    expect(text).not.toContain(OPERATOR_SECRET);
  });
});
