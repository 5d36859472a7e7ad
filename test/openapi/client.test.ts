import { exports } from "cloudflare:workers";
import { hc } from "hono/client";
import { beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { CartSchema } from "../../src/cart/api.ts";
import { ProductListSchema, ProductSchema, VariantListSchema } from "../../src/catalog/api.ts";
import { ErrorResponseSchema } from "../../src/http/errors.ts";
import type { AppType, OperatorAppType } from "../../src/index.ts";
import { publishSeedCatalog } from "../helpers/catalog.ts";

/**
 * A TypeScript storefront's view of the API: `hc<AppType>` from `hono/client`, pointed at the
 * running app (its fetch is the worker's own), with paths and methods checked by the compiler and
 * bodies checked by the exported zod schemas.
 */
const client = hc<AppType>("https://storefront.test/api/v1", {
  fetch: (input: RequestInfo | URL, init?: RequestInit) => exports.default.fetch(input, init),
});

let token = "";

beforeAll(async () => {
  await publishSeedCatalog();
  const issued = await exports.default.fetch("https://storefront.test/api/v1/operator/tokens", {
    method: "POST",
    headers: { Authorization: "Bearer test-operator-secret", "Content-Type": "application/json" },
    body: JSON.stringify({ label: "typed client" }),
  });
  token = ((await issued.json()) as { token: string }).token;
});

describe("hc<AppType> against the app", () => {
  it("types the health body from the handler", async () => {
    const res = await client.health.$get();
    const body = await res.json();
    expectTypeOf(body).toEqualTypeOf<{ status: string }>();
    expect(body).toEqual({ status: "ok" });
  });

  it("lists products with a query and reads them with the catalog schema", async () => {
    const res = await client.products.$get({ query: { limit: "2" } });
    expect(res.status).toBe(200);
    const page = ProductListSchema.parse(await res.json());
    expect(page.data.map((p) => p.handle)).toEqual(["essential-crew-tee-black", "essential-crew-tee-white"]);
  });

  it("sends several values of one option filter (issue 42, point 17), answering what option.size=M&option.size=L answers", async () => {
    const res = await client.products.$get({ query: { "option[size]": ["M", "L"], limit: "250" } });
    expect(res.status).toBe(200);
    const dotted = await exports.default.fetch(
      "https://storefront.test/api/v1/products?option.size=M&option.size=L&limit=250",
    );
    expect(await res.json()).toEqual(await dotted.json());
  });

  it("fills path parameters: a product and its variants", async () => {
    const product = ProductSchema.parse(
      await (await client.products[":handle"].$get({ param: { handle: "essential-crew-tee-black" } })).json(),
    );
    expect(product.options.map((o) => o.name)).toEqual(["size", "color"]);
    const res = await client.products[":handle"].variants.$get({ param: { handle: product.handle } });
    const variants = VariantListSchema.parse(await res.json());
    expect(variants.data).toHaveLength(product.variants_count);
  });

  it("builds the same URLs the server routes", () => {
    const url = client.products[":handle"].variants.$url({
      param: { handle: "example-hat" },
      query: { title: "Default Title" },
    });
    expect(url.pathname).toBe("/api/v1/products/example-hat/variants");
    expect(url.searchParams.get("title")).toBe("Default Title");
  });

  it("adds to the cart with a JSON body and a token: 200 for an available variant, 404 Sold out for a sold-out one", async () => {
    const headers = { Authorization: `Bearer ${token}` };
    const added = await client.cart.lines.$post({ json: { variant_id: "44102938475602", quantity: 2 } }, { headers });
    expect(added.status).toBe(200);
    const cart = CartSchema.parse(await added.json());
    expect(cart.lines.map((l) => [l.variant_title, l.quantity])).toEqual([["M / Black", 2]]);

    const refused = await client.cart.lines.$post({ json: { variant_id: "44102938475688", quantity: 1 } }, { headers });
    expect(refused.status).toBe(404);
    expect(ErrorResponseSchema.parse(await refused.json()).error).toMatchObject({
      code: "sold_out",
      message: "Sold out",
    });

    const read = CartSchema.parse(await (await client.cart.$get(undefined, { headers })).json());
    expect(read.total_quantity).toBe(2);
  });

  it("types queries and JSON bodies from the zod schemas the server validates with (checked by tsc)", () => {
    type AddLine = Parameters<typeof client.cart.lines.$post>[0]["json"];
    expectTypeOf<AddLine>().toHaveProperty("variant_id").toEqualTypeOf<string>();
    expectTypeOf<AddLine>().toHaveProperty("quantity").toEqualTypeOf<number>();
    type VariantQuery = NonNullable<Parameters<(typeof client.products)[":handle"]["variants"]["$get"]>[0]["query"]>;
    expectTypeOf<VariantQuery>().toHaveProperty("size").toEqualTypeOf<string | undefined>();
    expectTypeOf<VariantQuery>().toHaveProperty("limit").toEqualTypeOf<string | undefined>();
    expectTypeOf<VariantQuery>().toHaveProperty("color").toEqualTypeOf<string | undefined>();
  });

  it("leaves the operator's surface out of the public client, and types it in its own", async () => {
    // @ts-expect-error: the operator's routes are not part of AppType.
    expect(typeof client.operator.tokens.$get).toBe("function");
    const operator = hc<OperatorAppType>("https://storefront.test/api/v1/operator", {
      fetch: (input: RequestInfo | URL, init?: RequestInit) => exports.default.fetch(input, init),
      headers: { Authorization: "Bearer test-operator-secret" },
    });
    const res = await operator.tokens.$get();
    expect(res.status).toBe(200);
    expect((await res.json()).object).toBe("list");
  });

  it("knows only the routes the app has", async () => {
    // @ts-expect-error: no such resource; the compiler refuses it before the server does.
    const res = await client.refunds.$get();
    expect(res.status).toBe(404);
    // @ts-expect-error: the product list is read-only.
    expect(typeof client.products.$post).not.toBe("undefined");
  });
});
