import { beforeAll, describe, expect, it } from "vitest";
import { CheckoutSchema } from "../../src/checkout/api.ts";
import { ErrorResponseSchema } from "../../src/http/errors.ts";
import { bearerInit } from "../helpers/bearer.ts";
import { addLine, issueToken, seedVariants, type SeedVariants } from "../helpers/cart.ts";
import { fetchAs } from "../helpers/worker.ts";

/**
 * Issue 42, point 15: `return_url` had to be `https:` even under `npm run dev`, so a storefront on
 * `http://localhost:3000` got no way back. In development `http://localhost` and
 * `http://127.0.0.1` (any port) are allowed; a deployed worker still refuses every `http:` URL.
 */
let seed: SeedVariants;
beforeAll(async () => {
  seed = await seedVariants();
});

async function checkout(environment: string, returnUrl: unknown): Promise<Response> {
  const { token } = await issueToken("return url");
  expect((await addLine(token, seed.available[0]!.id, 1)).status).toBe(200);
  return fetchAs(
    environment,
    "/api/v1/checkouts",
    bearerInit(token, { method: "POST", body: { return_url: returnUrl } }),
  );
}

describe("return_url", () => {
  it("takes http://localhost and http://127.0.0.1 on any port in development", async () => {
    for (const url of ["http://localhost:3000/thanks", "http://127.0.0.1:5173/?order=1", "http://localhost"]) {
      const res = await checkout("development", url);
      const text = await res.text();
      expect(res.status, text).toBe(201);
      expect(CheckoutSchema.parse(JSON.parse(text)).return_url).toBe(url);
    }
  });

  it("refuses http: anywhere else, and http://localhost outside development, with 400 naming return_url", async () => {
    const cases: [string, string][] = [
      ["development", "http://shop.example/thanks"],
      ["development", "http://localhost.evil.example/thanks"],
      ["development", "http://127.0.0.2:3000/"],
      ["production", "http://localhost:3000/thanks"],
      ["production", "http://127.0.0.1:3000/thanks"],
    ];
    for (const [environment, url] of cases) {
      const res = await checkout(environment, url);
      expect(res.status, `${environment} ${url}`).toBe(400);
      const { error } = ErrorResponseSchema.parse(await res.json());
      expect(error).toMatchObject({ code: "parameter_invalid", param: "return_url" });
      expect(error.message).toContain("https");
    }
  });

  it("takes https: in production", async () => {
    expect((await checkout("production", "https://shop.example/thanks")).status).toBe(201);
  });
});
