import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CartSchema } from "../../src/cart/api.ts";
import { MAX_URL_CHARS } from "../../src/http/errors.ts";
import { BASE, call, cartCall, issueToken, OPERATOR_SECRET } from "../helpers/cart.ts";
import { judge } from "./answers.ts";
import { pathSegment } from "./arbitraries.ts";
import { fuzzRuns, printFigures, timeoutFor } from "./run-config.ts";
import { SecretScanner } from "./secrets.ts";

/**
 * Before any catalog is published (this file's KV is its own and nothing publishes into it):
 * catalog reads are 503 `catalog_unavailable` in the envelope, never a 500, whatever the path or
 * query; the cart still reads and clears, and adding a line is the same 503, changing nothing.
 */

const scanner = new SecretScanner();
let token: string;
const figures = { requests: 0, unexpected_5xx: 0, catalog_503: 0 };

beforeAll(async () => {
  token = (await issueToken("unpublished")).token;
  await scanner.add(token);
  await scanner.add(OPERATOR_SECRET);
});

afterAll(() => printFigures("faults-unpublished", figures));

describe("no catalog published yet", () => {
  const RUNS = fuzzRuns(120);
  it(
    "answers every catalog read 503 catalog_unavailable with Retry-After, or a handle 404, never a 500",
    async () => {
      const template = fc.constantFrom(
        "/api/v1/products",
        "/api/v1/products/{h}",
        "/api/v1/products/{h}/variants",
        "/api/v1/collections",
        "/api/v1/collections/{h}",
      );
      const query = fc.constantFrom(
        "",
        "?limit=5",
        "?limit=ten",
        "?x=1",
        "?starting_after=a&ending_before=b",
        "?size=M",
      );
      await fc.assert(
        fc.asyncProperty(
          template,
          pathSegment,
          query,
          fc.constantFrom("GET", "HEAD"),
          async (t, segment, q, method) => {
            const path = t.replace("{h}", segment);
            const res = await call(`${path}${q}`, { method });
            figures.requests += 1;
            const verdict = await judge({ method, path: new URL(`https://x${path}`).pathname }, res, scanner);
            if (verdict.unexpected5xx) figures.unexpected_5xx += 1;
            expect(verdict.problems, `${method} ${path}${q} -> ${verdict.status} ${verdict.body}`).toEqual([]);
            // A URL over the edge's limit is 414 url_too_long before anything else is looked at.
            const tooLong = `${BASE}${path}${q}`.length > MAX_URL_CHARS;
            expect(tooLong ? [414] : [503, 404], `${path}${q}`).toContain(verdict.status);
            if (verdict.status === 503) {
              figures.catalog_503 += 1;
              expect(res.headers.get("retry-after")).toMatch(/^\d+$/);
              if (method === "GET")
                expect(JSON.parse(verdict.body)).toMatchObject({
                  error: { type: "api_error", code: "catalog_unavailable" },
                });
            }
          },
        ),
        { numRuns: RUNS },
      );
    },
    timeoutFor(RUNS),
  );

  it("still reads and clears the cart, and answers an add 503 catalog_unavailable without a change", async () => {
    const read = await cartCall(token, "/cart");
    expect(read.status).toBe(200);
    const before = CartSchema.parse(await read.json());
    const addRes = await cartCall(token, "/cart/lines", {
      method: "POST",
      body: { variant_id: "44102938475602", quantity: 1 },
    });
    figures.requests += 2;
    expect(addRes.status).toBe(503);
    expect(addRes.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(await addRes.json()).toEqual({
      error: { type: "api_error", code: "catalog_unavailable", message: expect.any(String) },
    });
    const after = CartSchema.parse(await (await cartCall(token, "/cart")).json());
    expect(after.lines).toEqual(before.lines);
    const cleared = await cartCall(token, "/cart", { method: "DELETE" });
    figures.requests += 2;
    expect(cleared.status).toBe(200);
  });
});
