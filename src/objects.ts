// The Worker's Durable Object classes, exported by each entry (src/index.ts, src/dev.ts) under
// the names wrangler.toml binds.
export { Cart } from "./cart/cart-object.ts";
export { BrowseEngine } from "./browse/engine.ts";
export { Stock } from "./stock/stock-object.ts";
export { Checkouts } from "./checkout/checkout-object.ts";
export { RulesPublisher } from "./rules/rules-object.ts";
export { DiscountUsage } from "./discounts/usage-object.ts";
