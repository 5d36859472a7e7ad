import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

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
