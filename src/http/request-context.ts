import type { Context, ErrorHandler, MiddlewareHandler, NotFoundHandler } from "hono";
import { routePath } from "hono/route";
import type { AppEnv } from "./app-env.ts";
import { CatalogError } from "../catalog/errors.ts";
import { ApiError, fromFailure, internalError, methodNotAllowed, routeNotFound } from "./errors.ts";
import { setResponseHeaders } from "./response-headers.ts";
import type { RouteTable } from "./route-table.ts";

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/;
/** Token prefixes (`sf_live_`, `sf_dev_`): an inbound id shaped like a token is never echoed or logged. */
const TOKEN_LIKE = /^sf_/i;

/** The inbound X-Request-Id when it is sane and cannot be a token pasted into the wrong header. */
function inboundRequestId(value: string | undefined): string | undefined {
  return value !== undefined && SANE_REQUEST_ID.test(value) && !TOKEN_LIKE.test(value) ? value : undefined;
}

function newRequestId(): string {
  return `req_${crypto.randomUUID().replaceAll("-", "")}`;
}

/**
 * Outermost middleware: gives the request an id, stamps the headers every response carries and
 * writes the one log line per request. The line holds no body and no header value but a sane
 * inbound request id, and an id shaped like a token is replaced, so no token reaches the logs.
 */
export function requestContext(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = Date.now();
    const requestId = inboundRequestId(c.req.header("x-request-id")) ?? newRequestId();
    c.set("requestId", requestId);
    await next();
    setResponseHeaders(c, (headers) => {
      headers.set("X-Request-Id", requestId);
      headers.set("X-Content-Type-Options", "nosniff");
      if (headers.get("content-type") === "application/json") headers.set("Content-Type", "application/json; charset=utf-8");
    });
    console.log(
      JSON.stringify({
        method: c.req.method,
        route: routePath(c),
        status: c.res.status,
        duration_ms: Date.now() - started,
        cache: c.get("cacheStatus") ?? null,
        request_id: requestId,
      }),
    );
  };
}

/** Anything shaped like a token inside a text: its prefix and the token alphabet after it. */
const TOKEN_IN_TEXT = /sf_[A-Za-z0-9_]*/gi;

/** Replaces every token-shaped value with `sf_…`, so no answer repeats a token it was given. */
export function redactTokens(text: string): string {
  return text.replace(TOKEN_IN_TEXT, "sf_…");
}

/**
 * Renders an ApiError as the contract's envelope. Messages and params that quote the request
 * (a path, a parameter name) never carry a token back: token-shaped values are redacted here,
 * once for every error.
 */
export function errorResponse(c: Context<AppEnv>, error: ApiError): Response {
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  const { message, param } = error.body;
  const body = { ...error.body, message: redactTokens(message), ...(param !== undefined ? { param: redactTokens(param) } : {}) };
  return c.json({ error: body }, error.status);
}

/**
 * The one error handler. Anything that is not an ApiError is a bug: it is logged by name and
 * message only (never a stack, never request data) and answered as a 500 with the request id.
 */
export const onError: ErrorHandler<AppEnv> = (err, c) => {
  if (err instanceof ApiError) return errorResponse(c, err);
  if (err instanceof CatalogError) return errorResponse(c, fromFailure(err));
  const requestId = c.get("requestId") ?? newRequestId();
  console.error(JSON.stringify({ level: "error", error: err.name, message: err.message, request_id: requestId }));
  return errorResponse(c, internalError(requestId));
};

/**
 * 404 for unknown paths, 405 with `Allow` for known paths and the wrong method. `OPTIONS` is in
 * every known path's `Allow`, so where no CORS middleware answered it (health, docs) it gets
 * what RFC 9110 says an OPTIONS answer is: 204 with `Allow`, not a 405 that lists OPTIONS.
 */
export function notFoundHandler(table: RouteTable): NotFoundHandler<AppEnv> {
  return (c) => {
    const allow = table.allowedMethods(c.req.path);
    if (allow.length === 0) return errorResponse(c, routeNotFound(c.req.path));
    if (c.req.method === "OPTIONS") {
      c.header("Allow", allow.join(", "));
      return c.body(null, 204);
    }
    return errorResponse(c, methodNotAllowed(c.req.method, allow));
  };
}
