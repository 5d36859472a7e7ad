import fc from "fast-check";
import { anyBody, headerSafe, method, oddString, pathSegment, wellFormed } from "./arbitraries.ts";

/**
 * Arbitrary whole requests over every endpoint of the API. Templates name every route (and
 * some that do not exist); placeholders are filled with hostile segments, or, for `{line}`, with
 * a real line of the fuzzing token's cart so PATCH and DELETE reach the cart object.
 */

const TEMPLATES = [
  "/api/v1/products",
  "/api/v1/products/{seg}",
  "/api/v1/products/{seg}/variants",
  "/api/v1/products/essential-crew-tee-black/variants",
  "/api/v1/collections",
  "/api/v1/collections/{seg}",
  "/api/v1/cart",
  "/api/v1/cart/lines",
  "/api/v1/cart/lines/{line}",
  "/api/v1/cart/lines/{seg}",
  "/api/v1/carts",
  "/api/v1/checkouts",
  "/api/v1/checkouts/{seg}",
  "/api/v1/webhooks/checkouts",
  "/dev/pay/{seg}",
  "/api/v1/auth/login",
  "/api/v1/operator/tokens",
  "/api/v1/operator/tokens/{seg}/revoke",
  "/api/v1/operator/tokens/{seg}/rotate",
  "/api/v1/operator/tokens/revoke-shopper",
  "/api/v1/openapi.json",
  "/api/v1/health",
  "/",
  "/docs",
  "/docs/try",
  "/docs/{seg}",
  "/api/v1/{seg}",
  "/api/v1/products/{seg}/{seg}",
  "/api/v2/products",
  "/api/v1/cart/{seg}",
];

/** Which credential a fuzzed request carries; `token` is the fuzzing token, written many ways. */
export type AuthChoice =
  | "none"
  | "bearer"
  | "lower"
  | "upper"
  | "spaces"
  | "trailing-junk"
  | "outside-alphabet"
  | "case-flipped"
  | "basic"
  | "operator"
  | "two"
  | "garbage";

/** One generated request, kept as data so fast-check can shrink it and print it on failure. */
export interface FuzzRequest {
  method: string;
  template: string;
  segments: string[];
  /** Index of a trailing-slash / double-slash variant: 0 none, 1 trailing slash, 2 double slash. */
  slashes: number;
  query: [string, string][];
  auth: AuthChoice;
  garbage: string;
  headers: Record<string, string>;
  body: string | undefined;
}

const queryKey = fc.oneof(
  fc.constantFrom(
    "limit",
    "starting_after",
    "ending_before",
    "size",
    "color",
    "title",
    "access_token",
    "token",
    "__proto__",
    "constructor",
    "Limit",
    "limit[]",
  ),
  oddString,
);
const queryValue = fc.oneof(
  fc.constantFrom(
    "1",
    "250",
    "251",
    "0",
    "-0",
    "1e309",
    "9007199254740993",
    "2.5",
    "ten",
    "essential-crew-tee-black",
    "M",
    "Black",
    "Default Title",
    "",
  ),
  oddString,
);

const contentType = fc.constantFrom(
  "application/json",
  "application/json; charset=utf-8",
  "APPLICATION/JSON",
  "application/json-patch+json",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  ";",
);

const optionalHeader = (value: fc.Arbitrary<string>) => fc.option(value.map(headerSafe), { nil: undefined });

const headers = fc
  .record({
    "Content-Type": fc.option(fc.oneof(contentType, oddString.map(headerSafe)), { nil: undefined }),
    "Idempotency-Key": optionalHeader(fc.oneof(fc.stringMatching(/^[!-~]{1,40}$/), oddString)),
    Origin: optionalHeader(
      fc.oneof(
        fc.constantFrom(
          "https://shop.example",
          "http://localhost:5173",
          "https://evil.example",
          "null",
          "http://localhost:5173.evil.example",
        ),
        oddString,
      ),
    ),
    "If-None-Match": optionalHeader(fc.oneof(fc.constantFrom("*", '"abc"', 'W/"abc"'), oddString)),
    "X-Request-Id": optionalHeader(oddString),
    "Access-Control-Request-Method": optionalHeader(fc.constantFrom("POST", "GET", "PATCH", "DELETE")),
  })
  .map((h) => Object.fromEntries(Object.entries(h).filter((e): e is [string, string] => e[1] !== undefined)));

/** Pairs that make a body closer to valid, so validation past the first field is reached. */
export function validPairs(variantIds: readonly string[]): fc.Arbitrary<[string, string]> {
  return fc.oneof(
    fc.constantFrom(...variantIds).map((id): [string, string] => ["variant_id", JSON.stringify(id)]),
    fc.integer({ min: 0, max: 1000 }).map((q): [string, string] => ["quantity", String(q)]),
    fc
      .constantFrom("essential-crew-tee-black", "M / Black")
      .map((v): [string, string] => [v.includes("/") ? "variant_title" : "handle", JSON.stringify(v)]),
    fc.string({ maxLength: 20 }).map((l): [string, string] => ["label", JSON.stringify(l)]),
  );
}

/** Any request at all, over every endpoint. */
export function fuzzRequest(variantIds: readonly string[]): fc.Arbitrary<FuzzRequest> {
  return fc.record({
    method,
    template: fc.constantFrom(...TEMPLATES),
    segments: fc.array(pathSegment, { minLength: 2, maxLength: 2 }),
    slashes: fc.constantFrom(0, 0, 0, 0, 1, 2),
    query: fc.array(fc.tuple(queryKey, queryValue), { maxLength: 3 }),
    auth: fc.constantFrom<AuthChoice>(
      "none",
      "bearer",
      "bearer",
      "bearer",
      "lower",
      "upper",
      "spaces",
      "trailing-junk",
      "outside-alphabet",
      "case-flipped",
      "basic",
      "operator",
      "two",
      "garbage",
    ),
    garbage: oddString.map(headerSafe),
    headers,
    body: anyBody(validPairs(variantIds)),
  });
}

function flipCase(text: string): string {
  return [...text].map((ch) => (ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase())).join("");
}

/** The Authorization header value for a choice, or undefined for none. */
export function authorization(
  choice: AuthChoice,
  token: string,
  operatorSecret: string,
  garbage: string,
): string | undefined {
  switch (choice) {
    case "none":
      return undefined;
    case "bearer":
      return `Bearer ${token}`;
    case "lower":
      return `bearer ${token}`;
    case "upper":
      return `BEARER ${token}`;
    case "spaces":
      return `Bearer    ${token}   `;
    case "trailing-junk":
      return `Bearer ${token} extra`;
    case "outside-alphabet":
      return `Bearer ${token.slice(0, -1)}!`;
    case "case-flipped":
      return `Bearer sf_live_${flipCase(token.slice("sf_live_".length))}`;
    case "basic":
      return `Basic ${btoa("user:pass")}`;
    case "operator":
      return `Bearer ${operatorSecret}`;
    case "two":
      return `Bearer ${token}, Bearer ${token}`;
    case "garbage":
      return garbage;
  }
}

/** The URL path of a request: template placeholders filled, `{line}` with `lineId`. */
export function pathOf(request: FuzzRequest, lineId: string): string {
  let i = 0;
  let path = request.template.replace(/\{(seg|line)\}/g, (_m, kind: string) =>
    kind === "line" ? lineId : (request.segments[i++ % 2] ?? ""),
  );
  if (request.slashes === 1) path = `${path}/`;
  if (request.slashes === 2) path = path.replace("/api/v1/", "/api/v1//");
  return path;
}

/** The query string, `?…` or empty; keys and values are encoded as a form would. */
export function queryOf(request: FuzzRequest): string {
  if (request.query.length === 0) return "";
  const params = new URLSearchParams(request.query.map(([k, v]) => [wellFormed(k), wellFormed(v)]));
  return `?${params.toString()}`;
}
