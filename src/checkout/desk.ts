import { CatalogError } from "../catalog/errors.ts";
import { CatalogStore, pointerTtlMs } from "../catalog/store.ts";
import type { Cart } from "../cart/api.ts";
import { cartObjectId } from "../cart/cart-client.ts";
import type { CartReply, IdempotencyClaim } from "../cart/failure.ts";
import { buyerKey, type DiscountUses, discountUses } from "../discounts/usage.ts";
import { exhaustedAmong } from "../discounts/usage-marks.ts";
import { type Currency, DEFAULT_CURRENCY, fromMinor } from "../money.ts";
import type { PricingLine } from "../pricing/index.ts";
import { codeKey } from "../rules/codes.ts";
import type { Discount } from "../rules/schema.ts";
import { RulesStore } from "../rules/store.ts";
import { paymentStatus, type Received } from "../payment/amounts.ts";
import { type PaymentProvider, STRIPE_MIN_HOLD_SECONDS } from "../payment/provider.ts";
import { randomBase62 } from "../random.ts";
import type { CheckoutStatus } from "./api.ts";
import { type CheckoutContent, type CheckoutRecord, CheckoutRows, type Payment } from "./checkout-rows.ts";
import {
  type CheckoutFailure,
  type CheckoutReply,
  type DiscountFault,
  missingCheckout,
  type UnavailableLine,
} from "./failure.ts";
import { chargedCost, frozenCost, frozenFrom, paymentAmounts } from "./cost.ts";
import { costFaults, countedAmong, countedCandidates, priceCheckout, pricingLine } from "./pricing.ts";
import { handoffUrl, type HandoffSettings } from "./handoff.ts";
import { type HoldRules, HoldWindows, holdRules } from "./hold-windows.ts";
import type { Order } from "./api.ts";
import type { FrozenLine } from "./cost.ts";
import { type CompletedBy, OrdersStore } from "./orders.ts";
import { stripeSessions } from "./payment-adapter.ts";
import type { PaymentSessions, SessionRequest } from "./payment-port.ts";
import { holdLines, type StockHolds } from "./stock-port.ts";
import { stockHolds } from "./stock-adapter.ts";
import { checkoutJson } from "./view.ts";
import { enqueue, eventsEnabled, logEvents, REDRIVE_GRACE_MS, redriveOrderEvents } from "./event-delivery.ts";
import { eventsOf } from "./order-events.ts";

/** Settled checkouts are kept this long in the object (their orders stay in D1 for good). */
const SETTLED_KEPT_MS = 30 * 24 * 60 * 60 * 1000;
/** Idempotency-Keys of checkout creation are kept this long. */
const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** How soon the alarm finishes a completion a crash cut short. */
const RESUME_MS = 10_000;
/** The stock objects release a hold on their own this long after the checkout should have: a safety net. */
const STOCK_GRACE_MS = 5 * 60 * 1000;

/** A session expiry the provider did not confirm is tried again after 10 s, doubling up to 10 minutes. */
const EXPIRY_RETRY_MS = 10_000;
const EXPIRY_RETRY_MAX_MS = 10 * 60_000;
/** How long past a session's own end its expiry is still tried (the provider expires it by itself by then). */
const EXPIRY_GIVE_UP_MS = 60 * 60_000;

/**
 * When a checkout's payment session ends: with its hold, but never sooner than Stripe's shortest
 * session from the checkout's creation. A checkout made again keeps its first hold's `expires_at`
 * (holds cannot be hoarded), which may be minutes away; the session then outlives the hold, and
 * the checkout's expiry expires it. Derived from the record alone, so a replay asks the same.
 */
function sessionEndsAt(record: CheckoutRecord): number {
  return Math.max(record.expires_at, record.created_at + STRIPE_MIN_HOLD_SECONDS * 1000);
}

export interface CreateCheckoutInput {
  holder: string;
  tokenId: string;
  returnUrl: string | null;
  /** The operator's hand-off settings, as the request's worker reads them (the catalog decides `storeIds`). */
  handoff: Omit<HandoffSettings, "storeIds" | "provider">;
  /** PAYMENT_PROVIDER as the request's worker reads it. */
  provider: PaymentProvider;
  idempotency?: IdempotencyClaim;
}

export interface CompleteCheckoutInput {
  checkoutId: string;
  paymentReference: string;
  by: CompletedBy;
  /** What the payment moved: checked against the checkout's frozen total (contract 10.6). */
  received: Received;
}

function fail(failure: CheckoutFailure): CheckoutReply {
  return { ok: false, failure, replayed: false };
}

/** A cart frozen at the live catalog: what a new checkout will hold, or why it cannot. */
type Frozen =
  | {
      ok: true;
      content: CheckoutContent;
      storeIds: boolean;
      discountCode: string | null;
      /** The counted discounts the cost applied: a use of each is reserved with the holds. */
      uses: Discount[];
      /** The buyer's key for once_per_buyer uses (usage.ts buyerKey); null without an email. */
      buyer: string | null;
    }
  | { ok: false; reply: CheckoutReply };

/** What a desk needs of its holder's cart: the cart's own object, or an RPC stub of it (a legacy host). */
export interface HolderCart {
  getCart(caller: { tokenId: string; liveStock?: boolean }): Promise<CartReply>;
  isRevoked(tokenId: string): Promise<boolean>;
  /** Empties the cart once its checkout became an order. */
  checkedOut(): Promise<void>;
}

/** The object a desk lives in: its holder's cart, and its one alarm. */
export interface DeskHost {
  /** The object's env, read on every use (a test may swap the object's bindings). */
  readonly env: Env;
  cart(holder: string): HolderCart;
  /** Arms the object's alarm no later than `at` (undefined: the desk needs none), keeping any earlier need of the host's own. */
  schedule(at: number | undefined): Promise<void>;
}

/**
 * One holder's checkouts, kept in a Durable Object's SQLite beside the holder's cart: since
 * docs/decisions/0016 in the cart's own object (the checkout id carries that object's id), before
 * it in a Checkouts object of its own, which still answers for the checkouts it made. The payment
 * side (the operator surface, a webhook) reaches the object with the id alone; the desk answers
 * only for checkouts it made.
 *
 * Why in one object: it is the single writer of the holder's checkouts, so "one open checkout per
 * holder" and "one order per checkout" are decided in one place. Every operation runs through one
 * queue (`#serial`), because each awaits other objects (stock, discount uses) and D1, and two
 * completions interleaving across those awaits is exactly how a store makes two orders of one
 * cart. The order is also idempotent in D1 (its id derives from the checkout id), and stock calls
 * by the hold id, so a crash anywhere is cured by completing again.
 *
 * Every method returns a `CheckoutReply` (data, not exceptions: errors crossing RPC lose their class).
 */
export class CheckoutDesk {
  readonly #ctx: DurableObjectState;
  readonly #host: DeskHost;
  readonly #rows: CheckoutRows;
  readonly #catalog: CatalogStore;
  readonly #orders: OrdersStore;
  readonly #stock: StockHolds;
  readonly #payments: PaymentSessions;
  readonly #uses: DiscountUses;
  readonly #rulesStore: RulesStore;
  readonly #rules: HoldRules;
  readonly #windows: HoldWindows;
  #tail: Promise<unknown> = Promise.resolve();

  /** Its tables must exist (checkout-rows.ts `migrateCheckouts`): the host makes them. */
  constructor(ctx: DurableObjectState, host: DeskHost) {
    const env = host.env;
    this.#ctx = ctx;
    this.#host = host;
    this.#rows = new CheckoutRows(ctx.storage.sql);
    this.#catalog = new CatalogStore(env.CATALOG, { pointerTtlMs: pointerTtlMs(env.CATALOG_POINTER_TTL_MS) });
    this.#orders = new OrdersStore(env.ORDERS);
    this.#stock = stockHolds(env);
    this.#payments = stripeSessions(env);
    this.#uses = discountUses(env);
    this.#rulesStore = new RulesStore(env.CATALOG, { pointerTtlMs: pointerTtlMs(env.CATALOG_POINTER_TTL_MS) });
    this.#rules = holdRules(env);
    this.#windows = new HoldWindows(ctx.storage.sql, this.#rules);
  }

  get #env(): Env {
    return this.#host.env;
  }

  /**
   * Freezes the holder's cart into a new open checkout: re-priced at the live catalog, every
   * line's units held in stock (all or none). The previous open checkout's units count for this
   * one, and it is canceled once this one holds; a refusal leaves it as it was. An
   * Idempotency-Key replays the first answer.
   */
  async create(input: CreateCheckoutInput): Promise<CheckoutReply> {
    return this.#serial(async () => {
      const claim = input.idempotency;
      if (claim) {
        const admitted = this.#admit(claim);
        // A replay answers without reading the cart, where a create learns of a revoked token:
        // ask the cart here (the route no longer does before a request it accepts).
        if (admitted) {
          if (await this.#host.cart(input.holder).isRevoked(input.tokenId))
            return fail({ code: "token_revoked", message: "The token has been revoked." });
          return admitted;
        }
      }
      const reply = await this.#create(input);
      const transient =
        !reply.ok &&
        ["token_revoked", "catalog_unavailable", "payment_provider_unavailable"].includes(reply.failure.code);
      if (claim && !transient) this.#record(claim, reply);
      return reply;
    });
  }

  /** The checkout, if it is this holder's; an open one past `expires_at` is expired first. */
  async get(checkoutId: string): Promise<CheckoutReply> {
    return this.#serial(async () => {
      const record = this.#rows.get(checkoutId);
      if (!record) return missingCheckout();
      return { ok: true, status: 200, json: checkoutJson(await this.#expireIfDue(record)), replayed: false };
    });
  }

  /** Cancels an open checkout and releases its holds; canceling twice answers the same. */
  async cancel(checkoutId: string): Promise<CheckoutReply> {
    return this.#serial(async () => {
      const found = this.#rows.get(checkoutId);
      if (!found) return missingCheckout();
      const record = await this.#expireIfDue(found);
      if (record.status === "open" && !record.payment) await this.#settle(record, "canceled");
      else if (record.status !== "canceled") {
        return fail({
          code: "checkout_not_open",
          message: record.payment
            ? "This checkout is paid and being completed; it cannot be canceled."
            : `This checkout is ${record.status}; only an open checkout can be canceled.`,
        });
      }
      return { ok: true, status: 200, json: checkoutJson(this.#rows.get(checkoutId)!), replayed: false };
    });
  }

  /**
   * Completes a checkout exactly once: records the payment, turns the holds into stock
   * decrements, writes the order (D1), marks the checkout completed and clears the cart. A
   * completed checkout answers its order again, whatever payment reference the repeat carries
   * (the first one is kept). An expired or canceled checkout is completed too (the payment is
   * real): stock is taken from what is left, and lines it no longer covered are flagged oversold.
   */
  async complete(input: CompleteCheckoutInput): Promise<CheckoutReply> {
    return this.#serial(async () => {
      const record = this.#rows.get(input.checkoutId);
      if (!record) return missingCheckout();
      if (record.status === "completed" && record.order_id) {
        const order = await this.#orders.get(record.order_id);
        if (order) return { ok: true, status: 200, json: JSON.stringify(order), replayed: true };
      }
      const frozen = frozenCost(record.content);
      const expected = {
        total: frozen.total,
        currency: record.content.currency,
        taxAtPayment: frozen.tax_calculated_at === "payment",
      };
      const payment: Payment = record.payment ?? {
        reference: input.paymentReference,
        by: input.by,
        at: Date.now(),
        received: input.received,
        status: paymentStatus(expected, input.received),
      };
      if (!record.payment) {
        // Under tax mode stripe the payment's own tax is added to what was expected, so the line compares like with like.
        const shown = { ...expected, total: chargedCost(frozen, input.received).total };
        if (payment.status === "mismatch") logMismatch(record.id, shown, input.received, input.by);
        // Recorded (and a resume alarm armed) before anything leaves this object: the runtime
        // holds outgoing calls until these writes are durable, so if the stock commit happened,
        // a crash after it finds the payment here and the alarm finishes the completion.
        this.#rows.setPayment(record.id, payment);
        await this.#host.schedule(Date.now() + RESUME_MS);
      }
      const order = await this.#finish(record, payment);
      return { ok: true, status: 200, json: JSON.stringify(order), replayed: false };
    });
  }

  /** The rest of a completion, from the recorded payment: stock commit, order, status, cart. Each step is idempotent. */
  async #finish(record: CheckoutRecord, payment: Payment): Promise<Order> {
    const [oversold] = await Promise.all([
      this.#stock.commit(record.id, holdLines(record.content.lines)),
      this.#uses.commit(record.id, record.content.uses ?? [], await buyerKey(record.content.buyer?.email)),
    ]);
    const cost = chargedCost(frozenCost(record.content), payment.received);
    const order = await this.#orders.record({
      checkoutId: record.id,
      currency: record.content.currency,
      lines: record.content.lines,
      note: record.content.note,
      attributes: record.content.attributes,
      cost,
      buyer: record.content.buyer ?? null,
      shippingOption: record.content.shipping_option ?? null,
      // A payment recorded before payments were checked was taken as the total.
      received: payment.received ?? { amount_minor: cost.total, currency: record.content.currency },
      paymentStatus: payment.status ?? "paid",
      paymentReference: payment.reference,
      completedBy: payment.by,
      oversold,
      checkoutCreatedAt: record.created_at,
      createdAt: payment.at,
      emitEvents: eventsEnabled(this.#env),
    });
    if (eventsEnabled(this.#env)) await this.#sendEvents(order);
    this.#rows.complete(record.id, order.id, Date.now());
    // Bought: the holder may hold these variants again at once (a purchase is no hoarding).
    this.#windows.close(holdLines(record.content.lines).map((l) => l.variant_id));
    const holder = this.#rows.holder();
    if (holder) await this.#host.cart(holder).checkedOut();
    await this.#armAlarm();
    return order;
  }

  /**
   * Hands an order's events (written with it) to the queue, and has the alarm look at them after
   * the grace. A failed send never fails the completion: the alarm sends what is still overdue.
   */
  async #sendEvents(order: Order): Promise<void> {
    const events = await eventsOf(order.id, order.payment_status);
    try {
      await enqueue(
        this.#env,
        events.map((event) => ({ event_id: event.id, send: 0 })),
      );
    } catch (error) {
      logEvents("error", "order_event_send_failed", { order_id: order.id, message: String(error) });
    }
    this.#rows.checkEventsAt(order.id, Date.now() + REDRIVE_GRACE_MS);
  }

  /** Sends again the overdue events of orders due a look; each order looked at again until its events are done. */
  async #checkEvents(now: number): Promise<void> {
    for (const orderId of this.#rows.eventChecksDue(now)) {
      let next: number | null;
      try {
        next = await redriveOrderEvents(this.#env, orderId, now);
      } catch (error) {
        logEvents("error", "order_event_redrive_failed", { order_id: orderId, message: String(error) });
        next = now + REDRIVE_GRACE_MS;
      }
      if (next === null) this.#rows.eventChecksDone(orderId);
      else this.#rows.checkEventsAt(orderId, next);
    }
  }

  /** Every checkout this object holds (status, hold lines, order): what `orders -- check` reconciles. */
  async inventory(): Promise<
    { id: string; status: CheckoutStatus; order_id: string | null; lines: { variant_id: string; quantity: number }[] }[]
  > {
    return this.#rows
      .all()
      .map((r) => ({ id: r.id, status: r.status, order_id: r.order_id, lines: holdLines(r.content.lines) }));
  }

  /** Expires open checkouts that are due (releasing their holds), then re-arms for the next one. */
  async alarm(): Promise<void> {
    await this.#serial(async () => {
      const now = Date.now();
      // Completions a crash cut short (payment recorded, no order yet) are finished first.
      for (const record of this.#rows.paidUnfinished()) await this.#finish(record, record.payment!);
      for (const record of this.#rows.open()) await this.#expireIfDue(record, now);
      await this.#expireSessions(now);
      await this.#checkEvents(now);
      this.#rows.purgeSettled(now - SETTLED_KEPT_MS);
      this.#windows.purge(now);
      this.#rows.purgeAnswers(now - IDEMPOTENCY_TTL_MS);
      await this.#armAlarm();
    });
  }

  /**
   * A new checkout in steps, so each addition slots in where it belongs, and each is idempotent
   * under the checkout id (a crash anywhere is cured by trying again): read the cart and price it
   * (`#freeze`), refuse (the catalog, shipping, discounts, the hold rules: nothing is held and the
   * open checkout is untouched), reserve the discounts' uses and hold the units (all or none),
   * make the payment session, settle (the previous checkout canceled, the hold windows opened),
   * answer.
   */
  async #create(input: CreateCheckoutInput): Promise<CheckoutReply> {
    // A Stripe checkout without return_url never gets here: the route refuses it (400 parameter_missing).
    const now = Date.now();
    const open = this.#rows.open().filter((previous) => !previous.payment);
    const replaces = open.map((previous) => previous.id);
    // 1. Read the cart and price it; refuse what the catalog, shipping or discounts refuse.
    const frozen = await this.#freeze(input, replaces);
    if (!frozen.ok) return frozen.reply;
    const { content, storeIds, discountCode, uses, buyer } = frozen;
    const lines = holdLines(content.lines);
    // With Stripe a hold lasts at least a session's 31 minutes (hold-windows.ts holdRules).
    const windows =
      input.provider === "stripe"
        ? new HoldWindows(this.#ctx.storage.sql, holdRules(this.#env, "stripe"))
        : this.#windows;
    const cooling = new Map(
      windows
        .cooling(
          lines.map((l) => l.variant_id),
          now,
        )
        .map((c) => [c.variant_id, c]),
    );
    if (cooling.size > 0) {
      return unavailable(
        content.lines.flatMap((line) => {
          const until = cooling.get(line.variant_id)?.until;
          if (until === undefined) return [];
          return [{ id: line.id, code: "hold_cooldown" as const, cooldown_ends_at: new Date(until).toISOString() }];
        }),
      );
    }

    // 2. Reserve and hold, all or none. The checkout and its expiry alarm exist before its
    // reservations do (outgoing calls wait for these writes): a crash mid-way leaves an open
    // checkout whose alarm releases what was reserved and held.
    const id = `chk_${this.#ctx.id.toString()}${randomBase62(16)}`;
    const expiresAt = windows.expiryFor(
      lines.map((l) => l.variant_id),
      now,
    );
    content.uses = uses.map((d) => d.id);
    const record: CheckoutRecord = {
      id,
      status: "open",
      content,
      return_url: input.returnUrl,
      url:
        input.provider === "stripe"
          ? null
          : handoffUrl({ ...input.handoff, provider: input.provider, storeIds }, id, content.lines, {
              note: content.note,
              attributes: content.attributes,
              discountCode,
            }),
      created_at: now,
      expires_at: expiresAt,
      payment: null,
      order_id: null,
      session: null,
    };
    // The holder beside its first checkout, in the same implicit transaction: written before the
    // cart was read, it was a transaction (and a commit) of its own on every create.
    this.#rows.setHolder(input.holder);
    this.#rows.insert(record);
    await this.#armAlarm();
    const taken = await this.#reserveAndHold(record, uses, buyer, replaces, input.holder);
    if (!taken.ok) {
      // Refused: whatever was reserved or held went back; this attempt leaves no checkout, and
      // the open one still holds what it held.
      this.#rows.remove(id);
      await this.#armAlarm();
      return taken.refused;
    }

    // 3. The payment session once everything is held (contract 10.6); the open checkout is still as it was.
    if (input.provider === "stripe") {
      const opened = await this.#payments.open(this.#sessionRequest(record));
      if (!opened.ok) {
        // Nothing half-made: the new holds and uses go back and the checkout does not stay open.
        // A session the provider may have made unanswered is expired by the alarm (found by its key).
        await this.#giveBack(record);
        if (opened.kind === "unanswered") {
          this.#rows.setStatus(id, "canceled", Date.now());
          this.#rows.oweExpiry(id, null, Date.now() + EXPIRY_RETRY_MS, sessionEndsAt(record) + EXPIRY_GIVE_UP_MS);
        } else this.#rows.remove(id);
        await this.#armAlarm();
        return fail({
          code: "payment_provider_unavailable",
          message: "The payment provider did not make the payment session; nothing was held. Try again.",
        });
      }
      this.#rows.setSession(id, opened.session);
      record.session = opened.session;
      record.url = opened.session.url;
    }

    // 4. Settle: one open checkout per holder. A checkout already paid (its completion under way)
    // is never canceled under its payment.
    for (const previous of open) await this.#settle(previous, "canceled");
    windows.open(taken.held, now);
    return { ok: true, status: 201, json: checkoutJson(record), replayed: false };
  }

  /**
   * Reserves the counted discounts' uses, then holds the units (contract 10.3: all or none). A
   * refusal gives back what was taken and answers why; else the variants the hold took from
   * other shoppers (their hold windows open).
   */
  async #reserveAndHold(
    record: CheckoutRecord,
    uses: readonly Discount[],
    buyer: string | null,
    replaces: readonly string[],
    holder: string,
  ): Promise<{ ok: true; held: string[] } | { ok: false; refused: CheckoutReply }> {
    const { id, content, expires_at: expiresAt } = record;
    if (uses.length > 0) {
      const reserved = await this.#uses.reserve(id, uses, buyer, expiresAt + STOCK_GRACE_MS, replaces);
      if (!reserved.ok) {
        const typed = new Map(content.discount_codes_entered?.map((c) => [codeKey(c), c]) ?? []);
        const faults = reserved.refusals.map(({ discount_id, reason }): DiscountFault => {
          const code = uses.find((d) => d.id === discount_id)?.code ?? null;
          return { code: code === null ? null : (typed.get(codeKey(code)) ?? code), reason, discount_id };
        });
        return { ok: false, refused: costUnavailable({ discount_codes: faults }) };
      }
    }
    const held = await this.#stock.hold(id, holdLines(content.lines), expiresAt + STOCK_GRACE_MS, {
      owner: cartObjectId(this.#env, holder),
      replaces,
      maxUnits: this.#rules.maxUnits,
    });
    if (!held.ok) {
      await this.#uses.release(id, content.uses ?? []);
      const refused = new Map(held.refusals.map((r) => [r.variant_id, r]));
      const faults = content.lines.flatMap((line) => {
        const refusal = refused.get(line.variant_id);
        if (!refusal) return [];
        const { code, available_quantity, max_quantity } = refusal;
        return [{ id: line.id, code, available_quantity, ...(max_quantity !== undefined ? { max_quantity } : {}) }];
      });
      return { ok: false, refused: unavailable(faults) };
    }
    return { ok: true, held: held.held };
  }

  /** Gives back a checkout's holds and reserved uses (idempotent). */
  async #giveBack(record: CheckoutRecord): Promise<void> {
    await Promise.all([
      this.#stock.release(record.id, holdLines(record.content.lines)),
      this.#uses.release(record.id, record.content.uses ?? []),
    ]);
  }

  /**
   * The holder's cart re-priced at the live catalog and the live rules (contract 10.7) into frozen
   * lines and cost, or the reason it cannot be checked out. A variant the catalog calls
   * unavailable but live stock tracks is left to its hold: for a tracked variant the level
   * decides, not the flag the catalog was published with.
   */
  async #freeze(input: CreateCheckoutInput, replaces: readonly string[]): Promise<Frozen> {
    const cartReply = await this.#host.cart(input.holder).getCart({ tokenId: input.tokenId, liveStock: false });
    if (!cartReply.ok) {
      const { code, message } = cartReply.failure;
      return {
        ok: false,
        reply: fail({ code: code === "token_revoked" ? "token_revoked" : "catalog_unavailable", message }),
      };
    }
    const cart = JSON.parse(cartReply.cartJson) as Cart & {
      note?: string | null;
      attributes?: Record<string, string>;
      lines: (Cart["lines"][number] & { attributes?: Record<string, string> })[];
    };
    if (cart.lines.length === 0) {
      return {
        ok: false,
        reply: fail({ code: "cart_empty", message: "The cart is empty: add a line before checking out." }),
      };
    }
    try {
      const [meta, pointer] = await Promise.all([this.#catalog.currentMeta(), this.#rulesStore.pointer()]);
      if (!meta)
        return {
          ok: false,
          reply: fail({ code: "catalog_unavailable", message: "No catalog has been published yet." }),
        };
      const currency = (meta.currency ?? DEFAULT_CURRENCY) as Currency;
      const ids = [...new Set(cart.lines.map((l) => l.variant_id))];
      const [variants, live] = await Promise.all([
        this.#catalog.getVariants(meta.version, ids),
        this.#rulesStore.rules(pointer, currency),
        this.#stock.sync(meta.version, ids),
      ]);
      const rules = live?.rules ?? null;
      const flagged = ids.filter((id) => variants.get(id)?.available === false);
      const tracked = flagged.length > 0 ? await this.#stock.tracked(flagged) : new Set<string>();
      const faults: UnavailableLine[] = [];
      const lines: FrozenLine[] = [];
      const priced: PricingLine[] = [];
      for (const line of cart.lines) {
        const variant = variants.get(line.variant_id);
        if (!variant) faults.push({ id: line.id, code: "resource_missing" });
        else if (!variant.available && !tracked.has(variant.id))
          faults.push({ id: line.id, code: "sold_out", available_quantity: 0 });
        else {
          lines.push({
            id: line.id,
            variant_id: variant.id,
            handle: variant.product_handle,
            title: variant.product_title,
            variant_title: variant.title,
            quantity: line.quantity,
            unit_price_minor: variant.price_minor,
            attributes: line.attributes ?? {},
          });
          priced.push(pricingLine(line, variant));
        }
      }
      if (faults.length > 0) return { ok: false, reply: unavailable(faults) };

      // The cost, with what only the checkout knows: the buyer's own once_per_buyer uses (no
      // email: the checkout cannot tell, so none applies) and the automatic discounts used up.
      const candidates = countedCandidates(rules, cart);
      const buyer = await buyerKey(cart.buyer?.email);
      const once = candidates.filter((d) => d.once_per_buyer);
      const [usedByBuyer, exhausted] = await Promise.all([
        buyer === null ? once.map((d) => d.id) : this.#uses.usedBy(once, buyer, replaces),
        exhaustedAmong(
          this.#env.CATALOG,
          candidates.filter((d) => d.code === null && d.usage_limit !== null).map((d) => d.id),
        ),
      ]);
      const cost = priceCheckout(cart, priced, rules, currency, { now: Date.now(), exhausted, usedByBuyer });
      const refused = costFaults(cart, cost, usedByBuyer);
      if (refused) return { ok: false, reply: costUnavailable(refused) };
      const frozen = frozenFrom(cost);
      lines.forEach((line, i) => Object.assign(line, frozen.lines[i]));
      return {
        ok: true,
        storeIds: meta.variant_ids === "store",
        discountCode: cost.discount_codes.find((c) => c.applicable)?.code ?? null,
        uses: countedAmong(rules, new Set(cost.discounts.map((d) => d.id))),
        buyer,
        content: {
          lines,
          currency,
          note: typeof cart.note === "string" ? cart.note : null,
          attributes: cart.attributes ?? {},
          cost: frozen.cost,
          buyer: cart.buyer ?? null,
          shipping_option: cost.shipping_option ? { ...cost.shipping_option } : null,
          discount_codes_entered: cart.discount_codes.map((c) => c.code),
        },
      };
    } catch (error) {
      if (error instanceof CatalogError)
        return { ok: false, reply: fail({ code: "catalog_unavailable", message: error.message }) };
      throw error;
    }
  }

  /** The session request of a checkout, rebuilt the same from its record (a replay must send the same). */
  #sessionRequest(record: CheckoutRecord): SessionRequest {
    return {
      checkoutId: record.id,
      amounts: paymentAmounts(record.content),
      email: record.content.buyer?.email ?? null,
      returnUrl: record.return_url ?? "",
      expiresAt: sessionEndsAt(record),
    };
  }

  /**
   * Expires at the provider the sessions of checkouts that can no longer be paid, so a released
   * hold is never paid for: each owed expiry is tried, and tried again with backoff until the
   * provider confirms or the session's own end is an hour past.
   */
  async #expireSessions(now: number): Promise<void> {
    for (const owed of this.#rows.expiriesDue(now)) {
      const record = this.#rows.get(owed.checkout_id);
      const sessionId = owed.session_id ?? (record ? await this.#payments.recover(this.#sessionRequest(record)) : null);
      if (sessionId !== null && (await this.#payments.expire(sessionId))) {
        this.#rows.expiryDone(owed.checkout_id);
      } else if (now > owed.give_up_at) {
        this.#rows.expiryDone(owed.checkout_id);
        console.error(
          JSON.stringify({ level: "error", error: "payment_session_expiry_abandoned", checkout_id: owed.checkout_id }),
        );
      } else {
        const delay = Math.min(EXPIRY_RETRY_MS * 2 ** owed.attempts, EXPIRY_RETRY_MAX_MS);
        this.#rows.expiryRetry(owed.checkout_id, sessionId, now + delay);
      }
    }
  }

  /** Releases an open checkout's holds and gives it its final status. */
  async #settle(record: CheckoutRecord, status: "canceled" | "expired"): Promise<void> {
    await this.#giveBack(record);
    const now = Date.now();
    this.#rows.setStatus(record.id, status, now);
    // Owed, not awaited: the alarm expires the session right after this answer, and retries.
    if (record.session) {
      this.#rows.oweExpiry(record.id, record.session.id, now, Math.max(sessionEndsAt(record), now) + EXPIRY_GIVE_UP_MS);
      await this.#armAlarm();
    }
  }

  async #expireIfDue(record: CheckoutRecord, now = Date.now()): Promise<CheckoutRecord> {
    // A paid checkout is being completed: it never expires under its payment.
    if (record.status !== "open" || record.expires_at > now || record.payment) return record;
    await this.#settle(record, "expired");
    return this.#rows.get(record.id)!;
  }

  /** When the desk next needs its alarm (undefined: never; settled checkouts are looked at once they are 30 days old). */
  nextAlarm(): number | undefined {
    const due = this.#rows.alarmTimes();
    const resume = due.paidUnfinished ? Date.now() + RESUME_MS : undefined;
    const times = [resume, due.expiry, due.owed, due.eventCheck].filter((t) => t !== undefined);
    if (times.length > 0) return Math.min(...times);
    return due.any ? Date.now() + SETTLED_KEPT_MS : undefined;
  }

  async #armAlarm(): Promise<void> {
    await this.#host.schedule(this.nextAlarm());
  }

  /** Runs `operation` after every operation queued before it: one at a time, awaits included. */
  #serial<T>(operation: () => Promise<T>): Promise<T> {
    const run = this.#tail.then(operation, operation);
    this.#tail = run.catch(() => undefined);
    return run;
  }

  /** A recorded answer for this key (replayed), a refusal (reused), or undefined: run it. */
  #admit(claim: IdempotencyClaim): CheckoutReply | undefined {
    const stored = this.#rows.answerFor(claim.key);
    if (!stored) return undefined;
    if (stored.fingerprint !== claim.fingerprint) {
      return fail({
        code: "idempotency_key_reused",
        message: "This Idempotency-Key was used with a different request.",
      });
    }
    const answer = JSON.parse(stored.reply) as CheckoutReply | { ok: true; status: 201; checkout_id: string };
    if ("checkout_id" in answer) {
      // A success is kept as the checkout's id and shown as the checkout is now (kept 30 days).
      const record = this.#rows.get(answer.checkout_id);
      return record
        ? { ok: true, status: answer.status, json: checkoutJson(record), replayed: true }
        : missingCheckout();
    }
    return { ...answer, replayed: true }; // a refusal, or a success recorded whole by an earlier release
  }

  /**
   * Keeps what a replay needs: a refusal whole, a success as its checkout's id, never the
   * checkout's text, which can be 1.3 MB (issue 42, point 10: one copy per key for 24 h).
   */
  #record(claim: IdempotencyClaim, reply: CheckoutReply): void {
    const id = reply.ok ? /^\{"object":"checkout","id":"([^"]+)"/.exec(reply.json)?.[1] : undefined;
    this.#rows.recordAnswer(
      claim.key,
      claim.fingerprint,
      JSON.stringify(reply.ok && id ? { ok: true, status: reply.status, checkout_id: id } : reply),
      Date.now(),
    );
  }
}

/** One error-level line for a payment that moved another amount than the checkout's total (no secrets: ids and amounts). */
function logMismatch(
  checkoutId: string,
  expected: { total: number; currency: string },
  received: Received,
  by: CompletedBy,
): void {
  console.error(
    JSON.stringify({
      level: "error",
      error: "payment_mismatch",
      message: `Checkout ${checkoutId} paid ${fromMinor(received.amount_minor, received.currency).amount} ${received.currency}, not ${fromMinor(expected.total, expected.currency).amount} ${expected.currency}.`,
      checkout_id: checkoutId,
      expected_minor: expected.total,
      expected_currency: expected.currency,
      received_minor: received.amount_minor,
      received_currency: received.currency,
      completed_by: by,
    }),
  );
}

/** A cost that cannot be checked out as it is (contract 10.3, faults at checkout); nothing was held. */
function costUnavailable(faults: Pick<CheckoutFailure, "shipping" | "discount_codes">): CheckoutReply {
  const why = faults.shipping ? "see shipping" : "see discount_codes";
  return fail({
    code: "checkout_unavailable",
    message: `This cart cannot be checked out as it is: ${why}. Nothing was held.`,
    lines: [],
    ...faults,
  });
}

function unavailable(lines: UnavailableLine[]): CheckoutReply {
  return fail({
    code: "checkout_unavailable",
    message: "Some lines cannot be bought as they are: see lines. Nothing was held.",
    lines,
  });
}
