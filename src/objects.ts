// The Worker's Durable Object classes, exported by each entry (src/index.ts, src/dev.ts) under
// the names wrangler.toml binds.
// CART: a holder's cart, keeping the holder's checkouts too (docs/decisions/0016).
export { CartWithCheckouts as Cart } from "./checkout/cart-host.ts";
export { BrowseEngine } from "./browse/engine.ts";
export { Stock } from "./stock/stock-object.ts";
// CHECKOUTS: the checkouts made before 0016, each in its holder's own object, still answered.
export { Checkouts } from "./checkout/checkout-object.ts";
export { RulesPublisher } from "./rules/rules-object.ts";
export { DiscountUsage } from "./discounts/usage-object.ts";
