/** The contract's example document (section 10.1), as a store would publish it. */
export const CONTRACT_EXAMPLE = {
  discounts: [
    {
      id: "summer10",
      title: "Summer sale",
      code: "SUMMER10",
      kind: "percentage",
      value: "10",
      applies_to: { products: ["handle"], collections: ["handle"], variants: ["44102938475602"] },
      minimum_subtotal: "50.00",
      minimum_quantity: 2,
      starts_at: "2026-12-01T00:00:00Z",
      ends_at: "2026-12-31T23:59:59Z",
      usage_limit: 100,
      once_per_buyer: false,
      combines_with: ["shipping"],
    },
    { id: "five-off", title: "5 off", code: "FIVE", kind: "fixed_amount", value: "5.00", per_item: false },
    {
      id: "ship-free",
      title: "Free shipping over 100",
      kind: "free_shipping",
      minimum_subtotal: "100.00",
      combines_with: ["order", "product"],
    },
    {
      id: "b2g1",
      title: "Buy 2 tees, get 1 free",
      kind: "buy_x_get_y",
      buy: { quantity: 2, applies_to: { collections: ["tees"] } },
      get: { quantity: 1, applies_to: { collections: ["tees"] }, percentage: "100" },
      max_uses_per_order: 1,
    },
  ],
  shipping: {
    zones: [
      {
        name: "Domestic",
        countries: ["US"],
        rates: [
          { id: "standard", title: "Standard", price: "5.00" },
          { id: "express", title: "Express", price: "15.00", min_subtotal: "20.00" },
        ],
      },
    ],
  },
  tax: {
    mode: "exclusive",
    shipping_taxable: false,
    rates: [{ country: "US", region: "CA", rate: "0.0725", name: "Sales tax" }],
  },
};
