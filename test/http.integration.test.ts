import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { publishSeedCatalog } from "./helpers/catalog.ts";

const BASE = "https://storefront.test";

describe("HTTP skeleton", () => {
  it("answers an unknown route with 404 route_not_found in the envelope", async () => {
    const res = await exports.default.fetch(`${BASE}/api/v1/nope`);
    expect(res.status).toBe(404);
    const body = await res.json();
    expect(Object.keys(body as object)).toEqual(["error"]);
    expect(body).toMatchObject({ error: { type: "not_found_error", code: "route_not_found" } });
  });

  it("stamps X-Request-Id and nosniff on every response", async () => {
    const res = await exports.default.fetch(`${BASE}/api/v1/nope`);
    expect(res.headers.get("x-request-id")).toMatch(/^req_[0-9a-f]{32}$/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("echoes a sane inbound X-Request-Id and replaces an insane one", async () => {
    const sane = await exports.default.fetch(`${BASE}/api/v1/nope`, { headers: { "X-Request-Id": "client-abc-12345" } });
    expect(sane.headers.get("x-request-id")).toBe("client-abc-12345");
    const insane = await exports.default.fetch(`${BASE}/api/v1/nope`, { headers: { "X-Request-Id": "<script>" } });
    expect(insane.headers.get("x-request-id")).toMatch(/^req_/);
  });
});

describe("HTTP skeleton: shared validation and media type", () => {
  beforeAll(async () => {
    await publishSeedCatalog();
  });

  it("labels error bodies application/json; charset=utf-8 as the contract says", async () => {
    const res = await exports.default.fetch(`${BASE}/api/v1/nope`);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
  });

  // Regression: parseQuery assigned into a plain object, so `__proto__` vanished into the
  // prototype and the request passed as if it had no unknown parameter.
  it("rejects ?__proto__=x as an unknown query parameter", async () => {
    const res = await exports.default.fetch(`${BASE}/api/v1/products?__proto__=x`);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: "parameter_unknown", param: "__proto__" } });
  });
});
