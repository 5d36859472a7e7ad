import { DurableObject } from "cloudflare:workers";
import { CatalogStore, pointerTtlMs, type VariantRecord } from "../catalog/store.ts";
import { CatalogError } from "../catalog/errors.ts";
import { CART_TTL_MS, MAX_LINE_QUANTITY, MAX_LINES } from "./api.ts";
import { CartRows } from "./cart-rows.ts";
import { IdempotencyLedger } from "./idempotency.ts";
import { migrateFrom } from "./migrations.ts";
import { Revocations } from "./revocations.ts";
import type { CartFailure, CartJson, CartReply, IdempotencyClaim, WriteRate } from "./failure.ts";
import { WriteCounts } from "./write-rate.ts";
import { canonicalAttributes, cartIdOf, cartJson, EMPTY_HEAD, NO_ATTRIBUTES, NO_CODES } from "./view.ts";
import { attributeBytes, overAttributeBudget, textBytes } from "./attribute-bytes.ts";
import { costOf, type PricingContext, renderedCostOf } from "./cost.ts";
import type { Buyer } from "../pricing/index.ts";
import { codeKey } from "../rules/codes.ts";
import type { Rules } from "../rules/schema.ts";
import { RulesStore } from "../rules/store.ts";
import { exhaustedAmong, limitedAmong } from "../discounts/usage-marks.ts";
import { type Currency, DEFAULT_CURRENCY } from "../money.ts";
import type { VersionMeta } from "../catalog/layout.ts";
import type { StockLevel } from "../stock/api.ts";
import { type StockStore, stockStore } from "../stock/store.ts";

export { CART_TTL_MS };

/** Every call names the token it acts for, so a revoked token is refused here, at once. */
interface Caller {
  tokenId: string;
  idempotency?: IdempotencyClaim;
}

export interface AddLineInput extends Caller {
  variantId: string;
  quantity: number;
  handle?: string;
  variantTitle?: string;
  /** Line properties as validated (`AttributesSchema`); absent or `{}` for none. */
  attributes?: Record<string, string>;
}

export interface UpdateCartInput extends Caller {
  /** The new note; `null` clears it; absent leaves it. */
  note?: string | null;
  /** The new set of attributes (replacing the old one); `null` clears it; absent leaves it. */
  attributes?: Record<string, string> | null;
  /** The buyer as validated (`BuyerSchema`); `null` clears it; absent leaves it. */
  buyer?: Buyer | null;
  /** A rate id the cart must offer; `null`: the cheapest; absent leaves it. */
  shippingOption?: string | null;
  /** The entered codes (replacing the old ones), as validated; absent leaves them. */
  discountCodes?: readonly string[];
}

export interface UpdateLineInput extends Caller {
  lineId: string;
  quantity: number;
}

export interface RemoveLineInput extends Caller {
  lineId: string;
}

/** What an operation produced: `record: false` for transient failures a retry may cure. */
type Outcome = { reply: CartReply; record: boolean };

/**
 * The catalog adapter throws `catalog_unavailable` when a version vanishes under a reader;
 * thrown here it would cross RPC as a bare Error, so it becomes a (not recorded) failure.
 */
async function guarded(operation: () => Promise<Outcome>): Promise<Outcome> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof CatalogError && error.code === "catalog_unavailable") {
      return fail("catalog_unavailable", error.message, undefined, false);
    }
    throw error;
  }
}

function rateLimited(rate: WriteRate): CartReply {
  return {
    ...fail("rate_limited", "Too many cart writes for this token. Retry after the Retry-After delay.", undefined, false)
      .reply,
    rate,
  };
}

function revoked(): Outcome {
  return fail("token_revoked", "The token has been revoked.", undefined, false);
}

/** A refusal the cart's own limits made (recorded under an Idempotency-Key, like every refusal). */
function refuse(failure: CartFailure): Outcome {
  return { reply: { ok: false, failure, replayed: false }, record: true };
}

function fail(code: CartFailure["code"], message: string, param?: string, record = true): Outcome {
  return { reply: { ok: false, failure: { code, message, ...(param ? { param } : {}) }, replayed: false }, record };
}

/**
 * The codes as the cart keeps them: trimmed, as typed, each once (the first spelling of codes
 * that differ only by case or width).
 */
function enteredCodes(codes: readonly string[]): string[] {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const code of codes) {
    const key = codeKey(code);
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push(code.trim());
  }
  return kept;
}

/** More units asked for than live stock has left (409). */
function insufficient(left: number, wanted: number): Outcome {
  return {
    reply: {
      ok: false,
      failure: {
        code: "insufficient_stock",
        message: `Only ${left} left; the line would hold ${wanted}.`,
        param: "quantity",
        available_quantity: left,
      },
      replayed: false,
    },
    record: true,
  };
}

/**
 * One token holder's cart: a SQLite Durable Object named from the token record's `holder`.
 *
 * Why a Durable Object: every write to one cart runs here, one at a time, so 100 concurrent
 * adds cannot lose or double a unit, and the limits (999 per line, 250 lines) are checked
 * against the state they change. The object also keeps the holder's revoked token ids, which
 * is how revocation reaches the very next cart request even while KV still serves the old
 * token record, and the holder's Idempotency-Keys.
 *
 * Every method returns a `CartReply` (data, not exceptions: errors crossing RPC lose their class).
 */
export class Cart extends DurableObject<Env> {
  readonly #rows: CartRows;
  readonly #revocations: Revocations;
  readonly #ledger: IdempotencyLedger;
  readonly #catalog: CatalogStore;
  readonly #writeCounts = new WriteCounts();
  readonly #stock: StockStore;
  /** This cart's object id: the owner of its holder's checkout holds, whose units count as this cart's own. */
  readonly #owner: string;
  /** The live catalog's meta as last read (whether stock is synced for it is the stock store's concern). */
  #meta: VersionMeta | null = null;
  /** The live catalog's currency as last read: an empty cart's subtotal is in it. */
  #currency: Currency = DEFAULT_CURRENCY;
  readonly #rulesStore: RulesStore;
  /** The live rules as last read (null: none, or none that fit the currency). */
  #rules: Rules | null = null;
  /** The limited discounts this cart could take that are marked used up, as last read. */
  #exhausted: readonly string[] = [];
  /** Whether this instance has armed the expiry alarm (an alarm that is due re-arms itself). */
  #alarmArmed = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const sql = ctx.storage.sql;
    this.#rows = new CartRows(sql);
    this.#revocations = new Revocations(sql);
    this.#ledger = new IdempotencyLedger(sql);
    this.#catalog = new CatalogStore(env.CATALOG, { pointerTtlMs: pointerTtlMs(env.CATALOG_POINTER_TTL_MS) });
    this.#rulesStore = new RulesStore(env.CATALOG, { pointerTtlMs: pointerTtlMs(env.CATALOG_POINTER_TTL_MS) });
    this.#stock = stockStore(env);
    this.#owner = ctx.id.toString();
    void ctx.blockConcurrencyWhile(async () => {
      // A new cart's tables were just created: nothing to read back.
      if (migrateFrom(sql) === 0) {
        this.#rows.startEmpty();
        this.#revocations.startEmpty();
      }
    });
  }

  /**
   * The cart, re-priced against the current catalog if a publish happened since the last call.
   * `liveStock: false` skips re-reading its tracked lines' stock: a checkout reads the lines to
   * hold them, and its hold reads the stock itself.
   */
  async getCart(caller: Caller & { liveStock?: boolean }): Promise<CartReply> {
    if (this.#revocations.has(caller.tokenId)) return revoked().reply;
    this.#expireIfDue(Date.now());
    return (await this.#current(caller.liveStock !== false)).reply;
  }

  /** The cart as a read shows it: re-priced at the live catalog, tracked lines at live stock (unless `liveStock` is false). */
  #current(liveStock: boolean): Promise<Outcome> {
    return guarded(async () => {
      const version = await this.#liveVersion();
      if (version) await this.#reprice(version);
      // A line whose variant stopped being tracked takes the catalog's availability again.
      if (liveStock && (await this.#refreshStock()) && version) await this.#reprice(version);
      return { reply: { ok: true, cartJson: this.#view(), replayed: false }, record: false };
    });
  }

  /** Adds units of a variant; an existing line for that variant grows instead of a new line. */
  async addLine(input: AddLineInput): Promise<CartReply> {
    return this.#write(input, async () => {
      const version = await this.#liveVersion();
      if (!version) return fail("catalog_unavailable", "No catalog has been published yet.", undefined, false);
      // A variant already on a tracked line is read from its Stock object at once, beside the catalog.
      const early = this.#rows.isTracked(input.variantId) ? this.#level(input.variantId) : undefined;
      early?.catch(() => undefined); // awaited below, or not needed (the add is refused first)
      const [variant, overlay] = await Promise.all([
        this.#catalog.getVariant(version, input.variantId),
        this.#catalog.stockOverlay(),
        this.#reprice(version),
      ]);
      if (!variant) return fail("resource_missing", `No variant ${input.variantId}.`, "variant_id");
      if (input.handle !== undefined && input.handle !== variant.product_handle) {
        return fail(
          "parameter_invalid",
          `Variant ${variant.id} belongs to ${variant.product_handle}, not ${JSON.stringify(input.handle)}.`,
          "handle",
        );
      }
      if (input.variantTitle !== undefined && input.variantTitle !== variant.title) {
        return fail(
          "parameter_invalid",
          `Variant ${variant.id} is ${JSON.stringify(variant.title)}, not ${JSON.stringify(input.variantTitle)}.`,
          "variant_title",
        );
      }
      // A tracked variant (by the catalog, or by the operator: the overlay names those): the Stock
      // object decides (section 9.3), not the catalog's flag.
      const tracked = variant.tracked || overlay.t?.includes(variant.id) === true;
      const level = tracked || early ? await (early ?? this.#level(variant.id)) : null;
      if (level?.tracked) {
        if (!level.in_stock) return fail("sold_out", "Sold out", "variant_id");
      } else if (!variant.available) return fail("sold_out", "Sold out", "variant_id");
      return this.#applyAdd(variant, version, input.quantity, canonicalAttributes(input.attributes), level);
    });
  }

  /**
   * Sets the cart's note and/or attributes (contract 9.2), buyer, shipping option and codes
   * (10.2-10.4); a field not given is left as it is. A shipping option the cart does not offer
   * (with the buyer this request sets) changes nothing: 400.
   */
  async updateCart(input: UpdateCartInput): Promise<CartReply> {
    return this.#write(input, async () => {
      await this.#repriceIfPublished();
      const attributes = input.attributes === undefined ? undefined : canonicalAttributes(input.attributes);
      const stored = this.#rows.times();
      if (input.note || attributes) {
        const before = textBytes(stored?.note) + attributeBytes(stored?.attributes ?? NO_ATTRIBUTES);
        const after =
          textBytes(input.note === undefined ? stored?.note : input.note) +
          attributeBytes(attributes ?? stored?.attributes ?? NO_ATTRIBUTES);
        const over = overAttributeBudget(
          this.#rows.attributeBytes() - before + after,
          attributes ? "attributes" : "note",
        );
        if (over) return refuse(over);
      }
      const head = { ...(stored ?? EMPTY_HEAD) };
      if (input.buyer !== undefined) head.buyer = input.buyer === null ? null : JSON.stringify(input.buyer);
      if (input.discountCodes !== undefined) {
        head.discount_codes = JSON.stringify(enteredCodes(input.discountCodes));
        await this.#readMarks(head.discount_codes);
      }
      if (input.shippingOption !== undefined) {
        head.shipping_option = input.shippingOption;
        const offered = costOf(head, this.#rows.lines(), this.#pricing()).shipping_options;
        if (input.shippingOption !== null && !offered.some((o) => o.id === input.shippingOption))
          return fail(
            "parameter_invalid",
            offered.length === 0
              ? `No shipping option is offered for this cart${head.buyer === null ? " until a buyer with a country is set" : ""}, so ${JSON.stringify(input.shippingOption)} cannot be chosen.`
              : `No shipping option ${JSON.stringify(input.shippingOption)} for this cart: it offers ${offered.map((o) => o.id).join(", ")}.`,
            "shipping_option",
          );
      }
      const touched = this.#touched();
      this.#rows.setDetails(input.note, attributes);
      this.#rows.setPricing(head.buyer, head.shipping_option, head.discount_codes);
      return { ...touched, reply: { ok: true, cartJson: this.#view(), replayed: false } };
    });
  }

  /** Sets a line's quantity; 0 removes it. A sold-out line can shrink but not grow. */
  async updateLine(input: UpdateLineInput): Promise<CartReply> {
    return this.#write(input, async () => {
      await this.#repriceIfPublished();
      const line = this.#rows.line(input.lineId);
      if (!line) return fail("resource_missing", `No line ${input.lineId} in this cart.`, "line_id");
      if (input.quantity === 0) {
        this.#rows.removeLine(input.lineId);
      } else {
        if (line.available !== 1 && input.quantity > line.quantity) return fail("sold_out", "Sold out", "line_id");
        if (line.tracked === 1 && input.quantity > line.quantity) {
          const level = await this.#level(line.variant_id);
          const current = this.#rows.line(input.lineId);
          if (!current) return fail("resource_missing", `No line ${input.lineId} in this cart.`, "line_id");
          if (level.tracked && !level.in_stock) return fail("sold_out", "Sold out", "line_id");
          // Other lines of the variant (other line attributes) draw on the same stock.
          const wanted = this.#rows.quantityOfVariant(line.variant_id) - current.quantity + input.quantity;
          if (level.tracked && level.policy === "deny" && wanted > level.available_quantity)
            return insufficient(level.available_quantity, wanted);
          this.#rows.setQuantity(input.lineId, input.quantity);
          this.#rows.applyStock(new Map([[level.variant_id, level]]));
          return this.#touched();
        }
        this.#rows.setQuantity(input.lineId, input.quantity);
      }
      return this.#touched();
    });
  }

  /** Removes one line. */
  async removeLine(input: RemoveLineInput): Promise<CartReply> {
    return this.#write(input, async () => {
      await this.#repriceIfPublished();
      if (!this.#rows.line(input.lineId))
        return fail("resource_missing", `No line ${input.lineId} in this cart.`, "line_id");
      this.#rows.removeLine(input.lineId);
      return this.#touched();
    });
  }

  /** Removes every line, the note and the attributes; the cart itself (id, created_at) stays. */
  async clear(caller: Caller): Promise<CartReply> {
    return this.#write(caller, async () => {
      await this.#liveVersion(); // the empty cart's subtotal is in the catalog's currency
      this.#rows.removeAllLines();
      this.#touched();
      this.#forgetDetails();
      return { reply: { ok: true, cartJson: this.#view(), replayed: false }, record: true };
    });
  }

  /**
   * Refuses `tokenId` from now on. Called by the operator surface before the KV record is
   * marked, so the refusal holds on the next request even where KV still has the old record.
   */
  async revokeToken(tokenId: string): Promise<void> {
    this.#revocations.add(tokenId, Date.now());
  }

  /**
   * Empties the cart after its checkout became an order. Called by the holder's checkouts (a
   * webhook or the operator completed one), so no token is involved; calling it again is harmless.
   */
  async checkedOut(): Promise<void> {
    this.#expireIfDue(Date.now());
    if (this.#rows.lineCount() === 0 && this.#rows.isBare()) return;
    this.#rows.removeAllLines();
    this.#touched();
    // Bought: the cart starts again empty, its note, attributes, buyer and codes too (as DELETE /cart leaves it).
    this.#forgetDetails();
  }

  /** Clears the note, the attributes, the buyer, the shipping option and the codes of the cart row `touch` made. */
  #forgetDetails(): void {
    this.#rows.setDetails(null, NO_ATTRIBUTES);
    this.#rows.setPricing(null, null, NO_CODES);
  }

  /** Whether `tokenId` was revoked: lets non-cart surfaces (checkout) refuse at once too. */
  async isRevoked(tokenId: string): Promise<boolean> {
    return this.#revocations.has(tokenId);
  }

  /**
   * Expiry: 30 days after the last write the lines and the cart go. Early wake-ups re-arm. The
   * object's one alarm is shared with what else it keeps (`sharedAlarm`: the holder's checkouts).
   */
  override async alarm(): Promise<void> {
    // Read the rows afresh: the alarm is rare, and it decides whether to delete them.
    this.#rows.reload();
    const now = Date.now();
    const times = this.#rows.times();
    if (!times || times.expires_at <= now) {
      this.#expireIfDue(now);
      this.#ledger.purge(now);
    }
    await this.sharedAlarm();
    await this.armAlarm();
  }

  /**
   * When what else this object keeps next needs the alarm (undefined: never). The cart keeps
   * nothing else; the object the Worker binds keeps its holder's checkouts too
   * (src/checkout/cart-host.ts), without this room knowing them.
   */
  protected sharedAlarmAt(): number | undefined {
    return undefined;
  }

  /** What else this object keeps runs its due work (the object re-arms after it). */
  protected async sharedAlarm(): Promise<void> {}

  /**
   * Arms the one alarm at the earliest of the cart's expiry and `shared` (what else this object
   * keeps next needs: asked when not given). An alarm that fires early does its due work and re-arms.
   */
  protected async armAlarm(shared = this.sharedAlarmAt()): Promise<void> {
    const expiry = this.#rows.times()?.expires_at;
    const next = Math.min(expiry ?? Number.POSITIVE_INFINITY, shared ?? Number.POSITIVE_INFINITY);
    // Armed for the cart only while the alarm is at or before its expiry.
    this.#alarmArmed = expiry !== undefined;
    if (Number.isFinite(next)) await this.ctx.storage.setAlarm(next);
  }

  /**
   * The frame of every write: refuse revoked tokens, expire a stale cart, then resolve the
   * Idempotency-Key (replay, 422 for a different request, 409 while the first still runs) before
   * running `operation` and recording its reply under the key.
   */
  async #write(caller: Caller, operation: () => Promise<Outcome>): Promise<CartReply> {
    if (this.#revocations.has(caller.tokenId)) return revoked().reply;
    const now = Date.now();
    this.#expireIfDue(now);
    const claim = caller.idempotency;
    if (!claim) {
      const rate = await this.#countWrite(caller.tokenId, now);
      if (!rate.allowed) return rateLimited(rate.rate);
      return { ...(await guarded(operation)).reply, rate: rate.rate };
    }

    const admission = this.#ledger.admit(claim, now);
    // Answers that do no work do not count against the write limit: a replay above all, so a
    // client retrying one request under its key can never be refused for retrying.
    const peek = () => this.#writeCounts.peek(caller.tokenId, now);
    switch (admission.kind) {
      case "replay": {
        // A success answers the cart as it is now (nothing is applied again); a refusal as it was.
        const { answer } = admission;
        // The catalog's currency, once per instance (an empty cart's subtotal is in it).
        if (answer.ok && !this.#meta) await this.#liveVersion().catch(() => undefined);
        const reply: CartReply = answer.ok
          ? { ok: true, cartJson: this.#view(), replayed: true } // as stored; the next read re-prices
          : { ok: false, failure: answer.failure, replayed: true };
        return { ...reply, replayed: true, rate: peek() };
      }
      case "reused":
        return {
          ...fail("idempotency_key_reused", "This Idempotency-Key was used with a different request.", undefined, false)
            .reply,
          rate: peek(),
        };
      case "in_use":
        return {
          ...fail(
            "idempotency_key_in_use",
            "A request with this Idempotency-Key is still running. Retry later.",
            undefined,
            false,
          ).reply,
          rate: peek(),
        };
      case "run":
        break;
    }
    try {
      const rate = await this.#countWrite(caller.tokenId, now);
      if (!rate.allowed) return rateLimited(rate.rate);
      const outcome = await guarded(operation);
      if (outcome.record) this.#ledger.record(claim, outcome.reply, Date.now());
      return { ...outcome.reply, rate: rate.rate };
    } finally {
      this.#ledger.release(claim);
    }
  }

  /**
   * One write of `tokenId` against the limit of 120 a minute: the Workers Rate Limiting binding
   * decides (keyed by the token id, never the token), and this object's own count says how much
   * is left. Called here rather than at the edge so that only writes that do work are counted.
   */
  async #countWrite(tokenId: string, now: number): Promise<{ allowed: boolean; rate: WriteRate }> {
    const { success } = await this.env.CART_WRITE_LIMITER.limit({ key: tokenId });
    return { allowed: success, rate: this.#writeCounts.count(tokenId, now, success) };
  }

  /**
   * The synchronous part of an add: no await between reading the line and writing it, so the
   * stock check (`level`, read just before) holds against the cart as it is written. A variant may
   * sit on several lines (one per set of line attributes): stock covers their sum.
   */
  #applyAdd(
    variant: VariantRecord,
    version: string,
    quantity: number,
    attributes: string,
    level: StockLevel | null,
  ): Outcome {
    const existing = this.#rows.lineFor(variant.id, attributes);
    const total = (existing?.quantity ?? 0) + quantity;
    if (existing && total > MAX_LINE_QUANTITY) {
      return fail(
        "quantity_exceeded",
        `A line holds at most ${MAX_LINE_QUANTITY} units; this one would hold ${total}.`,
        "quantity",
      );
    }
    if (!existing && this.#rows.lineCount() >= MAX_LINES)
      return fail("cart_full", `A cart holds at most ${MAX_LINES} lines.`, "variant_id");
    if (!existing && attributes !== NO_ATTRIBUTES) {
      const over = overAttributeBudget(this.#rows.attributeBytes() + attributeBytes(attributes), "attributes");
      if (over) return refuse(over);
    }
    const inCart = this.#rows.quantityOfVariant(variant.id) + quantity;
    if (level?.tracked && level.policy === "deny" && inCart > level.available_quantity)
      return insufficient(level.available_quantity, inCart);
    const tracked = level?.tracked === true;
    if (existing) this.#rows.growLine(existing.id, variant, version, total, tracked);
    else this.#rows.insertLine(variant, version, quantity, attributes, tracked);
    if (level) this.#rows.applyStock(new Map([[level.variant_id, level]]));
    return this.#touched();
  }

  /**
   * One variant's live level as this cart's holder sees it (the units its own checkout holds are
   * its own), the live version's published levels written first.
   */
  async #level(variantId: string): Promise<StockLevel> {
    if (this.#meta) await this.#stock.ensureSynced(this.#meta, [variantId]);
    return this.#stock.level(variantId, this.#owner);
  }

  /**
   * Live stock on the tracked lines, the catalog's and the operator's (one read per shard they
   * live in), for a cart read; true when a line's variant is no longer tracked (re-price it).
   */
  async #refreshStock(): Promise<boolean> {
    const overlay = await this.#catalog.stockOverlay();
    const tracked = this.#rows.trackedVariants(overlay.t ?? []);
    if (tracked.length === 0) return false;
    if (this.#meta) await this.#stock.ensureSynced(this.#meta, tracked);
    const levels = await this.#stock.levels(tracked, this.#owner);
    return this.#rows.applyStock(levels);
  }

  /**
   * The live catalog version (null before any publish), noting the catalog's currency and the
   * live rules (compiled for that currency), which every answer's cost is priced with. The two
   * pointers are read side by side; each within the catalog's freshness bound.
   */
  async #liveVersion(): Promise<string | null> {
    const [meta, pointer] = await Promise.all([this.#catalog.currentMeta(), this.#rulesStore.pointer()]);
    this.#meta = meta;
    if (meta) this.#currency = meta.currency ?? DEFAULT_CURRENCY;
    this.#rules = meta ? ((await this.#rulesStore.rules(pointer, this.#currency))?.rules ?? null) : null;
    await this.#readMarks(this.#rows.times()?.discount_codes);
    return meta?.version ?? null;
  }

  /** Reads the used-up marks of the limited discounts the cart could take (none when the rules limit none). */
  async #readMarks(codes: string | undefined): Promise<void> {
    const limited = limitedAmong(this.#rules, codes === undefined ? [] : (JSON.parse(codes) as string[]));
    this.#exhausted = limited.length === 0 ? [] : await exhaustedAmong(this.env.CATALOG, limited);
  }

  /** What the cost is priced with besides the rows: the rules last read, the catalog's currency, now. */
  #pricing(): PricingContext {
    return { rules: this.#rules, currency: this.#currency, now: Date.now(), exhausted: this.#exhausted };
  }

  async #repriceIfPublished(): Promise<void> {
    const version = await this.#liveVersion();
    if (version) await this.#reprice(version);
  }

  /**
   * Re-prices lines priced under another catalog version. Only the lines read before the await
   * are updated, so a line added meanwhile (already at `version`) is never marked missing.
   * A variant gone or sold out stays in the cart with `available: false`.
   */
  async #reprice(version: string): Promise<void> {
    const stale = this.#rows.stalePricing(version);
    if (stale.length === 0) return;
    const found = await this.#catalog.getVariants(version, stale);
    this.#rows.applyPricing(version, stale, found);
  }

  /**
   * Marks a successful write: creates the cart row if needed, pushes expiry 30 days out. The
   * alarm is armed once, not on every write: an alarm that fires before `expires_at` re-arms
   * itself for the latest one (see `alarm`), which saves a storage call per write. After an
   * eviction the first write arms it again.
   */
  #touched(): Outcome {
    const now = Date.now();
    const expiresAt = now + CART_TTL_MS;
    this.#rows.touch(now, expiresAt);
    if (!this.#alarmArmed) void this.armAlarm();
    return { reply: { ok: true, cartJson: this.#view(), replayed: false }, record: true };
  }

  /** Deletes the cart and its lines once `expires_at` has passed, so an expired cart reads empty. */
  #expireIfDue(now: number): void {
    const times = this.#rows.times();
    if (times && times.expires_at <= now) this.#rows.deleteCart();
  }

  /**
   * The cart as the API shows it, as JSON text (see `CartReply`); a cart never written reads as
   * empty, expiring 30 days from now.
   */
  #view(): CartJson {
    const now = Date.now();
    const times = this.#rows.times() ?? {
      ...EMPTY_HEAD,
      created_at: now,
      updated_at: now,
      expires_at: now + CART_TTL_MS,
    };
    const rows = this.#rows.lines();
    return cartJson(cartIdOf(this.ctx.id), times, rows, renderedCostOf(times, rows, this.#pricing()), this.#currency);
  }
}
