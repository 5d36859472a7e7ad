import { DurableObject } from "cloudflare:workers";
import { cartFor } from "../cart/cart-client.ts";
import { migrateCheckouts } from "./checkout-rows.ts";
import { CheckoutDesk, type CompleteCheckoutInput, type HolderCart } from "./desk.ts";
import type { CheckoutReply } from "./failure.ts";

/**
 * A holder's checkouts as they were kept before they moved into the cart's object
 * (docs/decisions/0016): one SQLite object per holder. It makes no new checkout; it still
 * answers, cancels, completes and expires the checkouts it made, whose ids carry its id, so a
 * payment for one made before the move is never lost. Its alarm is its own.
 */
export class Checkouts extends DurableObject<Env> {
  readonly #desk: CheckoutDesk;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const self = this;
    this.#desk = new CheckoutDesk(ctx, {
      get env() {
        return self.env;
      },
      cart: (holder) => cartFor(self.env, holder) as unknown as HolderCart,
      schedule: async (at) => {
        if (at !== undefined) await ctx.storage.setAlarm(at);
      },
    });
    void ctx.blockConcurrencyWhile(async () => migrateCheckouts(ctx.storage.sql));
  }

  async getCheckout(checkoutId: string): Promise<CheckoutReply> {
    return this.#desk.get(checkoutId);
  }

  async cancelCheckout(checkoutId: string): Promise<CheckoutReply> {
    return this.#desk.cancel(checkoutId);
  }

  async completeCheckout(input: CompleteCheckoutInput): Promise<CheckoutReply> {
    return this.#desk.complete(input);
  }

  override async alarm(): Promise<void> {
    await this.#desk.alarm();
  }
}
