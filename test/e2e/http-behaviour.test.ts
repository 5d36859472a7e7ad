import { readFile } from "node:fs/promises";
import { describe, expect, inject, it } from "vitest";
import { ErrorResponseSchema } from "../../src/http/errors.ts";
import { api, TOKEN_A, TOKEN_B, withToken } from "./http.ts";

const LOCAL_ORIGIN = "http://localhost:5173";
const FOREIGN_ORIGIN = "https://evil.example";

describe("errors over real HTTP", () => {
  it("answers an unknown route 404 route_not_found in the envelope and nothing else", async () => {
    const res = await api("/api/v1/nope");
    expect(res.status).toBe(404);
    const body = await res.json();
    expect(Object.keys(body as object)).toEqual(["error"]);
    expect(ErrorResponseSchema.parse(body).error.code).toBe("route_not_found");
  });

  it("answers a wrong method 405 with Allow", async () => {
    const res = await api("/api/v1/auth/login");
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toContain("POST");
    expect(ErrorResponseSchema.parse(await res.json()).error.code).toBe("method_not_allowed");
  });

  it("answers malformed JSON 400 invalid_json and a non-JSON body 415", async () => {
    const bad = await withToken(TOKEN_B, "/api/v1/cart/lines", { method: "POST", body: "{nope" });
    expect(bad.status).toBe(400);
    expect(ErrorResponseSchema.parse(await bad.json()).error.code).toBe("invalid_json");
    const text = await withToken(TOKEN_B, "/api/v1/cart/lines", {
      method: "POST",
      headers: { "Content-Type": "text/plain" },
      body: "{}",
    });
    expect(text.status).toBe(415);
  });

  it("stamps X-Request-Id and nosniff on every answer and echoes a sane inbound id", async () => {
    const res = await api("/api/v1/health", { headers: { "X-Request-Id": "e2e-request-0001" } });
    expect(res.headers.get("x-request-id")).toBe("e2e-request-0001");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });
});

describe("CORS over real HTTP", () => {
  it("answers a cart preflight from a local front end with 204 and the contract's headers", async () => {
    const res = await api("/api/v1/cart/lines", {
      method: "OPTIONS",
      headers: {
        Origin: LOCAL_ORIGIN,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type, idempotency-key",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(LOCAL_ORIGIN);
    expect(res.headers.get("access-control-allow-methods")).toContain("POST");
    expect(res.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("idempotency-key");
    expect(res.headers.get("access-control-max-age")).toBe("7200");
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    expect(res.headers.get("vary")).toContain("Origin");
  });

  it("echoes an allowed origin on a cart answer and exposes the contract's headers", async () => {
    const res = await withToken(TOKEN_B, "/api/v1/cart", { headers: { Origin: LOCAL_ORIGIN } });
    await res.body?.cancel();
    expect(res.headers.get("access-control-allow-origin")).toBe(LOCAL_ORIGIN);
    expect(res.headers.get("access-control-expose-headers")).toContain("X-Request-Id");
  });

  it("gives an origin outside ALLOWED_ORIGINS no CORS grant on the cart", async () => {
    const preflight = await api("/api/v1/cart/lines", {
      method: "OPTIONS",
      headers: { Origin: FOREIGN_ORIGIN, "Access-Control-Request-Method": "POST" },
    });
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
    const res = await withToken(TOKEN_B, "/api/v1/cart", { headers: { Origin: FOREIGN_ORIGIN } });
    await res.body?.cancel();
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("the reference over real HTTP", () => {
  it("serves the renderer `npm run docs:assets` copied from the pinned @scalar/api-reference, byte for byte", async () => {
    const served = new Uint8Array(await (await api("/docs/scalar.js")).arrayBuffer());
    const pinned = await readFile("node_modules/@scalar/api-reference/dist/browser/standalone.js");
    expect(served.byteLength).toBe(pinned.byteLength);
    expect(Buffer.from(served).equals(pinned)).toBe(true);
  });

  it("redirects / to /docs and serves the page, its assets and the OpenAPI document", async () => {
    const root = await api("/");
    expect(root.status).toBe(302);
    expect(root.headers.get("location")).toBe("/docs");
    // run_worker_first: wrangler dev sends every file through the worker, which stamps these headers.
    for (const path of [
      "/docs",
      "/docs/try",
      "/docs/scalar.js",
      "/docs/reference.js",
      "/docs/try.js",
      "/docs/docs.css",
      "/favicon.svg",
    ]) {
      const res = await api(path);
      await res.arrayBuffer();
      expect(res.status, path).toBe(200);
      expect(res.headers.get("x-content-type-options"), path).toBe("nosniff");
      expect(res.headers.get("content-security-policy"), path).toContain("connect-src 'self'");
      expect(res.headers.get("x-request-id"), path).toBeTruthy();
    }
    const doc = (await (await api("/api/v1/openapi.json")).json()) as { openapi: string; paths: object };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toContain("/api/v1/cart/lines");
  });
});

describe("the generated OpenAPI documents over real HTTP", () => {
  // `npm run docs:assets` writes both documents under public/openapi/; run_worker_first sends every
  // request through the worker, and no route serves that folder as it is.
  const OPERATOR = { headers: { Authorization: "Bearer dev-operator-secret" } };

  it("serves each document's generated bytes, the operator's only behind the operator secret", async () => {
    for (const [path, file, init] of [
      ["/api/v1/openapi.json", "public/openapi/openapi.json", {}],
      ["/api/v1/operator/openapi.json", "public/openapi/operator.openapi.json", OPERATOR],
    ] as const) {
      const res = await api(path, init);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type"), path).toBe("application/json; charset=utf-8");
      expect(Buffer.from(await res.arrayBuffer()).equals(await readFile(file)), path).toBe(true);
    }
    const anonymous = await api("/api/v1/operator/openapi.json");
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).not.toContain("openapi");
  });

  it.each([
    "/openapi/operator.openapi.json",
    "/openapi/openapi.json",
    "/openapi/",
    "/docs/..%2Fopenapi%2Foperator.openapi.json",
    "/docs/%2e%2e/openapi/operator.openapi.json",
    "/api/v1/operator/..%2F..%2F..%2Fopenapi%2Foperator.openapi.json",
  ])("never answers %s with a generated file, with or without the operator secret", async (path) => {
    for (const init of [{}, OPERATOR]) {
      const res = await api(path, init);
      const text = await res.text();
      expect(res.status, path).toBeGreaterThanOrEqual(400);
      expect(text, path).not.toContain('"openapi":"3.1.0"');
      expect(Object.keys(JSON.parse(text) as object), path).toEqual(["error"]);
    }
  });
});

describe("request logs of the dev server", () => {
  it("hold one JSON line per request, with the route pattern and never a token", async () => {
    await withToken(TOKEN_A, "/api/v1/cart", { headers: { "X-Request-Id": "e2e-log-probe-01" } });
    let text = "";
    for (let attempt = 0; attempt < 50 && !text.includes("e2e-log-probe-01"); attempt++) {
      text = await readFile(inject("e2eLogFile"), "utf8");
      if (!text.includes("e2e-log-probe-01")) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const requestLines = text.split("\n").filter((l) => l.includes('"request_id"'));
    const line = requestLines.find((l) => l.includes("e2e-log-probe-01")) ?? "";
    const json = JSON.parse(line.slice(line.indexOf("{"))) as Record<string, unknown>;
    expect(json).toMatchObject({ method: "GET", route: "/api/v1/cart", status: 200, request_id: "e2e-log-probe-01" });
    expect(requestLines.length).toBeGreaterThan(1);
    for (const l of requestLines) expect(l).not.toMatch(/LocalToken|sf_dev_|Bearer/);
  });
});
