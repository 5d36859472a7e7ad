import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { judge, originAllowedInDev } from "../hardening/answers.ts";
import { authorization, fuzzRequest, pathOf, queryOf } from "../hardening/requests.ts";
import { fuzzRuns, printFigures, timeoutFor } from "../hardening/run-config.ts";
import { SecretScanner } from "../hardening/secrets.ts";
import { AVAILABLE_VARIANT, SOLD_OUT_VARIANT } from "./http.ts";

/**
 * The fuzz property of `test/fuzz.integration.test.ts` again, over real HTTP against `npm run
 * dev` (wrangler's proxy, workerd's HTTP parser and Node's fetch in the path): every answer is
 * one the contract allows, never a 5xx or a secret, and a refused write changes no cart.
 */

const DEV_OPERATOR_SECRET = "dev-operator-secret";
const scanner = new SecretScanner();
const figures = {
  requests: 0,
  unexpected_5xx: 0,
  contract_violations: 0,
  rejected_writes: 0,
  cart_changed_by_rejected: 0,
};
const pool: string[] = [];
const base = () => inject("e2eBaseUrl");

/** Node's fetch sends only ASCII header values; anything else would fail before leaving. */
const ascii = (value: string) => value.replace(/[^\x20-\x7e\t]/g, "?");

async function cartState(token: string): Promise<string> {
  const res = await fetch(`${base()}/api/v1/cart`, { headers: { Authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  const cart = (await res.json()) as { lines: unknown[]; updated_at: string };
  return JSON.stringify({ lines: cart.lines, updated_at: cart.updated_at });
}

beforeAll(async () => {
  await scanner.add(DEV_OPERATOR_SECRET);
  for (let i = 0; i < 3; i += 1) {
    const res = await fetch(`${base()}/api/v1/operator/tokens`, {
      method: "POST",
      headers: { Authorization: `Bearer ${DEV_OPERATOR_SECRET}`, "Content-Type": "application/json" },
      body: JSON.stringify({ label: `http fuzz ${i}` }),
    });
    const { token } = (await res.json()) as { token: string };
    await scanner.add(token);
    const added = await fetch(`${base()}/api/v1/cart/lines`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ variant_id: AVAILABLE_VARIANT, quantity: 1 }),
    });
    expect(added.status).toBe(200);
    pool.push(token);
  }
}, 60_000);

afterAll(() => printFigures("e2e-fuzz-http", figures));

describe("arbitrary requests over real HTTP", () => {
  const RUNS = fuzzRuns(100);
  it(
    "get only answers the contract allows, never a 5xx or a secret, and a refused write changes no cart",
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fuzzRequest([AVAILABLE_VARIANT, SOLD_OUT_VARIANT, `gid://shopify/ProductVariant/${AVAILABLE_VARIANT}`]),
          fc.nat(pool.length - 1),
          async (request, who) => {
            const token = pool[who]!;
            const before = await cartState(token);
            const lineId = (JSON.parse(before) as { lines: { id: string }[] }).lines[0]?.id ?? "cl_none";
            const headers = new Headers();
            for (const [name, value] of Object.entries(request.headers)) headers.set(name, ascii(value));
            const auth = authorization(request.auth, token, DEV_OPERATOR_SECRET, ascii(request.garbage));
            if (auth !== undefined) headers.set("Authorization", auth);
            const url = `${base()}${pathOf(request, lineId)}${queryOf(request)}`;
            const method = request.method.toUpperCase();
            const hasBody = request.body !== undefined && method !== "GET" && method !== "HEAD";
            const res = await fetch(url, {
              method,
              headers,
              redirect: "manual",
              ...(hasBody ? { body: request.body } : {}),
            });
            figures.requests += 1;
            const verdict = await judge(
              { method, path: new URL(url).pathname, origin: headers.get("origin") },
              res,
              scanner,
              originAllowedInDev,
            );
            if (verdict.unexpected5xx) figures.unexpected_5xx += 1;
            if (verdict.problems.length > 0) figures.contract_violations += 1;
            expect(verdict.problems, `${method} ${url} -> ${verdict.status} ${verdict.body.slice(0, 300)}`).toEqual([]);
            const after = await cartState(token);
            if (
              ["POST", "PATCH", "DELETE", "PUT"].includes(method) &&
              (verdict.status < 200 || verdict.status >= 300)
            ) {
              figures.rejected_writes += 1;
              if (after !== before) figures.cart_changed_by_rejected += 1;
              expect(after, `${method} ${url} refused with ${verdict.status} but changed the cart`).toBe(before);
            }
            if ((JSON.parse(after) as { lines: unknown[] }).lines.length === 0) {
              await fetch(`${base()}/api/v1/cart/lines`, {
                method: "POST",
                headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
                body: JSON.stringify({ variant_id: AVAILABLE_VARIANT, quantity: 1 }),
              });
            }
          },
        ),
        { numRuns: RUNS },
      );
    },
    timeoutFor(RUNS, 500),
  );
});
