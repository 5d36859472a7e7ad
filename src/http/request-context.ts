import type { Context, ErrorHandler, MiddlewareHandler, NotFoundHandler } from "hono";
import { routePath } from "hono/route";
import type { AppEnv } from "./app-env.ts";
import { CatalogError } from "../catalog/errors.ts";
import {
  ApiError,
  ClientAbort,
  CLIENT_CLOSED_REQUEST,
  type ErrorBody,
  fromFailure,
  internalError,
  MAX_URL_CHARS,
  methodNotAllowed,
  routeNotFound,
  urlTooLong,
} from "./errors.ts";
import { holdsCredential, looksLikeCredential, redactSecrets } from "./secrets.ts";
import { setResponseHeaders } from "./response-headers.ts";
import type { RouteTable } from "./route-table.ts";

/** What a client's request id may look like: an id, not a sentence, a header value or a URL. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
/** Ids shaped like a credential: a token prefix (`sf_`) or an auth scheme word, anywhere in the id. */
const CREDENTIAL_LIKE = /sf_|bearer|basic/i;

/**
 * The inbound X-Request-Id when it looks like an id and cannot be a credential pasted into the
 * wrong header: a token, a `Bearer …` value, (anywhere in it) the operator secret, or anything
 * shaped like a secret whatever its prefix (looksLikeCredential: a long base62/base64 run, a long
 * run of letters and digits, a JWT). Anything else is replaced by a new id, so it is neither
 * echoed nor logged.
 */
export function inboundRequestId(value: string | undefined, env: Env | undefined): string | undefined {
  if (
    value === undefined ||
    !SANE_REQUEST_ID.test(value) ||
    CREDENTIAL_LIKE.test(value) ||
    holdsCredential(value, env) ||
    looksLikeCredential(value)
  )
    return undefined;
  return value;
}

function newRequestId(): string {
  return `req_${crypto.randomUUID().replaceAll("-", "")}`;
}

/**
 * Outermost middleware: gives the request an id, stamps the headers every response carries and
 * writes the one log line per request. The line holds no body and no header value but a sane
 * inbound request id, and an id shaped like a credential is replaced, so no secret reaches the logs.
 */
export function requestContext(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = Date.now();
    const requestId = inboundRequestId(c.req.header("x-request-id"), c.env) ?? newRequestId();
    c.set("requestId", requestId);
    // Answered here, not thrown: the headers and the log line below still apply.
    if (c.req.url.length > MAX_URL_CHARS) c.res = errorResponse(c, urlTooLong(MAX_URL_CHARS));
    else await next();
    setResponseHeaders(c, (headers) => {
      headers.set("X-Request-Id", requestId);
      headers.set("X-Content-Type-Options", "nosniff");
      if (headers.get("content-type") === "application/json")
        headers.set("Content-Type", "application/json; charset=utf-8");
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

/**
 * Renders an ApiError as the contract's envelope. Messages and other texts that quote the request
 * (a path, a parameter, the host in `docs_url`) never carry a token or the operator secret back:
 * they are redacted here, once for every error.
 */
export function errorResponse(c: Context<AppEnv>, error: ApiError): Response {
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  return c.json({ error: redactedBody(error.body, c.env) }, error.status);
}

/** An error body with every string field passed through `redactSecrets`. */
export function redactedBody(body: ErrorBody, env: Env | undefined): ErrorBody {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(body))
    out[name] = typeof value === "string" ? redactSecrets(value, env) : value;
  return out as ErrorBody;
}

/**
 * The one error handler. Anything that is not an ApiError (or a client that hung up mid-body) is a
 * bug: it is logged by name and message only (never a stack, never request data, secrets redacted)
 * and answered as a 500 with the request id.
 */
export const onError: ErrorHandler<AppEnv> = (err, c) => {
  if (err instanceof ApiError) return errorResponse(c, err);
  // The client is gone: the answer reaches no one, and the log line says 499, not a server error.
  if (err instanceof ClientAbort) return new Response(null, { status: CLIENT_CLOSED_REQUEST });
  if (err instanceof CatalogError) return errorResponse(c, fromFailure(err));
  const requestId = c.get("requestId") ?? newRequestId();
  console.error(
    JSON.stringify({
      level: "error",
      error: err.name,
      message: redactSecrets(err.message, c.env),
      request_id: requestId,
    }),
  );
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
