import type { ContentfulStatusCode } from "hono/utils/http-status";
import * as z from "zod/mini";
import type { CartFailureCode } from "../cart/failure.ts";
import type { CatalogFailureCode } from "../catalog/errors.ts";
import type { CheckoutFailure } from "../checkout/failure.ts";
import { CODE_REASONS } from "../discounts/types.ts";

/** The `error.type` values of the contract's envelope. */
export const ErrorTypeSchema = /* @__PURE__ */ (() =>
  z.enum([
    "invalid_request_error",
    "authentication_error",
    "not_found_error",
    "idempotency_error",
    "rate_limit_error",
    "api_error",
    "not_implemented",
  ]))();
export type ErrorType = z.infer<typeof ErrorTypeSchema>;

/**
 * The object under `error` in every non-2xx response (but 304). One schema serves the type the
 * handlers build, the OpenAPI document and the tests that check real responses against it.
 *
 * Built by a pure arrow function called at once: the Worker never parses this answer, so the
 * bundler leaves it out (docs/decisions/0009-schema-docs-out-of-the-worker.md).
 */
export const ErrorBodySchema = /* @__PURE__ */ (() =>
  z.strictObject({
    type: ErrorTypeSchema,
    message: z.string(),
    code: z.string(),
    param: z.optional(z.string()),
    docs_url: z.optional(z.string()),
    request_id: z.optional(z.string()),
    retry: z.optional(z.boolean()),
    lines: z.optional(
      z.array(
        z.strictObject({
          id: z.string(),
          code: z.enum(["sold_out", "insufficient_stock", "resource_missing", "hold_limit", "hold_cooldown"]),
          available_quantity: z.optional(z.int().check(z.minimum(0))),
          max_quantity: z.optional(z.int().check(z.minimum(1))),
          cooldown_ends_at: z.optional(z.iso.datetime()),
        }),
      ),
    ),
    available_quantity: z.optional(z.int().check(z.minimum(0))),
    discount_codes: z.optional(
      z.array(
        z.strictObject({
          code: z.nullable(z.string()),
          reason: z.enum(CODE_REASONS),
          discount_id: z.optional(z.string()),
        }),
      ),
    ),
    shipping: z.optional(z.enum(["shipping_required", "shipping_unavailable"])),
  }))();
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/** The envelope of every error response: `{"error": {...}}` and nothing else at the top. */
export const ErrorResponseSchema = /* @__PURE__ */ (() => z.strictObject({ error: ErrorBodySchema }))();
export type ErrorResponse = z.infer<typeof ErrorResponseSchema>;

/**
 * The one error every layer throws. `app.onError` turns it into the contract's envelope, so
 * routes, validators and adapters never build error responses themselves.
 */
export class ApiError extends Error {
  readonly status: ContentfulStatusCode;
  readonly body: ErrorBody;
  readonly headers: Record<string, string>;

  constructor(status: ContentfulStatusCode, body: ErrorBody, headers: Record<string, string> = {}) {
    super(body.message);
    this.name = "ApiError";
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

/**
 * The client closed the connection before its request body was read: nobody is left to answer,
 * so the request is logged with status 499 (nginx's "client closed request"), not as a 500.
 */
export class ClientAbort extends Error {
  constructor() {
    super("The client closed the connection before the request body was read.");
    this.name = "ClientAbort";
  }
}

/** What the request log records for a ClientAbort; no client ever receives it. */
export const CLIENT_CLOSED_REQUEST = 499;

export function invalidRequest(code: string, message: string, param?: string): ApiError {
  return new ApiError(400, { type: "invalid_request_error", code, message, ...(param ? { param } : {}) });
}

export function resourceMissing(message: string, param?: string): ApiError {
  return new ApiError(404, { type: "not_found_error", code: "resource_missing", message, ...(param ? { param } : {}) });
}

export function soldOut(param?: string): ApiError {
  return new ApiError(404, {
    type: "not_found_error",
    code: "sold_out",
    message: "Sold out",
    ...(param ? { param } : {}),
  });
}

/** 409: asking for more units than live stock has left (section 9.3); says how many are. */
export function insufficientStock(message: string, available: number): ApiError {
  return new ApiError(409, {
    type: "invalid_request_error",
    code: "insufficient_stock",
    message,
    param: "quantity",
    available_quantity: available,
  });
}

export function routeNotFound(path: string): ApiError {
  return new ApiError(404, {
    type: "not_found_error",
    code: "route_not_found",
    message: `No route matches ${path}.`,
  });
}

export function methodNotAllowed(method: string, allow: readonly string[]): ApiError {
  return new ApiError(
    405,
    {
      type: "invalid_request_error",
      code: "method_not_allowed",
      message: `${method} is not allowed here. Allowed: ${allow.join(", ")}.`,
    },
    { Allow: allow.join(", ") },
  );
}

/**
 * The longest URL the worker answers, scheme and host included: Cloudflare's edge refuses longer
 * ones (414) before a worker runs, and `wrangler dev` refuses over about 64 KiB in plain text;
 * between the two, the worker answers 414 itself, in the envelope, without quoting the URL.
 */
export const MAX_URL_CHARS = 16 * 1024;

export function urlTooLong(limit: number): ApiError {
  // Answered before any route: no-store, as a private surface (the cart) requires and a catalog refusal allows.
  return new ApiError(
    414,
    {
      type: "invalid_request_error",
      code: "url_too_long",
      message: `The URL is longer than ${limit / 1024} KiB; send fewer or shorter query parameters.`,
    },
    { "Cache-Control": "no-store" },
  );
}

export function notImplemented(message: string): ApiError {
  return new ApiError(501, { type: "not_implemented", code: "not_implemented", message, retry: false });
}

export function catalogUnavailable(): ApiError {
  return new ApiError(
    503,
    { type: "api_error", code: "catalog_unavailable", message: "No catalog has been published yet." },
    { "Retry-After": "30" },
  );
}

/**
 * A worker without a usable CART_TOKEN_SECRET can neither issue nor check shopper tokens: 503, in
 * the envelope, naming what the operator must set (never a 500 with a stack).
 */
export function cartTokensUnconfigured(message: string): ApiError {
  return new ApiError(503, { type: "api_error", code: "cart_tokens_unconfigured", message });
}

/** Too many requests from one client: 429 with the window's length as `Retry-After`. */
export function rateLimited(
  message: string,
  retryAfterSeconds: number,
  headers: Record<string, string> = {},
): ApiError {
  return new ApiError(
    429,
    { type: "rate_limit_error", code: "rate_limited", message },
    { ...headers, "Retry-After": String(retryAfterSeconds) },
  );
}

/**
 * The version is live but its browse index (search, filters, sorts, facets) is missing: a 503 that
 * says so, so an operator is not sent looking for a publish that happened (the plain list of the
 * same version still answers).
 */
export function browseUnavailable(message: string): ApiError {
  return new ApiError(
    503,
    { type: "api_error", code: "browse_unavailable", message },
    { "Retry-After": "30", "Cache-Control": "no-store" },
  );
}

export function internalError(requestId: string): ApiError {
  return new ApiError(500, {
    type: "api_error",
    code: "internal_error",
    message: "Something went wrong on our side. Quote the request_id if you contact us.",
    request_id: requestId,
  });
}

/**
 * A 500 that says what is wrong: the OpenAPI documents are built in Node before dev, test and
 * deploy, and a worker started without that step (plain `wrangler dev` or `wrangler deploy`) has
 * none to serve.
 */
export function openApiDocumentMissing(requestId: string): ApiError {
  return new ApiError(500, {
    type: "api_error",
    code: "openapi_document_missing",
    message:
      "This deployment was built without its OpenAPI document: run `npm run docs:assets` before " +
      "`wrangler dev` or `wrangler deploy` (npm run dev and npm run deploy run it first).",
    request_id: requestId,
  });
}

/**
 * The 401 codes: no credential sent (`authentication_required`), one that is not a valid token or
 * secret (`token_invalid`: malformed, another scheme, unknown, a dev token outside development, a
 * wrong operator secret, a shopper token whose signature does not hold), a token that was revoked
 * (`token_revoked`), or a shopper token past its expiry (`token_expired`).
 */
export type AuthenticationCode = "authentication_required" | "token_invalid" | "token_revoked" | "token_expired";

/**
 * The contract's 401: `authentication_error` with a `code`, a link to the docs and the RFC 6750
 * challenge, with `error="invalid_token"` when a credential was sent. The message never repeats
 * the credential.
 */
export function authenticationError(docsUrl: string | undefined, message: string, code: AuthenticationCode): ApiError {
  const challenge =
    code === "authentication_required"
      ? 'Bearer realm="storefront"'
      : 'Bearer realm="storefront", error="invalid_token"';
  return new ApiError(
    401,
    { type: "authentication_error", code, message, docs_url: `${docsUrl ?? "/docs"}#authentication` },
    { "WWW-Authenticate": challenge },
  );
}

/** A failure a domain room reports as data: a catalog read or a cart operation that did not happen. */
export interface DomainFailure {
  code: CatalogFailureCode | CartFailureCode;
  message: string;
  param?: string | undefined;
  available_quantity?: number | undefined;
}

/**
 * The contract's answer to a failure a domain room reported (a thrown CatalogError, a cart
 * reply's failure): one map from the domain's codes to statuses, types and headers.
 * `token_revoked` is the cart object refusing a token KV still believes in: the same 401 as
 * any bad token, so it needs the docs URL the 401 links to.
 */
export function fromFailure(failure: DomainFailure, docsUrl?: string): ApiError {
  switch (failure.code) {
    case "resource_missing":
      return resourceMissing(failure.message, failure.param);
    case "sold_out":
      return soldOut(failure.param);
    case "insufficient_stock":
      return insufficientStock(failure.message, failure.available_quantity ?? 0);
    case "parameter_invalid":
    case "parameter_unknown":
    case "quantity_exceeded":
    case "cart_full":
    case "attributes_too_large":
      return invalidRequest(failure.code, failure.message, failure.param);
    case "idempotency_key_reused":
      return new ApiError(422, { type: "idempotency_error", code: failure.code, message: failure.message });
    case "idempotency_key_in_use":
      return new ApiError(409, { type: "idempotency_error", code: failure.code, message: failure.message });
    case "token_revoked":
      return authenticationError(docsUrl, failure.message, "token_revoked");
    case "rate_limited":
      return rateLimited(failure.message, 60);
    case "catalog_unavailable":
      return catalogUnavailable();
    case "browse_unavailable":
      return browseUnavailable(failure.message);
  }
}

/** The contract's answer to a failure the checkout desk reported. */
export function fromCheckoutFailure(failure: CheckoutFailure, docsUrl?: string): ApiError {
  switch (failure.code) {
    case "cart_empty":
      return invalidRequest("cart_empty", failure.message);
    case "checkout_unavailable":
      return new ApiError(409, {
        type: "invalid_request_error",
        code: "checkout_unavailable",
        message: failure.message,
        lines: failure.lines ?? [],
        ...(failure.discount_codes ? { discount_codes: failure.discount_codes } : {}),
        ...(failure.shipping ? { shipping: failure.shipping } : {}),
      });
    case "checkout_not_open":
      return new ApiError(409, { type: "invalid_request_error", code: "checkout_not_open", message: failure.message });
    case "parameter_missing":
      return invalidRequest("parameter_missing", failure.message, failure.param);
    case "payment_provider_unavailable":
      // 502: an upstream the worker depends on failed; retrying later may succeed.
      return new ApiError(502, { type: "api_error", code: "payment_provider_unavailable", message: failure.message });
    default:
      return fromFailure({ code: failure.code, message: failure.message, param: failure.param }, docsUrl);
  }
}

/** A webhook whose signature is missing, malformed, wrong, or from outside the 5-minute window. */
export function signatureRefused(code: "signature_invalid" | "timestamp_out_of_range", message: string): ApiError {
  return invalidRequest(code, message);
}
