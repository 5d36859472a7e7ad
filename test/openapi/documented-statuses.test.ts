import { Validator } from "@cfworker/json-schema";
import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { signatureHeader } from "../../src/checkout/signature.ts";
import { issueToken } from "../helpers/cart.ts";
import { publishSeedCatalog } from "../helpers/catalog.ts";
import { ORIGIN as BASE } from "../helpers/worker.ts";
import type { Json } from "./rules.ts";
import { ServedDocument } from "./served-document.ts";

/**
 * Issue 42, point 19: Schemathesis found operator routes answering 429 (the wrong-secret throttle)
 * that their operations did not document, because their error lists were kept by hand. This
 * drives **every operation of both served documents** (so a new route is driven the day it is
 * described) with every answer its middleware can give before the handler runs (no credential, a
 * wrong one, an address past the wrong-secret throttle, an unknown query parameter, a body too
 * large, of the wrong type, not JSON, empty, the documented example) and requires each answer to
 * be one its operation documents: status, headers and body schema.
 */
const SECRET = "test-operator-secret";
const GUESSER = "203.0.113.251";
const OPTIONAL_HEADERS = new Set([
  "Idempotent-Replayed",
  "Vary",
  "Link",
  "RateLimit",
  "RateLimit-Policy",
  "Retry-After",
]);

type Operation = { security?: Record<string, unknown>[]; parameters?: Json[]; requestBody?: Json };
let documents: { doc: ServedDocument; json: Json }[];
let bearer: string;

async function json(path: string, headers: Record<string, string> = {}): Promise<Json> {
  return (await (await exports.default.fetch(`${BASE}${path}`, { headers })).json()) as Json;
}

beforeAll(async () => {
  await publishSeedCatalog();
  bearer = (await issueToken("every status")).token;
  const pub = await json("/api/v1/openapi.json");
  const op = await json("/api/v1/operator/openapi.json", { Authorization: `Bearer ${SECRET}` });
  documents = [
    { doc: new ServedDocument(pub, `${BASE}/api/v1/openapi.json`), json: pub },
    { doc: new ServedDocument(op, `${BASE}/api/v1/operator/openapi.json`), json: op },
  ];
  // Past the throttle's 30 wrong secrets a minute (two windows: 61 always meet a 429).
  for (let i = 0; i < 61; i += 1) {
    const res = await exports.default.fetch(`${BASE}/api/v1/operator/tokens`, {
      headers: { Authorization: `Bearer wrong-${i}`, "CF-Connecting-IP": GUESSER },
    });
    await res.body?.cancel();
    if (res.status === 429) break;
  }
});

/** A concrete path for a template: each parameter's documented example, else a plausible value. */
function concrete(template: string, op: Operation): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const param = op.parameters?.find((p) => p.in === "path" && p.name === name) as
      | { example?: unknown; schema?: { example?: unknown } }
      | undefined;
    return encodeURIComponent(String(param?.example ?? param?.schema?.example ?? "x"));
  });
}

/** The credential an operation takes, by its security scheme. */
function credential(op: Operation): Record<string, string> {
  const scheme = Object.keys(op.security?.[0] ?? {})[0];
  if (scheme === "operatorAuth") return { Authorization: `Bearer ${SECRET}` };
  if (scheme === "bearerAuth") return { Authorization: `Bearer ${bearer}` };
  return {};
}

function exampleBody(op: Operation): unknown {
  const media = (op.requestBody?.content as Record<string, Json> | undefined)?.["application/json"];
  const examples = media?.examples as Record<string, { value: unknown }> | undefined;
  return (
    Object.values(examples ?? {})[0]?.value ?? media?.example ?? (media?.schema as Json | undefined)?.example ?? {}
  );
}

/** What the middleware in front of an operation can answer, as requests. */
function probes(op: Operation, method: string): [string, RequestInit, string][] {
  const auth = credential(op);
  const secured = Object.keys(auth).length > 0;
  const write = !["GET", "HEAD"].includes(method);
  const json = { "Content-Type": "application/json" };
  const out: [string, RequestInit, string][] = [["", { method, headers: auth }, "as documented, no body"]];
  if (secured) {
    out.push(["", { method }, "no credential"]);
    out.push(["", { method, headers: { Authorization: "Bearer sf_live_notatoken" } }, "a wrong credential"]);
    out.push(["", { method, headers: { Authorization: "Basic eDp5" } }, "another scheme"]);
  }
  if (auth.Authorization?.endsWith(SECRET))
    out.push(["", { method, headers: { ...auth, "CF-Connecting-IP": GUESSER } }, "an address past the throttle"]);
  out.push(["?zz_unknown=1", { method, headers: auth }, "an unknown query parameter"]);
  out.push([`?q=${"x".repeat(17 * 1024)}`, { method, headers: auth }, "a URL over 16 KiB"]);
  if (write) {
    const headers = { ...auth, ...json };
    out.push(["", { method, headers, body: JSON.stringify(exampleBody(op)) }, "the documented example"]);
    out.push(["", { method, headers, body: "{}" }, "an empty object"]);
    out.push(["", { method, headers, body: "{not json" }, "not JSON"]);
    out.push(["", { method, headers, body: "[null, null]" }, "JSON, not an object"]);
    out.push(["", { method, headers: { ...auth, "Content-Type": "text/plain" }, body: "{}" }, "not JSON's type"]);
    out.push(["", { method, headers, body: JSON.stringify({ pad: "x".repeat(200 * 1024) }) }, "200 KiB"]);
  }
  return out;
}

describe("every answer a route's middleware can give is documented", () => {
  it("holds for every operation of both documents", { timeout: 120_000 }, async () => {
    const problems: string[] = [];
    let sent = 0;
    for (const { doc, json: document } of documents) {
      for (const [template, item] of Object.entries(document.paths as Record<string, Record<string, Operation>>)) {
        for (const [lower, op] of Object.entries(item)) {
          const method = lower.toUpperCase();
          const path = concrete(template, op);
          for (const [query, init, name] of probes(op, method)) {
            const url = `${BASE}${path}${query}`;
            const res = await exports.default.fetch(url, { redirect: "manual", ...init });
            sent += 1;
            for (const problem of await doc.problems(method, url, res, OPTIONAL_HEADERS))
              problems.push(`${problem} (${name})`);
          }
        }
      }
    }
    console.log(`[hardening] documented-statuses requests=${sent} undocumented=${problems.length}`);
    expect(problems).toEqual([]);
    expect(sent).toBeGreaterThan(200);
  });
});

describe("what a route checks, the document says (Schemathesis's findings)", () => {
  it("a stock change needs exactly one of set and adjust", () => {
    const { doc } = documents[1]!;
    const at = "components/schemas/StockChange";
    expect(doc.accepts(at, { variant_id: "44102938475602", set: 3 })).toBe(true);
    expect(doc.accepts(at, { variant_id: "44102938475602", adjust: -1 })).toBe(true);
    expect(doc.accepts(at, { variant_id: "44102938475602" })).toBe(false);
    expect(doc.accepts(at, { variant_id: "44102938475602", set: 3, adjust: 1 })).toBe(false);
  });

  it("GET /operator/stock/{variant_id} documents a variant id, not any string", () => {
    const { doc, json: document } = documents[1]!;
    const op = (document.paths as Record<string, Record<string, Operation>>)["/api/v1/operator/stock/{variant_id}"]!
      .get!;
    const schema = op.parameters!.find((p) => p.name === "variant_id")!.schema as Json;
    const ref = typeof schema.$ref === "string" ? schema.$ref : undefined;
    const accepts = (value: string) =>
      ref ? doc.accepts(ref.slice(2), value) : new Validator(schema as never, "2020-12").validate(value).valid;
    expect(accepts("44102938475602")).toBe(true);
    expect(accepts("gid://shopify/ProductVariant/44102938475602")).toBe(true);
    expect(accepts("abc")).toBe(false);
  });

  it("the checkout webhook's checkout.completed requires data; other types are acknowledged without it", async () => {
    const { doc } = documents[0]!;
    const at = "components/schemas/StorefrontCheckoutEvent";
    expect(doc.accepts(at, { type: "checkout.completed" })).toBe(false);
    expect(doc.accepts(at, { type: "checkout.viewed" })).toBe(true);
    const body = JSON.stringify({ type: "checkout.completed" });
    const res = await exports.default.fetch(`${BASE}/api/v1/webhooks/checkouts`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "Storefront-Signature": await signatureHeader("dev-checkout-webhook-secret", body),
      },
      body,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: "parameter_missing", param: "data" } });
  });

  it("a 256-character payment_reference in the webhook is refused naming data.payment_reference", async () => {
    const body = JSON.stringify({
      type: "checkout.completed",
      data: { checkout_id: `chk_${"0".repeat(64)}AAAAAAAAAAAAAAAA`, payment_reference: "p".repeat(256) },
    });
    const res = await exports.default.fetch(`${BASE}/api/v1/webhooks/checkouts`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "Storefront-Signature": await signatureHeader("dev-checkout-webhook-secret", body),
      },
      body,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      error: {
        code: "parameter_invalid",
        param: "data.payment_reference",
        message: "Invalid data.payment_reference: text of 1 to 255 characters.",
      },
    });
  });

  it("the webhook's 413 says 64 KiB, its limit, in the document and in the answer", async () => {
    const { json: document } = documents[0]!;
    const op = (document.paths as Record<string, Record<string, Json>>)["/api/v1/webhooks/checkouts"]!.post!;
    const documented = JSON.stringify((op.responses as Record<string, Json>)["413"]);
    expect(documented).toContain("64 KiB");
    expect(documented).not.toContain("16 KiB");
    const res = await exports.default.fetch(`${BASE}/api/v1/webhooks/checkouts`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ type: "x", data: "d".repeat(65 * 1024) }),
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain("64 KiB");
  });
});
