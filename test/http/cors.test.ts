import { describe, expect, it } from "vitest";
import { call, cartCall, issueToken } from "../helpers/cart.ts";

const ALLOWED = ["https://shop.example", "http://localhost:5173", "http://localhost:8787"];
const DISALLOWED = ["https://evil.example", "http://localhost.evil.example:80", "https://shop.example.evil", "null"];

function preflight(path: string, origin: string, method = "POST"): Promise<Response> {
  return call(path, {
    method: "OPTIONS",
    headers: {
      Origin: origin,
      "Access-Control-Request-Method": method,
      "Access-Control-Request-Headers": "authorization, content-type, idempotency-key",
    },
  });
}

describe("CORS on the cart, checkouts and auth", () => {
  it("echoes an allowed origin with Vary: Origin and the exposed headers", async () => {
    const { token } = await issueToken();
    for (const origin of ALLOWED) {
      const res = await cartCall(token, "/cart", { headers: { Origin: origin } });
      expect(res.status).toBe(200);
      expect(res.headers.get("access-control-allow-origin")).toBe(origin);
      expect(res.headers.get("vary")).toContain("Origin");
      const exposed = (res.headers.get("access-control-expose-headers") ?? "").toLowerCase();
      for (const name of ["etag", "x-request-id", "retry-after", "idempotent-replayed", "x-catalog-version"]) {
        expect(exposed).toContain(name);
      }
    }
  });

  it("echoes an allowed origin on a 401 too, so a browser can read the error", async () => {
    const res = await call("/api/v1/cart", { headers: { Origin: "https://shop.example" } });
    expect(res.status).toBe(401);
    expect(res.headers.get("access-control-allow-origin")).toBe("https://shop.example");
  });

  it("does not echo a disallowed origin, and still varies on Origin", async () => {
    const { token } = await issueToken();
    for (const origin of DISALLOWED) {
      const res = await cartCall(token, "/cart", { headers: { Origin: origin } });
      expect(res.headers.get("access-control-allow-origin")).toBeNull();
      expect(res.headers.get("vary")).toContain("Origin");
      const pre = await preflight("/api/v1/cart/lines", origin);
      expect(pre.headers.get("access-control-allow-origin")).toBeNull();
    }
  });

  it("answers a preflight with 204 without a token, naming the path's methods, the headers and Max-Age 7200", async () => {
    const expectations: [string, string][] = [
      ["/api/v1/cart", "DELETE,GET,HEAD,OPTIONS,PATCH"],
      ["/api/v1/cart/lines", "OPTIONS,POST"],
      ["/api/v1/cart/lines/cl_abc", "DELETE,OPTIONS,PATCH"],
      ["/api/v1/checkouts", "OPTIONS,POST"],
      ["/api/v1/auth/login", "OPTIONS,POST"],
    ];
    for (const [path, methods] of expectations) {
      const res = await preflight(path, "http://localhost:3000");
      expect(res.status).toBe(204);
      expect(res.headers.get("access-control-allow-origin")).toBe("http://localhost:3000");
      const allowMethods = (res.headers.get("access-control-allow-methods") ?? "")
        .split(",")
        .map((m) => m.trim())
        .sort()
        .join(",");
      expect(allowMethods).toBe(methods);
      expect(res.headers.get("access-control-allow-headers")).toBe(
        "Authorization,Content-Type,Idempotency-Key,If-None-Match",
      );
      expect(res.headers.get("access-control-max-age")).toBe("7200");
      expect(res.headers.get("www-authenticate")).toBeNull();
    }
  });

  it("never sends Access-Control-Allow-Credentials", async () => {
    const { token } = await issueToken();
    const responses = [
      await cartCall(token, "/cart", { headers: { Origin: "https://shop.example" } }),
      await call("/api/v1/cart", { headers: { Origin: "https://shop.example" } }),
      await preflight("/api/v1/cart/lines", "https://shop.example"),
      await preflight("/api/v1/checkouts", "https://evil.example"),
      await call("/api/v1/auth/login", { method: "POST", headers: { Origin: "https://shop.example" } }),
    ];
    for (const res of responses) expect(res.headers.get("access-control-allow-credentials")).toBeNull();
  });
});
