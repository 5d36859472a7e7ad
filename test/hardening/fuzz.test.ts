import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Cart } from "../../src/cart/api.ts";
import { MAX_URL_CHARS } from "../../src/http/errors.ts";
import {
  BASE,
  call,
  cartCall,
  issueToken,
  OPERATOR_SECRET,
  readCart,
  type SeedVariants,
  seedVariants,
} from "../helpers/cart.ts";
import { judge } from "./answers.ts";
import { edgeNumberLiteral, jsonValueLiteral, rawObjectBody } from "./arbitraries.ts";
import { authorization, fuzzRequest, pathOf, queryOf } from "./requests.ts";
import { fuzzRuns, printFigures, timeoutFor } from "./run-config.ts";
import { SecretScanner } from "./secrets.ts";

/**
 * Property-based tests over every endpoint, in workerd against the real worker, KV and cart
 * Durable Objects: arbitrary methods, paths, query strings, headers and bodies. Whatever is
 * sent, the answer is one the contract allows for that endpoint, in the error envelope when it
 * is an error, never an unexpected 5xx, never carrying a token, a token hash or a stack trace;
 * a refused request leaves the cart exactly as it was, and no log line holds a secret.
 */

let seed: SeedVariants;
const scanner = new SecretScanner();
/** Fuzzing tokens: a few holders, so the 120 writes/minute limit is met but does not mute the run. */
const pool: { token: string }[] = [];
const figures = {
  requests: 0,
  unexpected_5xx: 0,
  contract_violations: 0,
  rejected_writes: 0,
  cart_changed_by_rejected: 0,
  accepted_writes: 0,
  leaked_secrets: 0,
};
const logLines: string[] = [];

beforeAll(async () => {
  seed = await seedVariants();
  await scanner.add(OPERATOR_SECRET);
  for (let i = 0; i < 6; i += 1) {
    const issued = await issueToken(`fuzz-${i}`);
    await scanner.add(issued.token);
    // Every fuzzing cart starts with a line, so PATCH/DELETE have one to aim at and updated_at is stable.
    const res = await cartCall(issued.token, "/cart/lines", {
      method: "POST",
      body: { variant_id: seed.available[0]!.id, quantity: 1 },
    });
    expect(res.status).toBe(200);
    pool.push({ token: issued.token });
  }
  const capture = (...args: unknown[]) => void logLines.push(args.map(String).join(" "));
  for (const level of ["log", "info", "warn", "error", "debug"] as const)
    vi.spyOn(console, level).mockImplementation(capture);
});

afterAll(() => {
  vi.restoreAllMocks();
  printFigures("fuzz", figures);
});

/** What a cart is, for "did it change": lines and the last-write time. */
function fingerprint(cart: Cart): string {
  return JSON.stringify({ lines: cart.lines, updated_at: cart.updated_at, total: cart.total_quantity });
}

const ANY_REQUEST_RUNS = fuzzRuns(400);
const BODY_RUNS = fuzzRuns(200);
const WRITES = new Set(["POST", "PATCH", "DELETE", "PUT", "patch"]);

describe("arbitrary requests to every endpoint", () => {
  it(
    "answer only what the contract allows there, never a 5xx or a secret, and a refused write changes no cart",
    async () => {
      const variantIds = [...seed.available.slice(0, 4), ...seed.soldOut.slice(0, 1)].flatMap((v) => [v.id, v.gid]);
      await fc.assert(
        fc.asyncProperty(fuzzRequest(variantIds), fc.nat(pool.length - 1), async (request, who) => {
          const { token } = pool[who]!;
          const before = await readCart(token);
          const headers = new Headers(request.headers);
          const auth = authorization(request.auth, token, OPERATOR_SECRET, request.garbage);
          if (auth !== undefined) headers.set("Authorization", auth);
          const path = pathOf(request, before.lines[0]?.id ?? "cl_none");
          const url = `${BASE}${path}${queryOf(request)}`;
          const hasBody = request.body !== undefined && request.method !== "GET" && request.method !== "HEAD";
          const res = await call(`${path}${queryOf(request)}`, {
            method: request.method,
            headers,
            ...(hasBody ? { body: request.body } : {}),
            redirect: "manual",
          });
          figures.requests += 1;
          const verdict = await judge(
            { method: request.method, path: new URL(url).pathname, origin: request.headers.Origin ?? null },
            res,
            scanner,
          );
          if (verdict.unexpected5xx) figures.unexpected_5xx += 1;
          if (verdict.problems.length > 0) figures.contract_violations += 1;
          if (verdict.problems.some((p) => p.startsWith("secret"))) figures.leaked_secrets += 1;
          expect(
            verdict.problems,
            `${request.method} ${url} -> ${verdict.status} ${verdict.body.slice(0, 300)}`,
          ).toEqual([]);
          // Strict query strings: a list read with any parameter it does not know is a 400.
          const listPath = new URL(url).pathname;
          const listing = listPath === "/api/v1/products" || listPath === "/api/v1/collections";
          const unknownKey = [...new URL(url).searchParams.keys()].some(
            (k) => !["limit", "starting_after", "ending_before"].includes(k),
          );
          // A URL over the edge's limit is 414 url_too_long before its parameters are read.
          if (listing && unknownKey && ["GET", "HEAD"].includes(request.method) && url.length <= MAX_URL_CHARS)
            expect(verdict.status, `${url} has an unknown parameter`).toBe(400);

          const after = await readCart(token);
          if (WRITES.has(request.method)) {
            if (verdict.status >= 200 && verdict.status < 300) figures.accepted_writes += 1;
            else {
              figures.rejected_writes += 1;
              if (fingerprint(after) !== fingerprint(before)) figures.cart_changed_by_rejected += 1;
              expect(
                fingerprint(after),
                `${request.method} ${url} was refused with ${verdict.status} but changed the cart`,
              ).toBe(fingerprint(before));
            }
          }
          // A write that went through may have emptied the cart: give it its line back for the next run.
          if (after.lines.length === 0) {
            await cartCall(token, "/cart/lines", {
              method: "POST",
              body: { variant_id: seed.available[0]!.id, quantity: 1 },
            });
          }
        }),
        { numRuns: ANY_REQUEST_RUNS },
      );
    },
    timeoutFor(ANY_REQUEST_RUNS),
  );

  it(
    "apply an accepted JSON body exactly as parsed (a duplicate key is refused), and refuse edge numbers without a change",
    async () => {
      const variants = seed.available.slice(0, 3);
      const key = fc.constantFrom("variant_id", "quantity", "quantity", "handle", "__proto__", "constructor");
      const value = fc.oneof(
        edgeNumberLiteral,
        fc.constantFrom(...variants.flatMap((v) => [JSON.stringify(v.id), JSON.stringify(v.gid)])),
        jsonValueLiteral,
      );
      // Mostly a valid core (variant and quantity) with hostile extras, so acceptance is reachable.
      const core = fc.tuple(
        fc.constantFrom(...variants.flatMap((v) => [JSON.stringify(v.id), JSON.stringify(v.gid)])),
        fc.oneof(
          { weight: 3, arbitrary: fc.integer({ min: 1, max: 30 }).map(String) },
          { weight: 1, arbitrary: edgeNumberLiteral },
        ),
      );
      const bodies = fc.oneof(
        rawObjectBody(key, value),
        fc
          .tuple(core, fc.oneof(rawObjectBody(key, value), fc.constant("{}")), fc.boolean())
          .map(([[id, q], extra, first]) => {
            const inner = extra.slice(1, -1);
            const coreText = `"variant_id":${id},"quantity":${q}`;
            const joined = inner === "" ? coreText : first ? `${coreText},${inner}` : `${inner},${coreText}`;
            return `{${joined}}`;
          }),
      );
      await fc.assert(
        fc.asyncProperty(bodies, fc.nat(pool.length - 1), async (body, who) => {
          const { token } = pool[who]!;
          const before = await readCart(token);
          const res = await cartCall(token, "/cart/lines", { method: "POST", body });
          figures.requests += 1;
          const verdict = await judge({ method: "POST", path: "/api/v1/cart/lines" }, res, scanner);
          expect(verdict.problems, `${body} -> ${verdict.status} ${verdict.body.slice(0, 200)}`).toEqual([]);
          const after = await readCart(token);
          const parsed = JSON.parse(body) as Record<string, unknown>;
          if (verdict.status === 200) {
            figures.accepted_writes += 1;
            // Only a body that is valid as JSON.parse reads it may be accepted, and it adds exactly that.
            const quantity = parsed.quantity as number;
            expect(Number.isInteger(quantity) && quantity >= 1 && quantity <= 999, body).toBe(true);
            const id = String(parsed.variant_id).replace("gid://shopify/ProductVariant/", "");
            const had = before.lines.find((l) => l.variant_id === id)?.quantity ?? 0;
            expect(after.lines.find((l) => l.variant_id === id)?.quantity, body).toBe(had + quantity);
          } else {
            figures.rejected_writes += 1;
            if (fingerprint(after) !== fingerprint(before)) figures.cart_changed_by_rejected += 1;
            expect(fingerprint(after), body).toBe(fingerprint(before));
          }
          expect(({} as Record<string, unknown>).polluted, "Object.prototype was polluted").toBeUndefined();
          if (after.total_quantity > 900) await cartCall(token, "/cart", { method: "DELETE" });
        }),
        { numRuns: BODY_RUNS },
      );
    },
    timeoutFor(BODY_RUNS),
  );

  it("write no token, token hash or request body into any log line", () => {
    expect(logLines.length).toBeGreaterThanOrEqual(figures.requests);
    for (const line of logLines) {
      expect(scanner.findings(line), line).toEqual([]);
      const json = JSON.parse(line.slice(line.indexOf("{"))) as Record<string, unknown>;
      // Request lines have exactly these fields; error lines (none expected) name the error only.
      expect(Object.keys(json).sort(), line).toEqual([
        "cache",
        "duration_ms",
        "method",
        "request_id",
        "route",
        "status",
      ]);
      expect(String(json.route), line).not.toMatch(/sf_live_|%|\u0000/);
    }
  });
});
