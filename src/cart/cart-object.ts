import { DurableObject } from "cloudflare:workers";

/** Placeholder: one cart per token holder, filled in by the cart issue. */
export class Cart extends DurableObject<Env> {}
