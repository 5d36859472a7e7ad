import type { MiddlewareHandler } from "hono";
import { findTargetHandler } from "hono/utils/handler";
import type { DescribedOperation, OperationDoc } from "./spec.ts";

const OPERATION_ID = Symbol("openapi.operationId");

type Described = MiddlewareHandler & { [OPERATION_ID]: string };

/**
 * Names an operation in its route's chain, beside the handler:
 * `.get("/:handle", describe("getProduct"), catalogRead(...), handler)`. At run time it only passes
 * the request on; the document builder finds the id by walking `app.routes`, so the method and
 * path come from the route itself and no table of paths can drift from the app. The description
 * itself lives in src/routes/reference/ under the same id: the Worker never carries it (it was
 * about a fifth of the bundle: summaries, descriptions, examples and response schemas).
 */
export function describe(operationId: string): MiddlewareHandler {
  const middleware: MiddlewareHandler = async (_c, next) => {
    await next();
  };
  return Object.assign(middleware, { [OPERATION_ID]: operationId });
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

/**
 * Every described operation of the app, in route order, with the method and path of its route and
 * its description from `docs`. Throws for an id `docs` does not describe, and for a description no
 * route names (a renamed or removed route), so neither can drift.
 */
export function describedOperations(
  routes: readonly RouteEntry[],
  docs: Readonly<Record<string, OperationDoc>>,
): DescribedOperation[] {
  const out: DescribedOperation[] = [];
  for (const route of routes) {
    const handler = findTargetHandler(route.handler as Parameters<typeof findTargetHandler>[0]) as Partial<Described>;
    const operationId = handler[OPERATION_ID];
    if (operationId === undefined) continue;
    const doc = Object.hasOwn(docs, operationId) ? docs[operationId] : undefined;
    if (!doc)
      throw new Error(`The route ${route.method} ${route.path} names "${operationId}", which has no description.`);
    out.push({
      method: route.method.toLowerCase() as DescribedOperation["method"],
      path: toOpenApiPath(route.path),
      spec: { operationId, ...doc },
    });
  }
  const named = new Set(out.map((op) => op.spec.operationId));
  const unused = Object.keys(docs).filter((id) => !named.has(id));
  if (unused.length > 0) throw new Error(`Descriptions no route names: ${unused.join(", ")}.`);
  return out;
}
