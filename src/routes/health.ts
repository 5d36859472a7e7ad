import { Hono } from "../http/hono.ts";
import type { AppEnv } from "../http/app-env.ts";
import { describe } from "../openapi/describe.ts";

/**
 * The cheapest route the worker has: no binding is touched. Readiness probes use it, and the
 * benchmark uses it as the runtime's ceiling.
 */
export const health = new Hono<AppEnv>().get("/", describe("getHealth"), (c) => {
  c.header("Cache-Control", "no-store");
  return c.json({ status: "ok" });
});
