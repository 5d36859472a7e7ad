import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

const BASE = "https://storefront.test";

function get(path: string, init?: RequestInit): Promise<Response> {
  return exports.default.fetch(`${BASE}${path}`, { redirect: "manual", ...init });
}

describe("the interactive reference", () => {
  it("redirects / to /docs", async () => {
    const res = await get("/");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/docs");
  });

  it("serves /docs as HTML whose script and style sheet come from this worker", async () => {
    const res = await get("/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    const html = await res.text();
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(assets).toEqual(expect.arrayContaining(["/docs/styles.css", "/docs/app.js"]));
    for (const asset of assets) expect(asset).toMatch(/^(\/|#)/);
  });

  it("forbids the page from loading or calling anything but this origin", async () => {
    const csp = (await get("/docs")).headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
  });

  it.each([
    ["/docs/app.js", "text/javascript"],
    ["/docs/styles.css", "text/css"],
  ])("serves %s as %s with no reference to another host", async (path, type) => {
    const res = await get(path);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain(type);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await res.text()).not.toMatch(/https?:\/\//);
  });

  it("draws its operations from the OpenAPI document and calls the API by relative paths", async () => {
    const script = await (await get("/docs/app.js")).text();
    expect(script).toContain('API + "/openapi.json"');
    expect(script).toContain('API + "/cart/lines"');
    expect(script).toContain('const API = "/api/v1"');
  });

  it("has the section a 401's docs_url points at", async () => {
    const unauthorised = (await (await get("/api/v1/cart")).json()) as { error: { docs_url: string } };
    const fragment = new URL(unauthorised.error.docs_url).hash.slice(1);
    expect(fragment).toBe("authentication");
    expect(await (await get("/docs")).text()).toContain(`id="${fragment}"`);
  });

  it("answers HEAD like GET, without a body", async () => {
    const res = await get("/docs", { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("");
  });

  it("answers a wrong method with 405 and Allow", async () => {
    const res = await get("/docs", { method: "POST" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toContain("GET");
  });
});
