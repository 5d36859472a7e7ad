import { Cart } from "../cart/cart-object.ts";
import { CART_CHECKOUTS_VERSION_TABLE, hasCheckouts, migrateCheckouts } from "./checkout-rows.ts";
import { CheckoutDesk, type CompleteCheckoutInput, type CreateCheckoutInput } from "./desk.ts";
import { type CheckoutReply, missingCheckout } from "./failure.ts";

/**
 * A holder's cart object, keeping the holder's checkouts too (docs/decisions/0016): the class the
 * Worker binds as CART. A checkout reads the cart it freezes in its own object, and a holder's
 * first checkout makes no object of its own; the checkout id carries this object's id.
 *
 * The checkouts' tables are made on the holder's first checkout, so a cart that never checks out
 * pays nothing for them. The cart's alarm is shared: its expiry and the checkouts' (holds to
 * release, sessions to expire, events to look at) arm one alarm for the earliest.
 */
export class CartWithCheckouts extends Cart {
  #desk: CheckoutDesk | undefined;
  /** Whether the checkouts' tables exist: undefined until asked. */
  #tables: boolean | undefined;

  /** Freezes the cart into a new open checkout, its units held (desk.ts `create`). */
  async createCheckout(input: CreateCheckoutInput): Promise<CheckoutReply> {
    return this.#checkouts(true)!.create(input);
  }

  async getCheckout(checkoutId: string): Promise<CheckoutReply> {
    return (await this.#checkouts(false)?.get(checkoutId)) ?? missingCheckout();
  }

  async cancelCheckout(checkoutId: string): Promise<CheckoutReply> {
    return (await this.#checkouts(false)?.cancel(checkoutId)) ?? missingCheckout();
  }

  async completeCheckout(input: CompleteCheckoutInput): Promise<CheckoutReply> {
    return (await this.#checkouts(false)?.complete(input)) ?? missingCheckout();
  }

  /** Every checkout kept here, with its hold lines and order. */
  async checkoutInventory(): ReturnType<CheckoutDesk["inventory"]> {
    return (await this.#checkouts(false)?.inventory()) ?? [];
  }

  protected override sharedAlarmAt(): number | undefined {
    return this.#checkouts(false)?.nextAlarm();
  }

  protected override async sharedAlarm(): Promise<void> {
    await this.#checkouts(false)?.alarm();
  }

  /** The desk, its tables made first when `make` (else undefined while the holder never checked out). */
  #checkouts(make: boolean): CheckoutDesk | undefined {
    if (this.#desk) return this.#desk;
    const sql = this.ctx.storage.sql;
    this.#tables ??= hasCheckouts(sql, CART_CHECKOUTS_VERSION_TABLE);
    if (!this.#tables && !make) return undefined;
    migrateCheckouts(sql, CART_CHECKOUTS_VERSION_TABLE);
    this.#tables = true;
    const self = this;
    this.#desk = new CheckoutDesk(this.ctx, {
      get env() {
        return self.env;
      },
      cart: () => self,
      schedule: (at) => self.armAlarm(at),
    });
    return this.#desk;
  }
}
