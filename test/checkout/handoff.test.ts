import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { CheckoutSchema } from "../../src/checkout/api.ts";
import { handoffUrl } from "../../src/checkout/handoff.ts";
import { d1Target } from "../../src/publish/browse-index.ts";
import { publishCatalog } from "../../src/publish/publish.ts";
import { bearerInit } from "../helpers/bearer.ts";
import { addLine, issueToken } from "../helpers/cart.ts";
import { seedCatalog } from "../helpers/catalog.ts";
import { fetchAs } from "../helpers/worker.ts";

const VARIANT = "44102938475602";

/** Publishes the seed with `variant_ids` set as an import would set it. */
async function publishSeedWith(variantIds: "store" | "derived" | undefined): Promise<void> {
  const catalog = { ...seedCatalog(), ...(variantIds ? { variant_ids: variantIds } : {}) };
  await publishCatalog(env.CATALOG, catalog, { browse: d1Target(env.BROWSE, env.BROWSE_SNAPSHOTS) });
}

/** A checkout of two units of the M / Black tee, made by a worker with `vars`. */
async function checkoutUrl(environment: string, vars: Partial<Env>): Promise<string | null> {
  const issued = await issueToken();
  expect((await addLine(issued.token, VARIANT, 2)).status).toBe(200);
  const res = await fetchAs(environment, "/api/v1/checkouts", bearerInit(issued.token, { method: "POST" }), vars);
  const text = await res.text();
  expect(res.status, text).toBe(201);
  return CheckoutSchema.parse(JSON.parse(text)).url;
}

describe("the hand-off URL", () => {
  beforeAll(async () => {
    await publishSeedWith("store");
  });

  it("fills the CHECKOUT_URL template first", async () => {
    const url = await checkoutUrl("production", {
      CHECKOUT_URL: "https://pay.example.com/c/{checkout_id}?from=store",
      SHOPIFY_STORE_DOMAIN: "shop.example.com",
    });
    expect(url).toMatch(/^https:\/\/pay\.example\.com\/c\/chk_[0-9a-f]{64}[A-Za-z0-9]{16}\?from=store$/);
  });

  it("is a Shopify cart permalink when the catalog's variant ids are the store's own", async () => {
    const url = await checkoutUrl("production", { CHECKOUT_URL: "", SHOPIFY_STORE_DOMAIN: "shop.example.com" });
    expect(url).toBe(`https://shop.example.com/cart/${VARIANT}:2`);
  });

  it("is null when neither is set, outside development; the local test page in development", async () => {
    expect(await checkoutUrl("production", { CHECKOUT_URL: "", SHOPIFY_STORE_DOMAIN: "" })).toBeNull();
    expect(await checkoutUrl("development", { CHECKOUT_URL: "", SHOPIFY_STORE_DOMAIN: "" })).toMatch(
      /^https:\/\/storefront\.test\/dev\/pay\/chk_/,
    );
  });

  it("never makes a permalink from ids a CSV import derived, or from ids of unknown origin", async () => {
    await publishSeedWith("derived");
    expect(await checkoutUrl("production", { CHECKOUT_URL: "", SHOPIFY_STORE_DOMAIN: "shop.example.com" })).toBeNull();
    await publishSeedWith(undefined);
    expect(await checkoutUrl("production", { CHECKOUT_URL: "", SHOPIFY_STORE_DOMAIN: "shop.example.com" })).toBeNull();
  });
});

describe("handoffUrl", () => {
  const lines = [
    { variant_id: "1", quantity: 2 },
    { variant_id: "22", quantity: 1 },
  ];
  it("lists every line in the permalink and ignores a domain that is not one", () => {
    const settings = { checkoutUrl: "", shopifyDomain: "Shop.Example.com", storeIds: true, devPayBase: null };
    expect(handoffUrl(settings, "chk_x", lines)).toBe("https://shop.example.com/cart/1:2,22:1");
    expect(handoffUrl({ ...settings, shopifyDomain: "evil.example/path?" }, "chk_x", lines)).toBeNull();
    expect(handoffUrl({ ...settings, shopifyDomain: "" }, "chk_x", lines)).toBeNull();
  });
});

describe("the Shopify permalink keeps what the cart carries (contract 10.6)", () => {
  const settings = { checkoutUrl: "", shopifyDomain: "shop.example.com", storeIds: true, devPayBase: null };
  const lines = [{ variant_id: "1", quantity: 2 }];

  it("adds the discount code, the note and each attribute, each encoded so it reads back exactly", () => {
    const note = 'Gift wrap & a card: "Happy 30th" #1 = 100% 🎉\nThanks';
    const attributes = { "Gift message": "For you & me", "a[b]=c": "x&y=z#w", Leave: "at door?" };
    const url = handoffUrl(settings, "chk_x", lines, { note, attributes, discountCode: "SUMMER 10&X" })!;
    expect(url.startsWith("https://shop.example.com/cart/1:2?discount=SUMMER%2010%26X&note=")).toBe(true);
    // No raw space or `+` standing for one: Shopify must read back exactly what the shopper wrote.
    expect(url).not.toMatch(/[ +]/);
    const query = new URL(url).searchParams;
    expect(query.get("discount")).toBe("SUMMER 10&X");
    expect(query.get("note")).toBe(note);
    expect(
      Object.fromEntries(
        [...query].filter(([k]) => k.startsWith("attributes[")).map(([k, v]) => [k.slice(11, -1), v] as const),
      ),
    ).toEqual(attributes);
    // A key's own brackets are encoded, so `attributes[a[b]=c]` cannot be read as a nested key.
    expect(url).toContain("attributes[a%5Bb%5D%3Dc]=x%26y%3Dz%23w");
  });

  it("adds nothing when the cart has no note, attributes or code", () => {
    expect(handoffUrl(settings, "chk_x", lines, { note: null, attributes: {}, discountCode: null })).toBe(
      "https://shop.example.com/cart/1:2",
    );
  });

  it("carries a real cart's note and attributes into the checkout's permalink", async () => {
    await publishSeedWith("store");
    const issued = await issueToken();
    expect((await addLine(issued.token, VARIANT, 1)).status).toBe(200);
    const patched = await fetchAs(
      "production",
      "/api/v1/cart",
      bearerInit(issued.token, {
        method: "PATCH",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ note: "Ring twice & wait", attributes: { "Delivery window": "9-12" } }),
      }),
    );
    expect(patched.status).toBe(200);
    const res = await fetchAs("production", "/api/v1/checkouts", bearerInit(issued.token, { method: "POST" }), {
      CHECKOUT_URL: "",
      SHOPIFY_STORE_DOMAIN: "shop.example.com",
    });
    const url = new URL(CheckoutSchema.parse(await res.json()).url!);
    expect(url.pathname).toBe(`/cart/${VARIANT}:1`);
    expect(url.searchParams.get("note")).toBe("Ring twice & wait");
    expect(url.searchParams.get("attributes[Delivery window]")).toBe("9-12");
    expect(url.searchParams.has("discount")).toBe(false);
  });
});
