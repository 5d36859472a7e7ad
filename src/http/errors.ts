import type { ContentfulStatusCode } from "hono/utils/http-status";

/** The `error.type` values of the contract's envelope. */
export type ErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "not_found_error"
  | "idempotency_error"
  | "rate_limit_error"
  | "api_error"
  | "not_implemented";

/** The object under `error` in every non-2xx response (but 304). */
export interface ErrorBody {
  type: ErrorType;
  message: string;
  code?: string;
  param?: string;
  docs_url?: string;
  request_id?: string;
  retry?: boolean;
}

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

export function invalidRequest(code: string, message: string, param?: string): ApiError {
  return new ApiError(400, { type: "invalid_request_error", code, message, ...(param ? { param } : {}) });
}

export function resourceMissing(message: string, param?: string): ApiError {
  return new ApiError(404, { type: "not_found_error", code: "resource_missing", message, ...(param ? { param } : {}) });
}

export function soldOut(param?: string): ApiError {
  return new ApiError(404, { type: "not_found_error", code: "sold_out", message: "Sold out", ...(param ? { param } : {}) });
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

export function notImplemented(message: string): ApiError {
  return new ApiError(501, { type: "not_implemented", message, retry: false });
}

export function catalogUnavailable(): ApiError {
  return new ApiError(
    503,
    { type: "api_error", code: "catalog_unavailable", message: "No catalog has been published yet." },
    { "Retry-After": "30" },
  );
}

export function internalError(requestId: string): ApiError {
  return new ApiError(500, {
    type: "api_error",
    message: "Something went wrong on our side. Quote the request_id if you contact us.",
    request_id: requestId,
  });
}
