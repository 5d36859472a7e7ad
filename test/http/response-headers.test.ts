import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { AppEnv } from "../../src/http/app-env.ts";
import { setResponseHeaders } from "../../src/http/response-headers.ts";

describe("setResponseHeaders", () => {
  it("sets headers on the handler's own response, without copying it", async () => {
    const a = new Hono<AppEnv>();
    let before: Response | undefined;
    let after: Response | undefined;
    a.use(async (c, next) => {
      await next();
      before = c.res;
      setResponseHeaders(c, (h) => h.set("X-Stamp", "1"));
      after = c.res;
    });
    a.get("/", (c) => c.text("ok"));
    const res = await a.request("https://storefront.test/");
    expect(res.headers.get("x-stamp")).toBe("1");
    expect(after).toBe(before);
  });

  it("copies a response whose headers the runtime will not change, keeping its status and body", async () => {
    expect(() => Response.redirect("https://storefront.test/elsewhere", 302).headers.set("X-Stamp", "1")).toThrow(
      TypeError,
    );
    const a = new Hono<AppEnv>();
    a.use(async (c, next) => {
      await next();
      setResponseHeaders(c, (h) => h.set("X-Stamp", "1"));
    });
    a.get("/", () => Response.redirect("https://storefront.test/elsewhere", 302));
    const res = await a.request("https://storefront.test/");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("https://storefront.test/elsewhere");
    expect(res.headers.get("x-stamp")).toBe("1");
  });
});
