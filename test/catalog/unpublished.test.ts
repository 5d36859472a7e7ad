import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

// Nothing is published in this file: its KV storage is isolated from the other test files.
import { API as BASE } from "../helpers/worker.ts";

describe("before any catalog is published", () => {
  it.each([
    "/products",
    "/products/essential-crew-tee-black",
    "/products/essential-crew-tee-black/variants",
    "/collections",
    "/collections/frontpage",
  ])("answers %s with 503 catalog_unavailable and Retry-After", async (path) => {
    const res = await exports.default.fetch(`${BASE}${path}`);
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await res.json()).toEqual({
      error: { type: "api_error", code: "catalog_unavailable", message: expect.any(String) },
    });
  });

  it("answers a malformed handle 404 without touching storage (so not 503)", async () => {
    const res = await exports.default.fetch(`${BASE}/products/NOT%20A%20HANDLE`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: "resource_missing" } });
    expect(res.headers.get("cache-control")).toBe("public, max-age=30");
  });
});
