import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { signatureHeader } from "../../src/checkout/signature.ts";
import { publishSeedCatalog } from "../helpers/catalog.ts";
import { ORIGIN as BASE } from "../helpers/worker.ts";
import type { Json } from "./rules.ts";
import { ServedDocument } from "./served-document.ts";

/**
 * Real responses of every operation, valid and invalid requests, checked against the documents
 * the worker serves (`/api/v1/openapi.json`, `/api/v1/operator/openapi.json`) with a JSON-schema
 * validator: the operation found by method and path template, the status declared, the declared
 * headers sent, the body of the declared media type and schema. Every GET is sent as HEAD too.
 * Last, every documented status must have been answered, but for the few listed with a reason.
 */

const OPERATOR = { Authorization: "Bearer test-operator-secret" };
const JSON_TYPE = { "Content-Type": "application/json" };
/**
 * Declared headers a response may leave out: a replay's marker, Vary (only with an Origin), and
 * a list's Link (only when the page has a neighbour).
 */
const OPTIONAL_HEADERS = new Set(["Idempotent-Replayed", "Vary", "Link"]);

/** Statuses no request from outside can provoke on purpose, with the reason. */
const UNPROVOKABLE: [RegExp, string][] = [
  [/ 500$/, "an unexpected failure"],
  [/ 414$/, "a URL over 16 KiB, on every path: test/openapi/documented-statuses.test.ts sends one to every operation"],
  [/ 409$/, "Idempotency-Key still in use: two requests racing inside one Durable Object"],
  [
    /^POST \/api\/v1\/checkouts 502$/,
    "Stripe down or refusing needs PAYMENT_PROVIDER=stripe and a failing Stripe (test/payment/stripe-checkout.test.ts)",
  ],
  [
    /^POST \/api\/v1\/(carts|checkouts) 503$|^GET \/api\/v1\/orders\/\{id\} 503$/,
    "no usable CART_TOKEN_SECRET: a deployment's misconfiguration (test/cart/shopper-tokens.test.ts sets it up)",
  ],
  [
    /^(GET|HEAD|DELETE|PATCH) \/api\/v1\/cart 503$|^(PATCH|DELETE) \/api\/v1\/cart\/lines\/\{line_id\} 503$/,
    "a catalog version vanishing under a cart read or update: a race with a publish",
  ],
  [
    /^POST \/api\/v1\/operator\/catalog\/changes 503$/,
    "another publish holding the catalog lock, or no catalog yet: test/writer/changes.test.ts and changes-unpublished.test.ts",
  ],
  [
    /^POST \/api\/v1\/checkouts 503$/,
    "a cart with lines before any publish cannot exist: only a catalog version vanishing under a checkout",
  ],
];

interface Case {
  status: number;
  name: string;
  request: () => [string, RequestInit?];
}

// Until the requests that learn them run, ids read as their path parameters (so test names show them).
const state = {
  token: "",
  tokenId: "{id}",
  lineId: "{line_id}",
  leakedHash: "",
  limitedToken: "",
  /** A token that has spent its 10 checkouts a minute (its cart empty: each answers 400 until the 429). */
  checkoutLimitedToken: "",
  checkoutToken: "",
  checkoutId: "{id}",
  checkoutTotal: "0.00",
  orderId: "{order_id}",
  /** The live catalog version (the seed's), for the operator's preview of a kept version. */
  catalogVersion: "{version}",
  /** Signed webhook deliveries, made in beforeAll (signing is asynchronous, a case's request is not). */
  hooks: {} as Record<"unknown" | "ignored" | "badJson", { body: string; signature: string }>,
  etags: new Map<string, string>(),
};
const documents: ServedDocument[] = [];

function bearer(extra: Record<string, string> = {}, token = state.token): Record<string, string> {
  return { Authorization: `Bearer ${token}`, ...extra };
}

function revalidate(path: string): [string, RequestInit] {
  return [path, { headers: { "If-None-Match": state.etags.get(path) ?? "missing" } }];
}

async function issue(label: string): Promise<{ id: string; token: string }> {
  const res = await exports.default.fetch(`${BASE}/api/v1/operator/tokens`, {
    method: "POST",
    headers: { ...OPERATOR, ...JSON_TYPE },
    body: JSON.stringify({ label }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; token: string };
}

async function loadDocuments(): Promise<void> {
  if (documents.length > 0) return;
  const publicDoc = (await (await exports.default.fetch(`${BASE}/api/v1/openapi.json`)).json()) as Json;
  const operatorDoc = (await (
    await exports.default.fetch(`${BASE}/api/v1/operator/openapi.json`, { headers: OPERATOR })
  ).json()) as Json;
  documents.push(
    new ServedDocument(publicDoc, `${BASE}/api/v1/openapi.json`),
    new ServedDocument(operatorDoc, `${BASE}/api/v1/operator/openapi.json`),
  );
}

/** Sends the case's request, checks the answer against the document that describes its path, and returns a copy of it. */
async function conform(c: Case): Promise<Response> {
  const [path, init = {}] = c.request();
  const method = (init.method ?? "GET").toUpperCase();
  const res = await exports.default.fetch(`${BASE}${path}`, { redirect: "manual", ...init });
  expect(res.status, `${method} ${path} (${c.name})`).toBe(c.status);
  const pathname = new URL(`${BASE}${path}`).pathname;
  const documenting = documents.filter((d) => d.template(pathname) !== undefined);
  const doc =
    documenting.find((d) => d.documented().some((k) => k.startsWith(`${method} ${d.template(pathname)} `))) ??
    documenting[0];
  expect(doc, `${pathname} is documented`).toBeDefined();
  const copy = res.clone();
  expect(await doc?.problems(method, `${BASE}${path}`, res, OPTIONAL_HEADERS)).toEqual([]);
  return copy;
}

/** The case, and for a GET the same request as HEAD (answered with the GET's status and no body). */
function withHead(cases: Case[]): Case[] {
  return cases.flatMap((c) => {
    const [, init] = c.request();
    // A 405 is the path refusing the method: HEAD is refused as well, and neither is an operation.
    if ((init?.method ?? "GET") !== "GET" || c.status === 405) return [c];
    const head: Case = {
      ...c,
      name: `${c.name}, as HEAD`,
      request: () => {
        const [p, i] = c.request();
        return [p, { ...i, method: "HEAD" }];
      },
    };
    return [c, head];
  });
}

const label = (c: Case) => {
  const [path, init] = c.request();
  return `${init?.method ?? "GET"} ${path} → ${c.status} (${c.name})`;
};

const unpublished: Case[] = withHead([
  { status: 404, name: "no rules published yet", request: () => ["/api/v1/operator/rules", { headers: OPERATOR }] },
  {
    status: 503,
    name: "no catalog published yet",
    request: () => ["/api/v1/operator/discounts", { headers: OPERATOR }],
  },
  { status: 503, name: "no catalog to check amounts against", request: () => putRules({}) },
  {
    status: 503,
    name: "no catalog to check amounts against",
    request: () => [
      "/api/v1/operator/rules/rollback",
      { method: "POST", headers: { ...OPERATOR, "Content-Type": "application/json" }, body: "{}" },
    ],
  },
  {
    status: 503,
    name: "no catalog published yet",
    request: () => [
      "/api/v1/operator/stock",
      {
        method: "POST",
        headers: { ...OPERATOR, "Content-Type": "application/json" },
        body: JSON.stringify({ changes: [{ variant_id: "44102938475615", set: 1 }] }),
      },
    ],
  },
  { status: 503, name: "no catalog published yet", request: () => ["/api/v1/products"] },
  { status: 503, name: "no catalog published yet", request: () => ["/api/v1/products/essential-crew-tee-black"] },
  {
    status: 503,
    name: "no catalog published yet",
    request: () => ["/api/v1/products/essential-crew-tee-black/variants"],
  },
  { status: 503, name: "no catalog published yet", request: () => ["/api/v1/collections"] },
  { status: 503, name: "no catalog published yet", request: () => ["/api/v1/collections/frontpage"] },
  { status: 503, name: "no catalog published yet", request: () => ["/api/v1/products/facets"] },
  { status: 503, name: "no catalog published yet", request: () => ["/api/v1/collections/frontpage/facets"] },
  {
    status: 503,
    name: "no catalog published yet",
    request: () => [
      "/api/v1/cart/lines",
      {
        method: "POST",
        headers: bearer(JSON_TYPE),
        body: JSON.stringify({ variant_id: "44102938475602", quantity: 1 }),
      },
    ],
  },
]);

const catalog: Case[] = withHead([
  { status: 200, name: "first page", request: () => ["/api/v1/products?limit=3"] },
  { status: 304, name: "If-None-Match", request: () => revalidate("/api/v1/products?limit=3") },
  { status: 400, name: "limit written as a word", request: () => ["/api/v1/products?limit=ten"] },
  { status: 400, name: "unknown parameter", request: () => ["/api/v1/products?sort=price"] },
  { status: 200, name: "available product", request: () => ["/api/v1/products/essential-crew-tee-black"] },
  { status: 304, name: "If-None-Match", request: () => revalidate("/api/v1/products/essential-crew-tee-black") },
  { status: 400, name: "unknown parameter", request: () => ["/api/v1/products/essential-crew-tee-black?limit=2"] },
  { status: 404, name: "sold out", request: () => ["/api/v1/products/example-t-shirt"] },
  { status: 404, name: "unknown handle", request: () => ["/api/v1/products/no-such-shirt"] },
  {
    status: 200,
    name: "size and color",
    request: () => ["/api/v1/products/essential-crew-tee-black/variants?size=M&color=Black"],
  },
  {
    status: 304,
    name: "If-None-Match",
    request: () => revalidate("/api/v1/products/essential-crew-tee-black/variants?size=M&color=Black"),
  },
  {
    status: 200,
    name: "sold-out product",
    request: () => ["/api/v1/products/example-hat/variants?title=Default%20Title"],
  },
  {
    status: 400,
    name: "size the product lacks",
    request: () => ["/api/v1/products/essential-crew-tee-white/variants?size=XS"],
  },
  { status: 404, name: "unknown handle", request: () => ["/api/v1/products/no-such-shirt/variants"] },
  { status: 200, name: "all", request: () => ["/api/v1/collections"] },
  { status: 304, name: "If-None-Match", request: () => revalidate("/api/v1/collections") },
  { status: 400, name: "limit too big", request: () => ["/api/v1/collections?limit=251"] },
  { status: 200, name: "frontpage", request: () => ["/api/v1/collections/frontpage?limit=5"] },
  { status: 304, name: "If-None-Match", request: () => revalidate("/api/v1/collections/frontpage?limit=5") },
  {
    status: 400,
    name: "both cursors",
    request: () => [
      "/api/v1/collections/frontpage?starting_after=essential-crew-tee-black&ending_before=essential-crew-tee-white",
    ],
  },
  { status: 404, name: "unknown", request: () => ["/api/v1/collections/no-such-collection"] },
  { status: 200, name: "facets of a search", request: () => ["/api/v1/products/facets?q=tee&tag=cotton"] },
  { status: 304, name: "If-None-Match", request: () => revalidate("/api/v1/products/facets?q=tee&tag=cotton") },
  { status: 400, name: "facets are not sorted", request: () => ["/api/v1/products/facets?sort=price_asc"] },
  { status: 200, name: "a collection's landing facets", request: () => ["/api/v1/collections/frontpage/facets"] },
  { status: 304, name: "If-None-Match", request: () => revalidate("/api/v1/collections/frontpage/facets") },
  { status: 400, name: "facets are not paged", request: () => ["/api/v1/collections/frontpage/facets?limit=5"] },
  { status: 404, name: "unknown collection", request: () => ["/api/v1/collections/no-such-collection/facets"] },
  {
    status: 405,
    name: "a method the path has no operation for",
    request: () => ["/api/v1/products", { method: "POST" }],
  },
]);

const post = (path: string, body: unknown, headers = bearer(JSON_TYPE)): [string, RequestInit] => [
  path,
  { method: "POST", headers, body: JSON.stringify(body) },
];
const checkoutBearer = (extra: Record<string, string> = {}) => bearer(extra, state.checkoutToken);
const hook = (name: keyof typeof state.hooks): [string, RequestInit] => [
  "/api/v1/webhooks/checkouts",
  {
    method: "POST",
    headers: { ...JSON_TYPE, "Storefront-Signature": state.hooks[name]?.signature ?? "" },
    body: state.hooks[name]?.body ?? "",
  },
];

/** Checkout and orders, in order: a checkout made, read, paid (by the operator), then a second one canceled and paid late. */
const checkoutCases: Case[] = withHead([
  { status: 401, name: "no token", request: () => ["/api/v1/checkouts", { method: "POST" }] },
  { status: 400, name: "empty cart", request: () => post("/api/v1/checkouts", {}, checkoutBearer(JSON_TYPE)) },
  {
    status: 400,
    name: "http return_url",
    request: () => post("/api/v1/checkouts", { return_url: "http://shop.example/" }, checkoutBearer(JSON_TYPE)),
  },
  {
    status: 413,
    name: "over 16 KiB",
    request: () => post("/api/v1/checkouts", { return_url: "x".repeat(17000) }, checkoutBearer(JSON_TYPE)),
  },
  {
    status: 415,
    name: "not JSON",
    request: () => [
      "/api/v1/checkouts",
      { method: "POST", headers: checkoutBearer({ "Content-Type": "text/plain" }), body: "{}" },
    ],
  },
  {
    status: 200,
    name: "a line to check out",
    request: () => post("/api/v1/cart/lines", { variant_id: "44102938475602", quantity: 2 }, checkoutBearer(JSON_TYPE)),
  },
  {
    status: 201,
    name: "the cart held",
    request: () =>
      post("/api/v1/checkouts", {}, checkoutBearer({ ...JSON_TYPE, "Idempotency-Key": "conformance-checkout" })),
  },
  {
    status: 422,
    name: "Idempotency-Key reused",
    request: () =>
      post(
        "/api/v1/checkouts",
        { return_url: "https://shop.example/thanks" },
        checkoutBearer({ ...JSON_TYPE, "Idempotency-Key": "conformance-checkout" }),
      ),
  },
  {
    status: 200,
    name: "own checkout",
    request: () => [`/api/v1/checkouts/${state.checkoutId}`, { headers: checkoutBearer() }],
  },
  {
    status: 404,
    name: "another holder's",
    request: () => [`/api/v1/checkouts/${state.checkoutId}`, { headers: bearer() }],
  },
  { status: 401, name: "no token", request: () => [`/api/v1/checkouts/${state.checkoutId}`] },
  {
    status: 400,
    name: "query parameter",
    request: () => [`/api/v1/checkouts/${state.checkoutId}?expand=lines`, { headers: checkoutBearer() }],
  },
  { status: 200, name: "the test payment page", request: () => [`/dev/pay/${state.checkoutId}`] },
  { status: 404, name: "no such checkout", request: () => [`/dev/pay/chk_${"0".repeat(64)}AAAAAAAAAAAAAAAA`] },
  { status: 400, name: "no signature", request: () => post("/api/v1/webhooks/checkouts", { type: "x" }, JSON_TYPE) },
  { status: 400, name: "signed, not JSON", request: () => hook("badJson") },
  { status: 404, name: "signed, unknown checkout", request: () => hook("unknown") },
  { status: 200, name: "signed, an event not acted on", request: () => hook("ignored") },
  {
    status: 413,
    name: "over 64 KiB",
    request: () => post("/api/v1/webhooks/checkouts", { type: "x".repeat(70000) }, JSON_TYPE),
  },
  {
    status: 415,
    name: "not JSON",
    request: () => [
      "/api/v1/webhooks/checkouts",
      { method: "POST", headers: { "Content-Type": "text/plain" }, body: "{}" },
    ],
  },
  {
    status: 401,
    name: "no secret",
    request: () =>
      post(`/api/v1/operator/checkouts/${state.checkoutId}/complete`, { payment_reference: "p" }, JSON_TYPE),
  },
  {
    status: 400,
    name: "no payment_reference",
    request: () => post(`/api/v1/operator/checkouts/${state.checkoutId}/complete`, {}, { ...OPERATOR, ...JSON_TYPE }),
  },
  {
    status: 413,
    name: "over 16 KiB",
    request: () =>
      post(
        `/api/v1/operator/checkouts/${state.checkoutId}/complete`,
        { payment_reference: "p".repeat(17000) },
        { ...OPERATOR, ...JSON_TYPE },
      ),
  },
  {
    status: 415,
    name: "not JSON",
    request: () => [
      `/api/v1/operator/checkouts/${state.checkoutId}/complete`,
      { method: "POST", headers: { ...OPERATOR, "Content-Type": "text/plain" }, body: "{}" },
    ],
  },
  {
    status: 404,
    name: "unknown checkout",
    request: () =>
      post(`/api/v1/operator/checkouts/chk_nope/complete`, { payment_reference: "p" }, { ...OPERATOR, ...JSON_TYPE }),
  },
  {
    status: 200,
    name: "paid",
    request: () =>
      post(
        `/api/v1/operator/checkouts/${state.checkoutId}/complete`,
        { payment_reference: "pi_conformance", amount: state.checkoutTotal, currency: "USD" },
        { ...OPERATOR, ...JSON_TYPE },
      ),
  },
  {
    status: 409,
    name: "a completed checkout",
    request: () => [`/api/v1/checkouts/${state.checkoutId}`, { method: "DELETE", headers: checkoutBearer() }],
  },
  {
    status: 200,
    name: "the holder's receipt",
    request: () => [`/api/v1/orders/${state.orderId}`, { headers: checkoutBearer() }],
  },
  {
    status: 404,
    name: "another holder's order",
    request: () => [`/api/v1/orders/${state.orderId}`, { headers: bearer() }],
  },
  { status: 401, name: "no token", request: () => [`/api/v1/orders/${state.orderId}`] },
  {
    status: 400,
    name: "query parameter",
    request: () => [`/api/v1/orders/${state.orderId}?x=1`, { headers: checkoutBearer() }],
  },
  {
    status: 404,
    name: "unknown",
    request: () => ["/api/v1/checkouts/chk_nope", { method: "DELETE", headers: checkoutBearer() }],
  },
  { status: 401, name: "no token", request: () => [`/api/v1/checkouts/${state.checkoutId}`, { method: "DELETE" }] },
  {
    status: 400,
    name: "query parameter",
    request: () => [`/api/v1/checkouts/${state.checkoutId}?now=1`, { method: "DELETE", headers: checkoutBearer() }],
  },
  { status: 200, name: "newest first", request: () => ["/api/v1/operator/orders", { headers: OPERATOR }] },
  {
    status: 200,
    name: "since",
    request: () => ["/api/v1/operator/orders?since=2026-01-01T00:00:00Z&limit=1", { headers: OPERATOR }],
  },
  { status: 400, name: "limit 0", request: () => ["/api/v1/operator/orders?limit=0", { headers: OPERATOR }] },
  { status: 401, name: "no secret", request: () => ["/api/v1/operator/orders"] },
  { status: 200, name: "an order", request: () => [`/api/v1/operator/orders/${state.orderId}`, { headers: OPERATOR }] },
  {
    status: 404,
    name: "unknown",
    request: () => [`/api/v1/operator/orders/ord_${"0".repeat(32)}`, { headers: OPERATOR }],
  },
  {
    status: 400,
    name: "query parameter",
    request: () => [`/api/v1/operator/orders/${state.orderId}?x=1`, { headers: OPERATOR }],
  },
  { status: 401, name: "no secret", request: () => [`/api/v1/operator/orders/${state.orderId}`] },
  { status: 200, name: "in agreement", request: () => ["/api/v1/operator/reconciliation", { headers: OPERATOR }] },
  {
    status: 400,
    name: "query parameter",
    request: () => ["/api/v1/operator/reconciliation?x=1", { headers: OPERATOR }],
  },
  { status: 401, name: "no secret", request: () => ["/api/v1/operator/reconciliation"] },
  { status: 200, name: "undelivered", request: () => ["/api/v1/operator/order-events", { headers: OPERATOR }] },
  {
    status: 400,
    name: "starting_after no event",
    request: () => [`/api/v1/operator/order-events?starting_after=evt_${"0".repeat(32)}`, { headers: OPERATOR }],
  },
  { status: 401, name: "no secret", request: () => ["/api/v1/operator/order-events"] },
  {
    status: 200,
    name: "a second line",
    request: () => post("/api/v1/cart/lines", { variant_id: "44102938475602", quantity: 1 }, checkoutBearer(JSON_TYPE)),
  },
  { status: 201, name: "a second checkout", request: () => post("/api/v1/checkouts", {}, checkoutBearer(JSON_TYPE)) },
  {
    status: 200,
    name: "canceled",
    request: () => [`/api/v1/checkouts/${state.checkoutId}`, { method: "DELETE", headers: checkoutBearer() }],
  },
  {
    status: 200,
    name: "paid late on the test page",
    request: () => [`/dev/pay/${state.checkoutId}`, { method: "POST" }],
  },
  {
    status: 404,
    name: "no such checkout",
    request: () => [`/dev/pay/chk_${"0".repeat(64)}AAAAAAAAAAAAAAAA`, { method: "POST" }],
  },
]);

const patchLine = (body: unknown, headers = bearer(JSON_TYPE)): [string, RequestInit] => [
  `/api/v1/cart/lines/${state.lineId}`,
  { method: "PATCH", headers, body: JSON.stringify(body) },
];

/** `POST /carts` from its own client address, so its cases never share the issuing limit's bucket. */
const issueCart = (init: RequestInit = {}, address = "192.0.2.10"): [string, RequestInit] => [
  "/api/v1/carts",
  { method: "POST", ...init, headers: { "CF-Connecting-IP": address, ...(init.headers as Record<string, string>) } },
];

const carts: Case[] = [
  { status: 201, name: "no body", request: () => issueCart() },
  { status: 201, name: "an empty object", request: () => issueCart({ headers: JSON_TYPE, body: "{}" }) },
  { status: 400, name: "a field", request: () => issueCart({ headers: JSON_TYPE, body: '{"holder":"x"}' }) },
  { status: 400, name: "not JSON", request: () => issueCart({ headers: JSON_TYPE, body: "{" }) },
  {
    status: 415,
    name: "not JSON media type",
    request: () => issueCart({ headers: { "Content-Type": "text/plain" }, body: "{}" }),
  },
  {
    status: 413,
    name: "over 16 KiB",
    request: () => issueCart({ headers: JSON_TYPE, body: JSON.stringify({ pad: "x".repeat(17_000) }) }),
  },
  {
    status: 429,
    name: "over 20 a minute from one address",
    request: () => issueCart({}, "192.0.2.99"),
  },
];

const patchCart = (body: string, headers: Record<string, string> = bearer(JSON_TYPE)): [string, RequestInit] => [
  "/api/v1/cart",
  { method: "PATCH", headers, body },
];

const cart: Case[] = withHead([
  { status: 200, name: "empty cart", request: () => ["/api/v1/cart", { headers: bearer() }] },
  {
    status: 200,
    name: "note and attributes",
    request: () =>
      patchCart(
        JSON.stringify({ note: "Gift", attributes: { Wrap: "red" } }),
        bearer({ ...JSON_TYPE, "Idempotency-Key": "conformance-note" }),
      ),
  },
  {
    status: 422,
    name: "Idempotency-Key reused with another note",
    request: () =>
      patchCart(JSON.stringify({ note: "Other" }), bearer({ ...JSON_TYPE, "Idempotency-Key": "conformance-note" })),
  },
  { status: 200, name: "cleared", request: () => patchCart(JSON.stringify({ note: null, attributes: null })) },
  {
    status: 400,
    name: "a key over 100 characters",
    request: () => patchCart(JSON.stringify({ attributes: { ["k".repeat(101)]: "v" } })),
  },
  { status: 400, name: "not JSON", request: () => patchCart("{") },
  { status: 401, name: "no token", request: () => patchCart("{}", JSON_TYPE) },
  { status: 413, name: "over 16 KiB", request: () => patchCart(JSON.stringify({ note: "x".repeat(17_000) })) },
  {
    status: 415,
    name: "not JSON media type",
    request: () => patchCart("{}", bearer({ "Content-Type": "text/plain" })),
  },
  { status: 401, name: "no token", request: () => ["/api/v1/cart"] },
  { status: 400, name: "query parameter", request: () => ["/api/v1/cart?expand=lines", { headers: bearer() }] },
  {
    status: 200,
    name: "available variant",
    request: () =>
      post(
        "/api/v1/cart/lines",
        { variant_id: "44102938475602", quantity: 1 },
        bearer({ ...JSON_TYPE, "Idempotency-Key": "conformance-1" }),
      ),
  },
  {
    status: 200,
    name: "the same Idempotency-Key and body: a replay",
    request: () =>
      post(
        "/api/v1/cart/lines",
        { variant_id: "44102938475602", quantity: 1 },
        bearer({ ...JSON_TYPE, "Idempotency-Key": "conformance-1" }),
      ),
  },
  {
    status: 422,
    name: "Idempotency-Key reused with another body",
    request: () =>
      post(
        "/api/v1/cart/lines",
        { variant_id: "44102938475602", quantity: 2 },
        bearer({ ...JSON_TYPE, "Idempotency-Key": "conformance-1" }),
      ),
  },
  {
    status: 404,
    name: "sold-out variant",
    request: () =>
      post("/api/v1/cart/lines", { variant_id: "gid://shopify/ProductVariant/44102938475688", quantity: 1 }),
  },
  { status: 404, name: "unknown variant", request: () => post("/api/v1/cart/lines", { variant_id: "1", quantity: 1 }) },
  {
    status: 400,
    name: "missing quantity",
    request: () => post("/api/v1/cart/lines", { variant_id: "44102938475602" }),
  },
  {
    status: 401,
    name: "no token",
    request: () => post("/api/v1/cart/lines", { variant_id: "44102938475602", quantity: 1 }, JSON_TYPE),
  },
  {
    status: 415,
    name: "not JSON",
    request: () => [
      "/api/v1/cart/lines",
      { method: "POST", headers: bearer({ "Content-Type": "text/plain" }), body: "{}" },
    ],
  },
  {
    status: 413,
    name: "over 16 KiB",
    request: () => post("/api/v1/cart/lines", { variant_id: "1", pad: "x".repeat(17000) }),
  },
  { status: 200, name: "new quantity", request: () => patchLine({ quantity: 3 }) },
  { status: 400, name: "quantity over 999", request: () => patchLine({ quantity: 1000 }) },
  { status: 401, name: "no token", request: () => patchLine({ quantity: 3 }, JSON_TYPE) },
  { status: 413, name: "over 16 KiB", request: () => patchLine({ quantity: 3, pad: "x".repeat(17000) }) },
  {
    status: 415,
    name: "not JSON",
    request: () => [
      `/api/v1/cart/lines/${state.lineId}`,
      { method: "PATCH", headers: bearer({ "Content-Type": "text/plain" }), body: "{}" },
    ],
  },
  {
    status: 422,
    name: "Idempotency-Key reused",
    request: () => patchLine({ quantity: 4 }, bearer({ ...JSON_TYPE, "Idempotency-Key": "conformance-1" })),
  },
  {
    status: 404,
    name: "unknown line",
    request: () => [
      "/api/v1/cart/lines/cl_unknown",
      { method: "PATCH", headers: bearer(JSON_TYPE), body: JSON.stringify({ quantity: 3 }) },
    ],
  },
  {
    status: 200,
    name: "the line",
    request: () => [`/api/v1/cart/lines/${state.lineId}`, { method: "DELETE", headers: bearer() }],
  },
  {
    status: 404,
    name: "already removed",
    request: () => [`/api/v1/cart/lines/${state.lineId}`, { method: "DELETE", headers: bearer() }],
  },
  {
    status: 400,
    name: "query parameter",
    request: () => [`/api/v1/cart/lines/${state.lineId}?x=1`, { method: "DELETE", headers: bearer() }],
  },
  { status: 401, name: "no token", request: () => [`/api/v1/cart/lines/${state.lineId}`, { method: "DELETE" }] },
  {
    status: 422,
    name: "Idempotency-Key reused",
    request: () => [
      `/api/v1/cart/lines/${state.lineId}`,
      { method: "DELETE", headers: bearer({ "Idempotency-Key": "conformance-1" }) },
    ],
  },
  { status: 200, name: "empty", request: () => ["/api/v1/cart", { method: "DELETE", headers: bearer() }] },
  {
    status: 400,
    name: "query parameter",
    request: () => ["/api/v1/cart?all=1", { method: "DELETE", headers: bearer() }],
  },
  { status: 401, name: "no token", request: () => ["/api/v1/cart", { method: "DELETE" }] },
  {
    status: 422,
    name: "Idempotency-Key reused",
    request: () => ["/api/v1/cart", { method: "DELETE", headers: bearer({ "Idempotency-Key": "conformance-1" }) }],
  },
  {
    status: 501,
    name: "the seed's body",
    request: () => post("/api/v1/auth/login", { vibes: "x", linkedin_premium: true }, JSON_TYPE),
  },
  { status: 405, name: "GET", request: () => ["/api/v1/auth/login"] },
]);

/** Cart writes with a token that has spent its 120 writes a minute. */
const limited: Case[] = [
  {
    status: 429,
    name: "rate limited",
    request: () => ["/api/v1/cart/lines/cl_nothere", { method: "DELETE", headers: bearer({}, state.limitedToken) }],
  },
  {
    status: 429,
    name: "rate limited",
    request: () =>
      post("/api/v1/cart/lines", { variant_id: "44102938475602", quantity: 1 }, bearer(JSON_TYPE, state.limitedToken)),
  },
  {
    status: 429,
    name: "rate limited",
    request: () => [
      "/api/v1/cart/lines/cl_nothere",
      { method: "PATCH", headers: bearer(JSON_TYPE, state.limitedToken), body: JSON.stringify({ quantity: 1 }) },
    ],
  },
  {
    status: 429,
    name: "rate limited",
    request: () => ["/api/v1/cart", { method: "DELETE", headers: bearer({}, state.limitedToken) }],
  },
  {
    status: 429,
    name: "rate limited",
    request: () => patchCart("{}", bearer(JSON_TYPE, state.limitedToken)),
  },
];

/** A checkout is not a cart write (contract 9.4): its own limit is 10 a minute per token. */
const checkoutsLimited: Case[] = [
  {
    status: 429,
    name: "over 10 a minute with one token",
    request: () => post("/api/v1/checkouts", {}, bearer(JSON_TYPE, state.checkoutLimitedToken)),
  },
];

/** Miniflare's limiters count in 60 s windows aligned to the wall clock (wrangler.toml's `period = 60`). */
const WINDOW_MS = 60_000;
/** Room for waiting out a window's last 10 s and spending up to two windows on a slow machine. */
const SPENDING_TIMEOUT_MS = 120_000;
const msLeftInWindow = () => WINDOW_MS - (Date.now() % WINDOW_MS);

/**
 * Spends a limiter's window with `request` until it answers 429 (a window lets `limit` through, two
 * windows 2 x limit: the next always meets a 429), and ends at least 5 s before the window does, so
 * the case that follows meets the same spent window. Without the margin a slow machine crossed into a
 * fresh window between spending and the case, and the case was answered 200 (CI, PATCH /api/v1/cart).
 */
async function spendWindow(limit: number, request: () => Promise<Response>): Promise<void> {
  for (;;) {
    if (msLeftInWindow() < 10_000) await new Promise((resolve) => setTimeout(resolve, msLeftInWindow() + 100));
    for (let i = 0; i <= 2 * limit; i += 1) {
      const res = await request();
      await res.body?.cancel();
      if (res.status === 429) break;
    }
    if (msLeftInWindow() >= 5_000) return;
  }
}

/** An address past OPERATOR_AUTH_LIMITER's wrong secrets (prepared by its cases' test): every operator route answers it 429. */
const GUESSER = { "CF-Connecting-IP": "203.0.113.250" };
/** A store's rules: a zone with two rates and a code (contract 10.1). */
const RULES_DOC = {
  discounts: [{ id: "ten", title: "10% off", code: "TEN", kind: "percentage", value: "10" }],
  shipping: {
    zones: [{ name: "Domestic", countries: ["US"], rates: [{ id: "standard", title: "Standard", price: "5.00" }] }],
  },
};

function putRules(document: unknown, ifMatch?: string): [string, RequestInit] {
  return [
    "/api/v1/operator/rules",
    {
      method: "PUT",
      headers: { ...OPERATOR, ...JSON_TYPE, ...(ifMatch === undefined ? {} : { "If-Match": ifMatch }) },
      body: JSON.stringify(document),
    },
  ];
}

const throttled: Case[] = withHead([
  {
    status: 429,
    name: "an address guessing the secret",
    request: () => ["/api/v1/operator/rules", { headers: { ...OPERATOR, ...GUESSER } }],
  },
  {
    status: 429,
    name: "an address guessing the secret",
    request: () => {
      const [path, init] = putRules({}, "*");
      return [path, { ...init, headers: { ...(init.headers as Record<string, string>), ...GUESSER } }];
    },
  },
  {
    status: 429,
    name: "an address guessing the secret",
    request: () => ["/api/v1/operator/rules/versions", { headers: { ...OPERATOR, ...GUESSER } }],
  },
  {
    status: 429,
    name: "an address guessing the secret",
    request: () => ["/api/v1/operator/discounts", { headers: { ...OPERATOR, ...GUESSER } }],
  },
  {
    status: 429,
    name: "an address guessing the secret",
    request: () => post("/api/v1/operator/rules/rollback", {}, { ...OPERATOR, ...JSON_TYPE, ...GUESSER }),
  },
  {
    status: 429,
    name: "an address guessing the secret",
    request: () => ["/api/v1/operator/tokens", { headers: { ...OPERATOR, ...GUESSER } }],
  },
  {
    status: 429,
    name: "an address guessing the secret",
    request: () => post("/api/v1/operator/tokens", { label: "x" }, { ...OPERATOR, ...JSON_TYPE, ...GUESSER }),
  },
  {
    status: 429,
    name: "an address guessing the secret",
    request: () => [
      `/api/v1/operator/tokens/${state.tokenId}/rotate`,
      { method: "POST", headers: { ...OPERATOR, ...GUESSER } },
    ],
  },
  {
    status: 429,
    name: "an address guessing the secret",
    request: () => [
      `/api/v1/operator/tokens/${state.tokenId}/revoke`,
      { method: "POST", headers: { ...OPERATOR, ...GUESSER } },
    ],
  },
  {
    status: 429,
    name: "an address guessing the secret",
    request: () =>
      post(
        "/api/v1/operator/tokens/revoke",
        { token_sha256: "0".repeat(64) },
        { ...OPERATOR, ...JSON_TYPE, ...GUESSER },
      ),
  },
  {
    status: 429,
    name: "an address guessing the secret",
    request: () => ["/api/v1/operator/openapi.json", { headers: { ...OPERATOR, ...GUESSER } }],
  },
  {
    status: 429,
    name: "an address guessing the secret",
    request: () => post("/api/v1/operator/catalog/changes", {}, { ...OPERATOR, ...JSON_TYPE, ...GUESSER }),
  },
  {
    status: 429,
    name: "an address guessing the secret",
    request: () => post("/api/v1/operator/catalog/releases", {}, { ...OPERATOR, ...JSON_TYPE, ...GUESSER }),
  },
  // Stock, orders, completion, reconciliation and order events sit behind the same guard (issue 42, point 19).
  ...[
    "/api/v1/operator/stock",
    "/api/v1/operator/stock/44102938475602",
    "/api/v1/operator/orders",
    `/api/v1/operator/orders/ord_${"0".repeat(32)}`,
    "/api/v1/operator/reconciliation",
    "/api/v1/operator/order-events",
    "/api/v1/operator/catalog/versions/v1/products/canvas-market-tote",
  ].map(
    (path): Case => ({
      status: 429,
      name: "an address guessing the secret",
      request: () => [path, { headers: { ...OPERATOR, ...GUESSER } }],
    }),
  ),
  {
    status: 429,
    name: "an address guessing the secret",
    request: () =>
      post(
        "/api/v1/operator/stock",
        { changes: [{ variant_id: "44102938475602", set: 1 }] },
        { ...OPERATOR, ...JSON_TYPE, ...GUESSER },
      ),
  },
  {
    status: 429,
    name: "an address guessing the secret",
    request: () =>
      post(
        `/api/v1/operator/checkouts/chk_${"0".repeat(64)}AAAAAAAAAAAAAAAA/complete`,
        { payment_reference: "p" },
        { ...OPERATOR, ...JSON_TYPE, ...GUESSER },
      ),
  },
  {
    status: 429,
    name: "an address guessing the secret",
    request: () =>
      post(
        "/api/v1/operator/tokens/revoke-shopper",
        { holder: "shp_00000000000000000000000000000000" },
        { ...OPERATOR, ...JSON_TYPE, ...GUESSER },
      ),
  },
]);

const operator: Case[] = withHead([
  { status: 200, name: "records", request: () => ["/api/v1/operator/tokens", { headers: OPERATOR }] },
  { status: 401, name: "a customer token", request: () => ["/api/v1/operator/tokens", { headers: bearer() }] },
  {
    status: 201,
    name: "labelled",
    request: () => post("/api/v1/operator/tokens", { label: "second" }, { ...OPERATOR, ...JSON_TYPE }),
  },
  {
    status: 400,
    name: "unknown field",
    request: () => post("/api/v1/operator/tokens", { holder: "x" }, { ...OPERATOR, ...JSON_TYPE }),
  },
  { status: 401, name: "no secret", request: () => post("/api/v1/operator/tokens", { label: "x" }, JSON_TYPE) },
  {
    status: 413,
    name: "over 16 KiB",
    request: () => post("/api/v1/operator/tokens", { label: "x".repeat(17000) }, { ...OPERATOR, ...JSON_TYPE }),
  },
  {
    status: 415,
    name: "not JSON",
    request: () => [
      "/api/v1/operator/tokens",
      { method: "POST", headers: { ...OPERATOR, "Content-Type": "text/plain" }, body: "{}" },
    ],
  },
  {
    status: 201,
    name: "a live token",
    request: () => [`/api/v1/operator/tokens/${state.tokenId}/rotate`, { method: "POST", headers: OPERATOR }],
  },
  {
    status: 404,
    name: "unknown id",
    request: () => ["/api/v1/operator/tokens/tok_unknown/rotate", { method: "POST", headers: OPERATOR }],
  },
  {
    status: 400,
    name: "a malformed Idempotency-Key",
    request: () => [
      `/api/v1/operator/tokens/${state.tokenId}/rotate`,
      { method: "POST", headers: { ...OPERATOR, "Idempotency-Key": "two words" } },
    ],
  },
  {
    status: 409,
    name: "a token rotated already",
    request: () => [`/api/v1/operator/tokens/${state.tokenId}/rotate`, { method: "POST", headers: OPERATOR }],
  },
  {
    status: 401,
    name: "no secret",
    request: () => [`/api/v1/operator/tokens/${state.tokenId}/rotate`, { method: "POST" }],
  },
  {
    status: 200,
    name: "a token",
    request: () => [`/api/v1/operator/tokens/${state.tokenId}/revoke`, { method: "POST", headers: OPERATOR }],
  },
  {
    status: 404,
    name: "unknown id",
    request: () => ["/api/v1/operator/tokens/tok_unknown/revoke", { method: "POST", headers: OPERATOR }],
  },
  {
    status: 401,
    name: "no secret",
    request: () => [`/api/v1/operator/tokens/${state.tokenId}/revoke`, { method: "POST" }],
  },
  {
    status: 200,
    name: "a leaked token's hash",
    request: () =>
      post("/api/v1/operator/tokens/revoke", { token_sha256: state.leakedHash }, { ...OPERATOR, ...JSON_TYPE }),
  },
  {
    status: 404,
    name: "a hash no token has",
    request: () =>
      post("/api/v1/operator/tokens/revoke", { token_sha256: "0".repeat(64) }, { ...OPERATOR, ...JSON_TYPE }),
  },
  {
    status: 400,
    name: "not a hash",
    request: () => post("/api/v1/operator/tokens/revoke", { token_sha256: "sf_live_x" }, { ...OPERATOR, ...JSON_TYPE }),
  },
  {
    status: 401,
    name: "no secret",
    request: () => post("/api/v1/operator/tokens/revoke", { token_sha256: "0".repeat(64) }, JSON_TYPE),
  },
  {
    status: 413,
    name: "over 16 KiB",
    request: () =>
      post("/api/v1/operator/tokens/revoke", { token_sha256: "x".repeat(17000) }, { ...OPERATOR, ...JSON_TYPE }),
  },
  {
    status: 415,
    name: "not JSON",
    request: () => [
      "/api/v1/operator/tokens/revoke",
      { method: "POST", headers: { ...OPERATOR, "Content-Type": "text/plain" }, body: "{}" },
    ],
  },
  {
    status: 200,
    name: "a shopper token's holder",
    request: () =>
      post(
        "/api/v1/operator/tokens/revoke-shopper",
        { holder: `shp_${"0".repeat(32)}` },
        { ...OPERATOR, ...JSON_TYPE },
      ),
  },
  {
    status: 400,
    name: "not a shopper holder",
    request: () => post("/api/v1/operator/tokens/revoke-shopper", { holder: "hld_x" }, { ...OPERATOR, ...JSON_TYPE }),
  },
  {
    status: 401,
    name: "no secret",
    request: () => post("/api/v1/operator/tokens/revoke-shopper", { holder: `shp_${"0".repeat(32)}` }, JSON_TYPE),
  },
  {
    status: 413,
    name: "over 16 KiB",
    request: () =>
      post("/api/v1/operator/tokens/revoke-shopper", { holder: "x".repeat(17000) }, { ...OPERATOR, ...JSON_TYPE }),
  },
  {
    status: 415,
    name: "not JSON",
    request: () => [
      "/api/v1/operator/tokens/revoke-shopper",
      { method: "POST", headers: { ...OPERATOR, "Content-Type": "text/plain" }, body: "{}" },
    ],
  },
  { status: 200, name: "with the secret", request: () => ["/api/v1/operator/openapi.json", { headers: OPERATOR }] },
  { status: 401, name: "without it", request: () => ["/api/v1/operator/openapi.json"] },
  // Live stock: the seed tracks 44102938475615 (M / Navy, 3 left) and 44102938475614 (S / Navy, none).
  {
    status: 200,
    name: "a batch",
    request: () =>
      post(
        "/api/v1/operator/stock",
        { changes: [{ variant_id: "44102938475615", adjust: 1 }] },
        { ...OPERATOR, ...JSON_TYPE, "Idempotency-Key": "conformance-stock" },
      ),
  },
  {
    status: 422,
    name: "its key with other changes",
    request: () =>
      post(
        "/api/v1/operator/stock",
        { changes: [{ variant_id: "44102938475615", adjust: 2 }] },
        { ...OPERATOR, ...JSON_TYPE, "Idempotency-Key": "conformance-stock" },
      ),
  },
  {
    status: 400,
    name: "a variant the catalog does not have",
    request: () =>
      post("/api/v1/operator/stock", { changes: [{ variant_id: "1", set: 1 }] }, { ...OPERATOR, ...JSON_TYPE }),
  },
  {
    status: 401,
    name: "no secret",
    request: () => post("/api/v1/operator/stock", { changes: [{ variant_id: "1", set: 1 }] }, JSON_TYPE),
  },
  {
    status: 413,
    name: "over 128 KiB",
    request: () => post("/api/v1/operator/stock", { changes: "x".repeat(132000) }, { ...OPERATOR, ...JSON_TYPE }),
  },
  {
    status: 415,
    name: "not JSON",
    request: () => [
      "/api/v1/operator/stock",
      { method: "POST", headers: { ...OPERATOR, "Content-Type": "text/plain" }, body: "{}" },
    ],
  },
  {
    status: 200,
    name: "a tracked variant",
    request: () => ["/api/v1/operator/stock/44102938475615", { headers: OPERATOR }],
  },
  { status: 400, name: "not a variant id", request: () => ["/api/v1/operator/stock/abc", { headers: OPERATOR }] },
  { status: 200, name: "the status", request: () => ["/api/v1/operator/stock", { headers: OPERATOR }] },
  { status: 401, name: "no secret", request: () => ["/api/v1/operator/stock"] },
  { status: 401, name: "no secret", request: () => ["/api/v1/operator/stock/44102938475615"] },
  // Catalog change batches (contract 11): one that names nothing changes nothing, so the cases after it see the same catalog.
  {
    status: 200,
    name: "a batch that names nothing",
    request: () =>
      post(
        "/api/v1/operator/catalog/changes",
        {},
        { ...OPERATOR, ...JSON_TYPE, "Idempotency-Key": "conformance-changes" },
      ),
  },
  {
    status: 422,
    name: "its key with another batch",
    request: () =>
      post(
        "/api/v1/operator/catalog/changes",
        { delete: ["canvas-market-tote"] },
        { ...OPERATOR, ...JSON_TYPE, "Idempotency-Key": "conformance-changes" },
      ),
  },
  {
    status: 400,
    name: "a handle to delete the catalog does not have",
    request: () =>
      post("/api/v1/operator/catalog/changes", { delete: ["no-such-product"] }, { ...OPERATOR, ...JSON_TYPE }),
  },
  {
    status: 401,
    name: "no secret",
    request: () => post("/api/v1/operator/catalog/changes", {}, JSON_TYPE),
  },
  {
    status: 413,
    name: "over 8 MiB",
    request: () =>
      post("/api/v1/operator/catalog/changes", { pad: "x".repeat(8 * 1024 * 1024) }, { ...OPERATOR, ...JSON_TYPE }),
  },
  {
    status: 415,
    name: "not JSON",
    request: () => [
      "/api/v1/operator/catalog/changes",
      { method: "POST", headers: { ...OPERATOR, "Content-Type": "text/plain" }, body: "{}" },
    ],
  },
  // Scheduled releases (issue 45, point 5): a batch for an hour ahead, the clock set, a kept version read.
  {
    status: 202,
    name: "a batch scheduled for an hour ahead",
    request: () =>
      post(
        `/api/v1/operator/catalog/changes?release_at=${encodeURIComponent(new Date(Date.now() + 3600_000).toISOString())}`,
        { delete: ["leather-card-holder-tan"] },
        { ...OPERATOR, ...JSON_TYPE },
      ),
  },
  {
    status: 202,
    name: "the clock set for an hour ahead",
    request: () =>
      post(
        "/api/v1/operator/catalog/releases",
        { version: state.catalogVersion, release_at: new Date(Date.now() + 3600_000).toISOString() },
        { ...OPERATOR, ...JSON_TYPE },
      ),
  },
  {
    status: 400,
    name: "a time without its zone",
    request: () =>
      post(
        "/api/v1/operator/catalog/releases",
        { version: "v1", release_at: "2030-01-01T09:00:00" },
        { ...OPERATOR, ...JSON_TYPE },
      ),
  },
  { status: 401, name: "no secret", request: () => post("/api/v1/operator/catalog/releases", {}, JSON_TYPE) },
  {
    status: 413,
    name: "over 16 KiB",
    request: () =>
      post("/api/v1/operator/catalog/releases", { pad: "x".repeat(17_000) }, { ...OPERATOR, ...JSON_TYPE }),
  },
  {
    status: 415,
    name: "not JSON",
    request: () => [
      "/api/v1/operator/catalog/releases",
      { method: "POST", headers: { ...OPERATOR, "Content-Type": "text/plain" }, body: "{}" },
    ],
  },
  {
    status: 200,
    name: "a product of the live version",
    request: () => [
      `/api/v1/operator/catalog/versions/${state.catalogVersion}/products/canvas-market-tote`,
      { headers: OPERATOR },
    ],
  },
  {
    status: 404,
    name: "a version never published",
    request: () => ["/api/v1/operator/catalog/versions/v1/products/canvas-market-tote", { headers: OPERATOR }],
  },
  {
    status: 401,
    name: "no secret",
    request: () => [`/api/v1/operator/catalog/versions/${state.catalogVersion}/products/canvas-market-tote`],
  },
  // The rules document (contract 10.1), in order: the first publish, then If-Match at work.
  { status: 200, name: "the first publish, no If-Match needed", request: () => putRules(RULES_DOC) },
  { status: 200, name: "the live document", request: () => ["/api/v1/operator/rules", { headers: OPERATOR }] },
  {
    status: 400,
    name: "nothing to roll back to yet",
    request: () => post("/api/v1/operator/rules/rollback", {}, { ...OPERATOR, ...JSON_TYPE }),
  },
  { status: 428, name: "rules live, no If-Match", request: () => putRules({}) },
  { status: 412, name: "a stale If-Match", request: () => putRules({}, '"20200101T000000Z-000000"') },
  {
    status: 400,
    name: "an amount with three decimals",
    request: () =>
      putRules(
        { shipping: { zones: [{ name: "Z", countries: ["US"], rates: [{ id: "r", title: "R", price: "5.001" }] }] } },
        "*",
      ),
  },
  { status: 413, name: "over 512 KiB", request: () => putRules({ pad: "x".repeat(530_000) }, "*") },
  {
    status: 415,
    name: "not JSON",
    request: () => [
      "/api/v1/operator/rules",
      { method: "PUT", headers: { ...OPERATOR, "Content-Type": "text/plain" }, body: "{}" },
    ],
  },
  {
    status: 401,
    name: "no secret",
    request: () => ["/api/v1/operator/rules", { method: "PUT", headers: JSON_TYPE, body: "{}" }],
  },
  { status: 200, name: "a second version over whatever is live", request: () => putRules({}, "*") },
  { status: 200, name: "the history", request: () => ["/api/v1/operator/rules/versions", { headers: OPERATOR }] },
  {
    status: 404,
    name: "a version it never had",
    request: () =>
      post("/api/v1/operator/rules/rollback", { version: "20200101T000000Z-000000" }, { ...OPERATOR, ...JSON_TYPE }),
  },
  {
    status: 412,
    name: "a stale If-Match",
    request: () =>
      post(
        "/api/v1/operator/rules/rollback",
        {},
        { ...OPERATOR, ...JSON_TYPE, "If-Match": '"20200101T000000Z-000000"' },
      ),
  },
  {
    status: 200,
    name: "back to the first",
    request: () => post("/api/v1/operator/rules/rollback", {}, { ...OPERATOR, ...JSON_TYPE }),
  },
  {
    status: 413,
    name: "over 16 KiB",
    request: () =>
      post("/api/v1/operator/rules/rollback", { version: "x".repeat(17_000) }, { ...OPERATOR, ...JSON_TYPE }),
  },
  {
    status: 415,
    name: "not JSON",
    request: () => [
      "/api/v1/operator/rules/rollback",
      { method: "POST", headers: { ...OPERATOR, "Content-Type": "text/plain" }, body: "{}" },
    ],
  },
  { status: 401, name: "no secret", request: () => post("/api/v1/operator/rules/rollback", {}, JSON_TYPE) },
  { status: 401, name: "no secret", request: () => ["/api/v1/operator/rules"] },
  { status: 401, name: "no secret", request: () => ["/api/v1/operator/rules/versions"] },
  { status: 200, name: "the live discounts", request: () => ["/api/v1/operator/discounts", { headers: OPERATOR }] },
  { status: 400, name: "query parameter", request: () => ["/api/v1/operator/discounts?x=1", { headers: OPERATOR }] },
  { status: 401, name: "no secret", request: () => ["/api/v1/operator/discounts"] },
]);

const service: Case[] = withHead([
  { status: 200, name: "up", request: () => ["/api/v1/health"] },
  { status: 200, name: "the document", request: () => ["/api/v1/openapi.json"] },
  { status: 302, name: "to /docs", request: () => ["/"] },
  { status: 200, name: "the page", request: () => ["/docs"] },
  { status: 304, name: "If-None-Match", request: () => revalidate("/docs") },
  { status: 200, name: "the walk-through", request: () => ["/docs/try"] },
  { status: 304, name: "If-None-Match", request: () => revalidate("/docs/try") },
  { status: 200, name: "a script", request: () => ["/docs/try.js"] },
  { status: 304, name: "If-None-Match", request: () => revalidate("/docs/try.js") },
  { status: 404, name: "no such file", request: () => ["/docs/nope.js"] },
  { status: 200, name: "the icon", request: () => ["/favicon.svg"] },
  { status: 304, name: "If-None-Match", request: () => revalidate("/favicon.svg") },
]);

describe("before any catalog is published", () => {
  beforeAll(async () => {
    await loadDocuments();
    state.token = (await issue("before publish")).token;
  });

  it.each(unpublished.map((c) => [label(c), c] as const))("%s conforms", async (_label, c) => {
    await conform(c);
  });
});

describe("real responses conform to the served documents", () => {
  beforeAll(async () => {
    await loadDocuments();
    state.catalogVersion = await publishSeedCatalog();
    const record = await issue("conformance");
    state.token = record.token;
    state.tokenId = record.id;
    const leaked = await issue("leaked");
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(leaked.token)));
    state.leakedHash = [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
    state.checkoutToken = (await issue("checkout")).token;
    const sign = async (body: string) => ({
      body,
      signature: await signatureHeader("dev-checkout-webhook-secret", body),
    });
    state.hooks = {
      unknown: await sign(
        JSON.stringify({
          type: "checkout.completed",
          data: {
            checkout_id: `chk_${"0".repeat(64)}AAAAAAAAAAAAAAAA`,
            payment_reference: "p",
            amount: "1.00",
            currency: "USD",
          },
        }),
      ),
      ignored: await sign(JSON.stringify({ type: "checkout.viewed" })),
      badJson: await sign("{not json"),
    };
  });

  it.each([...catalog, ...cart, ...checkoutCases, ...operator, ...service].map((c) => [label(c), c] as const))(
    "%s",
    async (_label, c) => {
      const res = await conform(c);
      const [path, init] = c.request();
      const etag = res.headers.get("etag");
      if (res.status === 200 && etag && (init?.method ?? "GET") === "GET") state.etags.set(path, etag);
      if (path === "/api/v1/checkouts" && res.status === 201) {
        const made = (await res.clone().json()) as { id: string; cost: { total: { amount: string } } };
        state.checkoutId = made.id;
        state.checkoutTotal = made.cost.total.amount;
      }
      if (path.endsWith("/complete") && res.status === 200)
        state.orderId = ((await res.clone().json()) as { id: string }).id;
      if (path === "/api/v1/cart/lines" && c.name === "available variant") {
        const answer = (await res.json()) as Json & { lines: { id: string }[] };
        state.lineId = answer.lines[0]?.id ?? "";
        // The documented cart example is this very answer, but for its ids and timestamps.
        const doc = (await (await exports.default.fetch(`${BASE}/api/v1/openapi.json`)).json()) as Json;
        const media = (doc.paths as Record<string, Record<string, Json>>)["/api/v1/cart/lines"]!.post!
          .responses as Record<string, Json>;
        const example = structuredClone(
          ((media["200"]!.content as Record<string, Json>)["application/json"]!.examples as Record<string, Json>).cart!
            .value,
        ) as Json & { lines: Json[] };
        const volatile = {
          id: answer.id,
          created_at: answer.created_at,
          updated_at: answer.updated_at,
          expires_at: answer.expires_at,
        };
        expect(answer).toEqual({
          ...example,
          ...volatile,
          lines: example.lines.map((line, i) => ({ ...line, id: answer.lines[i]?.id })),
        });
      }
    },
  );

  it.each(carts.map((c) => [label(c), c] as const))(
    "%s",
    async (_label, c) => {
      if (c.status === 429) {
        await spendWindow(20, () => {
          const [path, init] = c.request();
          return exports.default.fetch(`${BASE}${path}`, init);
        });
      }
      await conform(c);
    },
    SPENDING_TIMEOUT_MS,
  );

  it.each(throttled.map((c) => [label(c), c] as const))(
    "%s",
    async (_label, c) => {
      let guess = 0;
      await spendWindow(30, () =>
        exports.default.fetch(`${BASE}/api/v1/operator/tokens`, {
          headers: { Authorization: `Bearer wrong-operator-secret-${(guess += 1)}`, ...GUESSER },
        }),
      );
      await conform(c);
    },
    SPENDING_TIMEOUT_MS,
  );

  it.each(limited.map((c) => [label(c), c] as const))(
    "%s",
    async (_label, c) => {
      if (!state.limitedToken) state.limitedToken = (await issue("rate limited")).token;
      await spendWindow(120, () =>
        exports.default.fetch(`${BASE}/api/v1/cart/lines/cl_nothere`, {
          method: "DELETE",
          headers: bearer({}, state.limitedToken),
        }),
      );
      await conform(c);
    },
    SPENDING_TIMEOUT_MS,
  );

  it.each(checkoutsLimited.map((c) => [label(c), c] as const))(
    "%s",
    async (_label, c) => {
      if (!state.checkoutLimitedToken) state.checkoutLimitedToken = (await issue("checkouts limited")).token;
      await spendWindow(10, () => {
        const [path, init] = c.request();
        return exports.default.fetch(`${BASE}${path}`, init);
      });
      await conform(c);
    },
    SPENDING_TIMEOUT_MS,
  );

  it("answered every documented status of every operation, but those no request can provoke", () => {
    const answered = new Set(documents.flatMap((d) => [...d.answered]));
    const missing = documents
      .flatMap((d) => d.documented())
      .filter((key) => !answered.has(key) && !UNPROVOKABLE.some(([pattern]) => pattern.test(key)));
    expect(missing).toEqual([]);
  });
});

describe("the conformance check itself", () => {
  it("refuses an undocumented status, a missing header, and a body off its schema", async () => {
    await loadDocuments();
    const doc = documents[0] as ServedDocument;
    const url = `${BASE}/api/v1/health`;
    const json = (
      body: unknown,
      status = 200,
      headers: Record<string, string> = { "X-Request-Id": "req_1", "Cache-Control": "no-store" },
    ) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });
    expect(await doc.problems("GET", url, json({ status: "ok" }), OPTIONAL_HEADERS)).toEqual([]);
    expect(await doc.problems("GET", url, json({ status: "ok" }, 418), OPTIONAL_HEADERS)).toEqual([
      expect.stringContaining("418 is not a documented status"),
    ]);
    expect(await doc.problems("GET", url, json({ status: "ok" }, 200, {}), OPTIONAL_HEADERS)).toEqual([
      expect.stringContaining("X-Request-Id is missing"),
      expect.stringContaining("Cache-Control is missing"),
    ]);
    expect(await doc.problems("GET", url, json({ status: "down" }), OPTIONAL_HEADERS)).toEqual([
      expect.stringContaining("does not match the documented schema"),
    ]);
    expect(await doc.problems("GET", `${BASE}/api/v1/refunds`, json({}), OPTIONAL_HEADERS)).toEqual([
      "GET /api/v1/refunds is not documented",
    ]);
  });
});
