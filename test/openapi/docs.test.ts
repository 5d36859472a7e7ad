import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

import { ORIGIN as BASE } from "../helpers/worker.ts";

function get(path: string, init?: RequestInit): Promise<Response> {
  return exports.default.fetch(`${BASE}${path}`, { redirect: "manual", ...init });
}

/** Every file the two pages load, with the type it must be served as. */
const FILES = [
  ["/docs", "text/html"],
  ["/docs/try", "text/html"],
  ["/docs/scalar.js", "text/javascript"],
  ["/docs/reference.js", "text/javascript"],
  ["/docs/try.js", "text/javascript"],
  ["/docs/docs.css", "text/css"],
  ["/favicon.svg", "image/svg+xml"],
] as const;

/** The hand-written files (scalar.js is the renderer's own bundle, checked in the browser suite). */
const OWN_FILES = FILES.filter(([path]) => path !== "/docs/scalar.js");

describe("the API reference, served as static assets through the worker", () => {
  it("redirects / to /docs", async () => {
    const res = await get("/");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/docs");
  });

  it("serves /docs as the Scalar reference, every script, style sheet and icon from this origin", async () => {
    const html = await (await get("/docs")).text();
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(assets).toEqual(
      expect.arrayContaining(["/docs/scalar.js", "/docs/reference.js", "/docs/docs.css", "/favicon.svg"]),
    );
    for (const asset of assets) expect(asset).toMatch(/^\/[a-z]/);
  });

  it.each(FILES)("serves %s as %s, with nosniff, a request id and a five-minute Cache-Control", async (path, type) => {
    const res = await get(path);
    expect(res.status, `${path}: run \`npm run docs:assets\` if scalar.js is missing`).toBe(200);
    expect(res.headers.get("content-type")).toContain(type);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    expect(res.headers.get("cache-control")).toBe("public, max-age=300");
    expect(res.headers.get("etag")).toBeTruthy();
    expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0);
  });

  it.each(FILES)("forbids %s from loading or calling anything but this origin", async (path) => {
    const csp = (await get(path)).headers.get("content-security-policy") ?? "";
    const directives = Object.fromEntries(
      csp
        .split(";")
        .map((d) => d.trim().split(/\s+/))
        .map(([name, ...values]) => [name, values]),
    );
    expect(directives["default-src"]).toEqual(["'none'"]);
    expect(directives["script-src"]).toEqual(["'self'"]);
    expect(directives["connect-src"]).toEqual(["'self'"]);
    expect(directives["frame-ancestors"]).toEqual(["'none'"]);
    expect(csp).not.toMatch(/https?:|\*/);
  });

  it.each(OWN_FILES)("names no other host in %s", async (path) => {
    // The SVG namespace is a name, never fetched.
    const text = (await (await get(path)).text()).replace('xmlns="http://www.w3.org/2000/svg"', "");
    expect(text).not.toMatch(/(?:https?:)?\/\/[a-z0-9.-]+\.[a-z]/i);
  });

  it("feeds Scalar this server's OpenAPI document and switches off everything that would call out", async () => {
    const script = await (await get("/docs/reference.js")).text();
    expect(script).toContain('url: "/api/v1/openapi.json"');
    expect(script).toContain("servers: [{ url: location.origin");
    for (const setting of [
      "withDefaultFonts: false",
      "telemetry: false",
      "agent: { disabled: true }",
      "mcp: { disabled: true }",
      'showDeveloperTools: "never"',
    ]) {
      expect(script).toContain(setting);
    }
    expect(script).not.toContain("proxyUrl");
  });

  it("keeps the catalog walk-through, calling the API by relative paths", async () => {
    const script = await (await get("/docs/try.js")).text();
    expect(script).toContain('var API = "/api/v1"');
    expect(script).toMatch(/`\$\{API\}\/cart\/lines`/);
    // Its cart comes from POST /carts (a shopper token kept in localStorage), not from the dev token.
    expect(script).toMatch(/call\("POST", `\$\{API\}\/carts`\)/);
    expect(script).toContain("localStorage");
    expect(script).not.toContain("sf_dev_");
    expect(await (await get("/docs/try")).text()).toContain('src="/docs/try.js"');
  });

  it("answers a matching If-None-Match with 304 and no body", async () => {
    const first = await get("/docs/docs.css");
    const etag = first.headers.get("etag") ?? "";
    await first.arrayBuffer();
    const again = await get("/docs/docs.css", { headers: { "If-None-Match": etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    expect(again.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await again.text()).toBe("");
  });

  it.each(["/docs/nope.js", "/docs/index.html", "/docs/.assetsignore", "/docs/%2e%2e%2fwrangler.toml", "/favicon.ico"])(
    "answers %s with the contract's 404 route_not_found",
    async (path) => {
      const res = await get(path);
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toContain("application/json");
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("route_not_found");
    },
  );

  it("has the section a 401's docs_url points at: #authentication opens the description's Authentication heading", async () => {
    const unauthorised = (await (await get("/api/v1/cart")).json()) as { error: { docs_url: string } };
    const fragment = new URL(unauthorised.error.docs_url).hash;
    expect(fragment).toBe("#authentication");
    const document = (await (await get("/api/v1/openapi.json")).json()) as { info: { description: string } };
    const description = document.info.description;
    expect(description).toMatch(/^## Authentication$/m);
    // Scalar ids the heading `storefront/description/authentication`; the page maps the short anchor to it.
    const script = await (await get("/docs/reference.js")).text();
    expect(script).toContain('slug: "storefront"');
    expect(script).toContain('"#authentication": "#storefront/description/authentication"');
  });

  it("answers HEAD like GET, without a body", async () => {
    const res = await get("/docs", { method: "HEAD" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(await res.text()).toBe("");
  });

  it("answers a wrong method with 405 and Allow", async () => {
    for (const path of ["/docs", "/docs/try.js"]) {
      const res = await get(path, { method: "POST" });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toContain("GET");
    }
  });
});
