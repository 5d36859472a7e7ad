/**
 * The pricing room's surface (contract 10.2-10.5): `priceCart` (lines + rules + buyer -> cost, no
 * I/O), the wire schemas and `renderCost`. The cart, the checkout, the payment session and the
 * order import from here.
 */
export * from "./api.ts";
export { priceCart } from "./price.ts";
export { type RenderedCost, renderCost } from "./render.ts";
export * from "./types.ts";
