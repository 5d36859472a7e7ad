import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { publishSeedCatalog } from "../helpers/catalog.ts";

import { ORIGIN as BASE } from "../helpers/worker.ts";

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
    const sane = await exports.default.fetch(`${BASE}/api/v1/nope`, {
      headers: { "X-Request-Id": "client-abc-12345" },
    });
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

describe("HTTP skeleton: route table and CORS mounting", () => {
  beforeAll(async () => {
    await publishSeedCatalog();
  });

  // Regression: the route table accepted a trailing slash that Hono's strict router does not
  // route, so GET /api/v1/products/ answered 405 "GET is not allowed" instead of 404.
  it("answers a trailing-slash path the router does not serve with 404, not 405", async () => {
    const res = await exports.default.fetch(`${BASE}/api/v1/products/`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: "route_not_found" } });
  });

  // Every route, static or with a parameter, answers only its exact path (Hono's strict routing):
  // pinned for any router change (PatternRouter, for one, lets a trailing slash match).
  it.each([
    "/api/v1/products/essential-crew-tee-black/",
    "/api/v1/products/facets/",
    "/api/v1/collections/",
    "/api/v1/collections/frontpage/",
    "/api/v1/health/",
    "/api/v1/openapi.json/",
    "/docs/",
  ])("answers GET %s with 404 route_not_found, its middleware still run", async (path) => {
    const res = await exports.default.fetch(`${BASE}${path}`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: "route_not_found" } });
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
  });

  it("still routes the same paths without the slash", async () => {
    for (const path of [
      "/api/v1/products/essential-crew-tee-black",
      "/api/v1/collections/frontpage",
      "/api/v1/health",
      "/docs",
    ]) {
      const res = await exports.default.fetch(`${BASE}${path}`);
      expect(res.status, path).toBe(200);
    }
  });

  // Regression: CORS was mounted on both /cart and /cart/*, and /cart/* matches /cart too,
  // so the preflight said `Vary: Origin, Origin`.
  it("names Origin once in Vary on the cart's preflight", async () => {
    const res = await exports.default.fetch(`${BASE}/api/v1/cart`, {
      method: "OPTIONS",
      headers: { Origin: "https://shop.example", "Access-Control-Request-Method": "GET" },
    });
    expect(res.status).toBe(204);
    const vary = (res.headers.get("vary") ?? "").split(",").map((v) => v.trim().toLowerCase());
    expect(vary.filter((v) => v === "origin")).toHaveLength(1);
  });

  it("still sends the public CORS header on the bare product list path", async () => {
    const res = await exports.default.fetch(`${BASE}/api/v1/products`, {
      headers: { Origin: "https://anyone.example" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });
});
