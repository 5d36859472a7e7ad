import { storefrontApp } from "./app.ts";
import { deliverOrderEvents } from "./checkout/event-delivery.ts";

export type { AppType, OperatorAppType } from "./app.ts";
export * from "./objects.ts";

/**
 * The Worker as `wrangler deploy` uploads it: the app, and beside its `fetch` the ORDER_EVENTS
 * queue's consumer (order events out, contract 10.7). `npm run dev` serves src/dev.ts instead.
 */
export default Object.assign(storefrontApp(), { queue: deliverOrderEvents });
