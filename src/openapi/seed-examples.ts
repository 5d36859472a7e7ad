const usd = (amount: string) => ({ amount, currency: "USD" }) as const;

/** A cart's cost in a store without rules (none published): the subtotal, nothing else. */
const noRulesCost = (amount: string) => ({
  subtotal: usd(amount),
  discount_total: usd("0.00"),
  shipping: null,
  tax: null,
  total: usd(amount),
  tax_included: false,
  tax_calculated_at: null,
});

const placeholder = (digits: string, handle: string, title: string) => ({
  id: `gid://shopify/Product/${digits}`,
  handle,
  title,
  price: usd("100.00"),
  available: false,
  endpoint_status: 404,
  url: `/api/v1/products/${handle}`,
});

/**
 * Examples for the OpenAPI document, copied from what the API answers for the shipped seed
 * catalog (`seed/catalog.json`). They are literal rather than read from the seed so the worker
 * does not bundle the catalog; `test/openapi/examples.test.ts` publishes the seed and checks
 * each one against the real answer, so they cannot drift from it.
 */
export const SEED_EXAMPLES = {
  /** `GET /products?limit=2` */
  productList: {
    object: "list",
    count: 28,
    data: [
      {
        id: "gid://shopify/Product/8012345670100",
        handle: "essential-crew-tee-black",
        title: "Essential Crew Tee - Black",
        price: usd("28.00"),
        available: true,
      },
      {
        id: "gid://shopify/Product/8012345670101",
        handle: "essential-crew-tee-white",
        title: "Essential Crew Tee - White",
        price: usd("28.00"),
        available: true,
      },
    ],
    has_more: true,
  },
  /** `GET /products/essential-crew-tee-black` */
  product: {
    object: "product",
    id: "gid://shopify/Product/8012345670100",
    handle: "essential-crew-tee-black",
    title: "Essential Crew Tee - Black",
    vendor: "Northwind Threads",
    product_type: "T-Shirts",
    tags: ["cotton", "essentials", "tee"],
    available: true,
    price: { min: usd("28.00"), max: usd("32.00") },
    variants_count: 8,
    options: [
      { name: "size", label: "Size", values: ["XS", "S", "M", "L", "XL", "2XL", "3XL", "4XL"] },
      { name: "color", label: "Color", values: ["Black"] },
    ],
  },
  /** `GET /products/canvas-market-tote?include=description,images,seo` */
  productWithContent: {
    object: "product",
    id: "gid://shopify/Product/8012345670116",
    handle: "canvas-market-tote",
    title: "Canvas Market Tote",
    vendor: "Northwind Threads",
    product_type: "Bags",
    tags: ["canvas", "accessories"],
    available: true,
    price: { min: usd("36.00"), max: usd("36.00") },
    variants_count: 1,
    options: [],
    description_html:
      "<p>A heavy canvas tote with leather handles, big enough for a week of " +
      "groceries.</p><ul><li>16 oz canvas</li><li>Inside zip pocket</li></ul>",
    description_text:
      "A heavy canvas tote with leather handles, big enough for a week of groceries. 16 oz canvas Inside zip pocket",
    images: [
      {
        url: "https://images.northwind-threads.example/products/canvas-market-tote-front.jpg",
        alt: "Canvas Market Tote, front",
        width: 1600,
        height: 2000,
      },
      {
        url: "https://images.northwind-threads.example/products/canvas-market-tote-back.jpg",
        alt: "Canvas Market Tote, back",
        width: 1600,
        height: 2000,
      },
    ],
    seo: {
      title: "Canvas Market Tote | Northwind Threads",
      description: "A heavy canvas market tote with leather handles.",
    },
  },
  /** `GET /products/essential-crew-tee-black/variants?size=M&color=Black` */
  variantList: {
    object: "list",
    count: 1,
    data: [
      {
        object: "variant",
        id: "44102938475602",
        gid: "gid://shopify/ProductVariant/44102938475602",
        product_handle: "essential-crew-tee-black",
        title: "M / Black",
        options: { size: "M", color: "Black" },
        price: usd("28.00"),
        available: true,
        sku: "NW-ECT-BLK-M",
        compare_at_price: null,
        image: null,
        requires_shipping: true,
      },
    ],
    has_more: false,
  },
  /** `GET /collections/sample-products` */
  collection: {
    object: "collection",
    handle: "sample-products",
    title: "Sample Products",
    products_count: 4,
    products: {
      object: "list",
      count: 4,
      data: [
        placeholder("8012345670124", "example-t-shirt", "Example T-Shirt"),
        placeholder("8012345670125", "example-pants", "Example Pants"),
        placeholder("8012345670126", "example-hat", "Example Hat"),
        placeholder("8012345670127", "example-hoodie", "Example Hoodie"),
      ],
      has_more: false,
    },
  },
  /** What `POST /cart/lines` answers for `addAvailable` into an empty cart (ids and times vary). */
  cart: {
    object: "cart",
    id: "cart_5c1e0b7f3a9d2e8c4b6a1f0d",
    lines: [
      {
        object: "cart_line",
        id: "cl_Qm3x8Zp1Lk5Vb7Nc2Wd4",
        variant_id: "44102938475602",
        handle: "essential-crew-tee-black",
        title: "Essential Crew Tee - Black",
        variant_title: "M / Black",
        options: { size: "M", color: "Black" },
        sku: "NW-ECT-BLK-M",
        image: {
          url: "https://images.northwind-threads.example/products/essential-crew-tee-black-front.jpg",
          alt: "Essential Crew Tee - Black, front",
          width: 1600,
          height: 2000,
        },
        url: "/api/v1/products/essential-crew-tee-black",
        quantity: 1,
        unit_price: usd("28.00"),
        compare_at_price: null,
        line_total: usd("28.00"),
        available: true,
        attributes: {},
        in_stock: true,
        requires_shipping: true,
        discount_allocations: [],
      },
    ],
    total_quantity: 1,
    subtotal: usd("28.00"),
    cost: noRulesCost("28.00"),
    discounts: [],
    discount_codes: [],
    shipping_options: [],
    shipping_option: null,
    buyer: null,
    note: null,
    attributes: {},
    created_at: "2026-11-21T04:00:00.000Z",
    updated_at: "2026-11-21T04:00:00.000Z",
    expires_at: "2026-12-21T04:00:00.000Z",
  },
  /** What `POST /carts` answers (a token of no server: signed with a made-up secret). */
  cartToken: {
    object: "cart_token",
    token:
      "sf_cart_01c0ffee5eed4b1e9a7d2c3f60e8a5b13a6d9e2f0b4c8d1e7f5a3b9c2d6e0f4a1b8c5d7e9f3a2b6c0d4e8f1a5b9c3d7e2f6a0b4c8d",
    expires_at: "2026-12-21T04:00:00.000Z",
    cart: {
      object: "cart",
      id: "cart_9e2b4f7a1c3d5e8f0a6b2c4d",
      lines: [],
      total_quantity: 0,
      subtotal: usd("0.00"),
      cost: noRulesCost("0.00"),
      discounts: [],
      discount_codes: [],
      shipping_options: [],
      shipping_option: null,
      buyer: null,
      note: null,
      attributes: {},
      created_at: "2026-11-21T04:00:00.000Z",
      updated_at: "2026-11-21T04:00:00.000Z",
      expires_at: "2026-12-21T04:00:00.000Z",
    },
  },
  /** `POST /cart/lines` bodies: an available variant (200) and a sold-out one (404 Sold out). */
  addAvailable: { variant_id: "44102938475602", quantity: 1 },
  addSoldOut: { variant_id: "gid://shopify/ProductVariant/44102938475688", quantity: 1 },
} as const;
