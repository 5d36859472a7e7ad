import { type ErrorBody, ErrorResponseSchema } from "../http/errors.ts";
import type { HeaderName, ResponseSpec } from "./spec.ts";

type Example = { summary: string; value: { error: ErrorBody } };

function example(summary: string, error: ErrorBody): Example {
  return { summary, value: { error } };
}

const AUTH_DOCS = "https://storefront.example.com/docs#authentication";

/**
 * The contract's error table, one entry per status, with one example per `code`. All
 * but 405: it answers a method a path has no operation for, so no operation can declare it (the
 * document's description states it).
 */
const ERRORS = {
  400: {
    description: "The request is invalid: malformed JSON, a schema violation, an unknown field or query parameter.",
    examples: {
      parameter_unknown: example("An unknown query parameter or field", {
        type: "invalid_request_error",
        code: "parameter_unknown",
        message: "Unknown query parameter: sort.",
        param: "sort",
      }),
      parameter_invalid: example("A value the schema refuses", {
        type: "invalid_request_error",
        code: "parameter_invalid",
        message: "Invalid limit: Too big: expected number to be <=250.",
        param: "limit",
      }),
      parameter_missing: example("A required field is absent", {
        type: "invalid_request_error",
        code: "parameter_missing",
        message: "Missing required parameter: variant_id.",
        param: "variant_id",
      }),
      quantity_exceeded: example("A line would go above 999", {
        type: "invalid_request_error",
        code: "quantity_exceeded",
        message: "A cart line holds at most 999 units.",
        param: "quantity",
      }),
      cart_full: example("A 251st line", {
        type: "invalid_request_error",
        code: "cart_full",
        message: "A cart holds at most 250 lines.",
      }),
      attributes_too_large: example("A note or attributes past the cart's 65,536 bytes", {
        type: "invalid_request_error",
        code: "attributes_too_large",
        message:
          "A cart's note and attributes, its lines' attributes included, hold at most 65,536 bytes of UTF-8 " +
          "together; this write would make them 65,601.",
        param: "attributes",
      }),
      cart_empty: example("Checking out an empty cart", {
        type: "invalid_request_error",
        code: "cart_empty",
        message: "The cart is empty: add a line before checking out.",
      }),
      signature_invalid: example("A webhook without a valid signature", {
        type: "invalid_request_error",
        code: "signature_invalid",
        message: "The Storefront-Signature does not match this body.",
      }),
      timestamp_out_of_range: example("A genuine signature from more than 5 minutes ago", {
        type: "invalid_request_error",
        code: "timestamp_out_of_range",
        message: "The signature's timestamp is more than 300 seconds from now: a replay, or a clock far off.",
      }),
      invalid_json: example("The body is not JSON", {
        type: "invalid_request_error",
        code: "invalid_json",
        message: "The request body is not valid JSON.",
      }),
    },
  },
  401: {
    description:
      "The Bearer token is missing (`authentication_required`), malformed, of another scheme " +
      "or unknown, or a shopper token whose signature does not hold (`token_invalid`), revoked " +
      "(`token_revoked`), or a shopper token past its expiry (`token_expired`: get a new cart " +
      "with `POST /carts`).",
    headers: ["WWW-Authenticate"],
    examples: {
      authentication_required: example("No Authorization header", {
        type: "authentication_error",
        code: "authentication_required",
        message: "This operation needs a token: send Authorization: Bearer <token>.",
        docs_url: AUTH_DOCS,
      }),
      token_invalid: example("A malformed or unknown token, or another scheme", {
        type: "authentication_error",
        code: "token_invalid",
        message: "The token is not valid.",
        docs_url: AUTH_DOCS,
      }),
      token_expired: example("A shopper token past its expiry", {
        type: "authentication_error",
        code: "token_expired",
        message: "The token has expired: get a new one with POST /carts.",
        docs_url: AUTH_DOCS,
      }),
      token_revoked: example("A revoked token", {
        type: "authentication_error",
        code: "token_revoked",
        message: "The token has been revoked.",
        docs_url: AUTH_DOCS,
      }),
    },
  },
  404: {
    description:
      "Not found: an unknown resource (`resource_missing`), a sold-out product or variant " +
      "(`sold_out`), or no such route (`route_not_found`).",
    examples: {
      resource_missing: example("An unknown handle, variant or line", {
        type: "not_found_error",
        code: "resource_missing",
        message: "No product with handle no-such-shirt.",
        param: "handle",
      }),
      route_not_found: example("No such route", {
        type: "not_found_error",
        code: "route_not_found",
        message: "No route GET /docs/nope.js.",
      }),
      sold_out: example("A sold-out product or variant", {
        type: "not_found_error",
        code: "sold_out",
        message: "Sold out",
      }),
    },
  },
  409: {
    description:
      "A checkout's lines cannot all be held (`checkout_unavailable`, with `lines`: a line's " +
      "`code` is `sold_out`, `insufficient_stock`, `resource_missing`, `hold_limit` or " +
      "`hold_cooldown`; or with `shipping` or `discount_codes` for a fault of the cost), a checkout " +
      "is no longer open (`checkout_not_open`), a request with the same Idempotency-Key is still " +
      "running (`idempotency_key_in_use`), " +
      "a page names a catalog version that is no longer live (`cursor_stale`: restart from the " +
      "first page), a token to rotate is revoked already (`token_already_revoked`: only a " +
      "live token rotates), or more units were asked for than live stock has left " +
      "(`insufficient_stock`, with `available_quantity`), or the live catalog was published " +
      "before change batches existed (`catalog_republish_required`: publish it once more, then " +
      "apply changes).",
    examples: {
      insufficient_stock: example("More than is left", {
        type: "invalid_request_error",
        code: "insufficient_stock",
        message: "Only 3 left; the line would hold 4.",
        param: "quantity",
        available_quantity: 3,
      }),
      cursor_stale: example("A cursor of a catalog that is no longer live", {
        type: "invalid_request_error",
        code: "cursor_stale",
        message:
          "This page belongs to catalog version 20261124T204000Z-a1b2c3, which is no longer live " +
          "(now 20261124T210000Z-d4e5f6). Restart from the first page, without catalog_version.",
        param: "catalog_version",
      }),
      token_already_revoked: example("Rotating a revoked token", {
        type: "invalid_request_error",
        code: "token_already_revoked",
        message: "That token is revoked; only a live token rotates.",
        param: "id",
      }),
      checkout_unavailable: example("A line sold out or short of stock", {
        type: "invalid_request_error",
        code: "checkout_unavailable",
        message: "Some lines cannot be bought as they are: see lines. Nothing was held.",
        lines: [
          { id: "cl_4f9XbQ2mZk7LwR1tYc8e", code: "insufficient_stock", available_quantity: 2 },
          { id: "cl_9aKd3Lm2Qp8Rt5Vx1Zb6", code: "sold_out", available_quantity: 0 },
        ],
      }),
      hold_rules: example("Holds cannot be hoarded", {
        type: "invalid_request_error",
        code: "checkout_unavailable",
        message: "Some lines cannot be bought as they are: see lines. Nothing was held.",
        lines: [
          { id: "cl_4f9XbQ2mZk7LwR1tYc8e", code: "hold_limit", available_quantity: 40, max_quantity: 10 },
          { id: "cl_9aKd3Lm2Qp8Rt5Vx1Zb6", code: "hold_cooldown", cooldown_ends_at: "2026-12-01T10:20:00.000Z" },
        ],
      }),
      checkout_not_open: example("Canceling a completed or expired checkout", {
        type: "invalid_request_error",
        code: "checkout_not_open",
        message: "This checkout is completed; only an open checkout can be canceled.",
      }),
      catalog_republish_required: example("A live catalog older than change batches", {
        type: "invalid_request_error",
        code: "catalog_republish_required",
        message:
          "The live catalog 20261001T120000Z-a1b2c3 was published before change batches existed: publish it once more (npm run catalog:publish), then apply changes to it.",
      }),
      idempotency_key_in_use: example("Concurrent retry", {
        type: "idempotency_error",
        code: "idempotency_key_in_use",
        message: "A request with this Idempotency-Key is still being processed.",
      }),
    },
  },
  412: {
    description:
      "`PUT /operator/rules` (or a rollback) whose `If-Match` does not name the live rules' version: they changed since they were read (`rules_version_mismatch`).",
    examples: {
      rules_version_mismatch: example("The rules changed meanwhile", {
        type: "invalid_request_error",
        code: "rules_version_mismatch",
        message:
          "The live rules are version 20261201T093000Z-77ab01, not the one If-Match names: they changed since you read them.",
        param: "If-Match",
      }),
    },
  },
  413: {
    description:
      "The request body is larger than 16 KiB (64 KiB for a checkout webhook delivery, 128 KiB for an " +
      "operator stock batch, 512 KiB for a rules document, 8 MiB for a catalog change batch).",
    examples: {
      body_too_large: example("Too large", {
        type: "invalid_request_error",
        code: "body_too_large",
        message: "The request body is larger than 16 KiB.",
      }),
    },
  },
  414: {
    description:
      "The URL (scheme and host included) is longer than 16 KiB: on any path, before the route runs " +
      "(Schemathesis found it undocumented: issue 42, point 19).",
    examples: {
      url_too_long: example("A URL over 16 KiB", {
        type: "invalid_request_error",
        code: "url_too_long",
        message: "The URL is longer than 16 KiB; send fewer or shorter query parameters.",
      }),
    },
  },
  415: {
    description: "A write without `Content-Type: application/json`.",
    examples: {
      unsupported_media_type: example("Not JSON", {
        type: "invalid_request_error",
        code: "unsupported_media_type",
        message: "Send the body as JSON with Content-Type: application/json.",
      }),
    },
  },
  422: {
    description: "The Idempotency-Key was already used with a different request.",
    examples: {
      idempotency_key_reused: example("Key reused", {
        type: "idempotency_error",
        code: "idempotency_key_reused",
        message: "This Idempotency-Key was used with a different request.",
      }),
    },
  },
  428: {
    description:
      "`PUT /operator/rules` without `If-Match` while rules are live (`precondition_required`): say which version you read, or `*`.",
    examples: {
      precondition_required: example("A write that did not say what it read", {
        type: "invalid_request_error",
        code: "precondition_required",
        message:
          "Rules are live (version 20261201T093000Z-77ab01): send If-Match with the ETag GET /operator/rules answered.",
        param: "If-Match",
      }),
    },
  },
  429: {
    description:
      "Too many requests: more than 120 cart writes in a minute with this token, more than 20 " +
      "`POST /carts` in a minute from one client address, or on the operator surface more than 30 " +
      "wrong operator secrets in a minute from this address, or more than 10 `POST /checkouts` in " +
      "a minute with this token or 60 from this address. A client address is " +
      "`CF-Connecting-IP`; an IPv6 one counts by its /64 (every address of one /64 shares one budget).",
    headers: ["Retry-After"],
    examples: {
      rate_limited: example("Too many writes", {
        type: "rate_limit_error",
        code: "rate_limited",
        message: "Too many cart writes for this token. Retry after the Retry-After delay.",
      }),
    },
  },
  500: {
    description: "Something unexpected failed; quote `request_id` to support. Never a stack trace.",
    examples: {
      internal_error: example("Unexpected failure", {
        type: "api_error",
        code: "internal_error",
        message: "Something went wrong on our side. Quote the request_id if you contact us.",
        request_id: "req_3f1c2d9a8b7e4f6a9c0d1e2f3a4b5c6d",
      }),
    },
  },
  501: {
    description: "Reserved for a future release. Retrying will not help.",
    examples: {
      not_implemented: example("Reserved", {
        type: "not_implemented",
        code: "not_implemented",
        message: "Login is reserved for a future release.",
        retry: false,
      }),
    },
  },
  502: {
    description:
      "The payment provider (`PAYMENT_PROVIDER=stripe`) did not make the checkout's payment session: " +
      "down, timing out or refusing (`payment_provider_unavailable`). Nothing was held and no checkout " +
      "stays open; retry (the same Idempotency-Key is safe).",
    examples: {
      payment_provider_unavailable: example("Stripe down or refusing", {
        type: "api_error",
        code: "payment_provider_unavailable",
        message: "The payment provider did not make the payment session; nothing was held. Try again.",
      }),
    },
  },
  503: {
    description:
      "No catalog has been published yet (`catalog_unavailable`, with `Retry-After`); the live " +
      "version has no browse index, so `q`, filters, sorts and facets cannot be answered while the " +
      "plain list can (`browse_unavailable`: the operator publishes the catalog again); or this " +
      "server has no usable `CART_TOKEN_SECRET`, so it can neither issue nor check shopper tokens " +
      "(`cart_tokens_unconfigured`: its operator must set it); or a rules write could not reach " +
      "storage (`rules_unavailable`: nothing changed, retry); or a catalog change batch waited " +
      "20 s for a publish, rollback or other batch to end (`catalog_busy`, with `Retry-After`: " +
      "nothing changed, retry). Never cached.",
    headers: ["Retry-After"],
    examples: {
      cart_tokens_unconfigured: example("No CART_TOKEN_SECRET", {
        type: "api_error",
        code: "cart_tokens_unconfigured",
        message:
          "Shopper tokens are not configured on this server: its operator must set CART_TOKEN_SECRET " +
          "(wrangler secret put CART_TOKEN_SECRET, at least 32 bytes, not the development value).",
      }),
      rules_unavailable: example("The rules store did not answer", {
        type: "api_error",
        code: "rules_unavailable",
        message: "The rules store did not answer (KV): nothing changed. Retry.",
      }),
      catalog_busy: example("Another catalog operation holds the lock", {
        type: "api_error",
        code: "catalog_busy",
        message:
          "Another catalog publish, batch or rollback held the catalog for 20 s: nothing was changed. Retry after 30 s.",
      }),
      catalog_unavailable: example("Nothing published", {
        type: "api_error",
        code: "catalog_unavailable",
        message: "No catalog has been published yet.",
      }),
      browse_unavailable: example("The live version has no browse index", {
        type: "api_error",
        code: "browse_unavailable",
        message:
          "Search, filters, sorts and facets are unavailable: this catalog version has no browse index " +
          "(the operator must publish the catalog again). The plain list (without q, filters or sort) still works.",
      }),
    },
  },
} satisfies Record<number, { description: string; headers?: HeaderName[]; examples: Record<string, Example> }>;

type Errors = typeof ERRORS;
/** Every error `code` the contract names (a typo in a route's list is a type error). */
export type ErrorCode = { [S in keyof Errors]: keyof Errors[S]["examples"] & string }[keyof Errors];

/** The error statuses of the contract, for the test that checks the document covers them all. */
export const ERROR_STATUSES = Object.keys(ERRORS).map(Number);

const STATUS_OF = new Map<string, keyof Errors>(
  Object.entries(ERRORS).flatMap(([status, spec]) =>
    Object.keys(spec.examples).map((code) => [code, Number(status) as keyof Errors] as const),
  ),
);

/** What a Bearer-authenticated route can answer before its handler runs. */
export const TOKEN_ERRORS = ["authentication_required", "token_invalid", "token_revoked"] as const;
/** A route that takes customer Bearer tokens, shopper tokens (`sf_cart_…`, which expire and need CART_TOKEN_SECRET) included. */
export const BEARER_ERRORS = [...TOKEN_ERRORS, "token_expired", "cart_tokens_unconfigured"] as const;
/** What an operator route can answer before its handler runs: the secret's 401s, and 429 for an address guessing it. */
export const OPERATOR_ERRORS = [...TOKEN_ERRORS, "rate_limited"] as const;
/** A route with a query schema. */
export const QUERY_ERRORS = ["parameter_unknown", "parameter_invalid"] as const;
/** A route that reads a JSON body (src/http/validate.ts and the body limit). */
export const JSON_BODY_ERRORS = ["invalid_json", "body_too_large", "unsupported_media_type"] as const;
/** A cart write: its token, Idempotency-Key, rate limit and the catalog it prices from. */
export const CART_WRITE_ERRORS = [
  ...BEARER_ERRORS,
  "idempotency_key_in_use",
  "idempotency_key_reused",
  "rate_limited",
  "catalog_unavailable",
] as const;

/**
 * The error responses of an operation that can answer `codes`: each of their statuses with the
 * envelope schema, its headers and an example per code, and always 500. (414 is added to every
 * operation by the document builder: a URL over 16 KiB is refused on any path.)
 */
export function errors(...codes: ErrorCode[]): Record<number, ResponseSpec> {
  const wanted = new Set<string>([...codes, "internal_error"]);
  const out: Record<number, ResponseSpec> = {};
  for (const status of new Set([...wanted].map((code) => STATUS_OF.get(code)!))) {
    const spec: { description: string; headers?: HeaderName[]; examples: Record<string, Example> } = ERRORS[status];
    const examples = Object.fromEntries(Object.entries(spec.examples).filter(([code]) => wanted.has(code)));
    out[status] = {
      description: spec.description,
      schema: ErrorResponseSchema,
      headers: ["X-Request-Id", ...(spec.headers ?? [])],
      examples,
      codes: Object.keys(examples),
    };
  }
  return out;
}
