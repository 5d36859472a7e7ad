import type { MiddlewareHandler } from "hono";
import { findTargetHandler } from "hono/utils/handler";
import type { DescribedOperation, OperationSpec } from "./spec.ts";

const SPEC = Symbol("openapi.operation");

type Described = MiddlewareHandler & { [SPEC]: OperationSpec };

/**
 * Puts an operation's OpenAPI description in its route's chain, beside the handler:
 * `.get("/:handle", describe({...}), catalogRead(...), handler)`. At run time it only passes the
 * request on; the document builder finds it by walking `app.routes`, so the method and path come
 * from the route itself and no table of paths can drift from the app.
 */
export function describe(spec: OperationSpec): MiddlewareHandler {
  const middleware: MiddlewareHandler = async (_c, next) => {
    await next();
  };
  return Object.assign(middleware, { [SPEC]: spec });
}

/** Hono's `:name` path parameters as OpenAPI templates: `/products/:handle` → `/products/{handle}`. */
export function toOpenApiPath(path: string): string {
  return path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, "{$1}");
}

/** The routes of an app as `app.routes` lists them: one entry per handler or middleware. */
export interface RouteEntry {
  method: string;
  path: string;
  handler: unknown;
}

/** Every described operation of the app, in route order, with the method and path of its route. */
export function describedOperations(routes: readonly RouteEntry[]): DescribedOperation[] {
  const out: DescribedOperation[] = [];
  for (const route of routes) {
    const handler = findTargetHandler(route.handler as Parameters<typeof findTargetHandler>[0]) as Partial<Described>;
    const spec = handler[SPEC];
    if (!spec) continue;
    out.push({
      method: route.method.toLowerCase() as DescribedOperation["method"],
      path: toOpenApiPath(route.path),
      spec,
    });
  }
  return out;
}
