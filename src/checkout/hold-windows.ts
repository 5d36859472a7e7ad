/**
 * Holds cannot be hoarded (contract 9.4 [revised, turn 5]; docs/decisions/0012): how long a
 * holder may hold a variant, how long it then waits, and how many units it may hold. The numbers
 * come from the operator's settings; the clock of each holder's variants lives in its checkout
 * object (`HoldWindows`), the single writer of that holder's checkouts.
 */

import { type PaymentProvider, STRIPE_MAX_HOLD_SECONDS, STRIPE_MIN_HOLD_SECONDS } from "../payment/provider.ts";

/** CHECKOUT_HOLD_SECONDS when unset or out of range (60 s to 7 days). */
export const DEFAULT_HOLD_SECONDS = 900;
/** CHECKOUT_HOLD_COOLDOWN_SECONDS when unset or out of range (0 to 1 day). */
export const DEFAULT_COOLDOWN_SECONDS = 300;
/** CHECKOUT_MAX_UNITS_PER_VARIANT when unset or out of range (1 to 999, a cart line's most). */
export const DEFAULT_MAX_UNITS_PER_VARIANT = 10;

/** A whole number setting within [min, max], else `fallback`. */
function setting(value: unknown, min: number, max: number, fallback: number): number {
  const n = typeof value === "string" && /^\d{1,7}$/.test(value.trim()) ? Number(value) : Number.NaN;
  return Number.isInteger(n) && n >= min && n <= max ? n : fallback;
}

/** How a holder may hold, from the operator's settings. */
export interface HoldRules {
  /** How long a holder's hold on a variant lasts from its first hold, however often re-created. */
  holdMs: number;
  /** How long after that the same holder cannot hold the variant again. */
  cooldownMs: number;
  /** The most units of one variant a holder may hold. */
  maxUnits: number;
}

/**
 * The rules of `env`'s settings. With `provider` Stripe a hold lasts within a Checkout Session's
 * own limits, 31 minutes (30 and a minute for clocks and the request) to 24 hours (contract 10.6).
 */
export function holdRules(
  env: {
    CHECKOUT_HOLD_SECONDS?: string;
    CHECKOUT_HOLD_COOLDOWN_SECONDS?: string;
    CHECKOUT_MAX_UNITS_PER_VARIANT?: string;
  },
  provider: PaymentProvider = null,
): HoldRules {
  const holdSeconds = setting(env.CHECKOUT_HOLD_SECONDS, 60, 7 * 24 * 3600, DEFAULT_HOLD_SECONDS);
  return {
    holdMs:
      (provider === "stripe"
        ? Math.min(Math.max(holdSeconds, STRIPE_MIN_HOLD_SECONDS), STRIPE_MAX_HOLD_SECONDS)
        : holdSeconds) * 1000,
    cooldownMs: setting(env.CHECKOUT_HOLD_COOLDOWN_SECONDS, 0, 24 * 3600, DEFAULT_COOLDOWN_SECONDS) * 1000,
    maxUnits: setting(env.CHECKOUT_MAX_UNITS_PER_VARIANT, 1, 999, DEFAULT_MAX_UNITS_PER_VARIANT),
  };
}

/** A variant the holder may not hold now: its hold ended at `ends_at`, the cool-down runs until `until`. */
export interface CoolingVariant {
  variant_id: string;
  until: number;
}

/**
 * One holder's hold windows, a row per variant it held: `[started_at, ends_at)` is the window its
 * holds of that variant live in (ends_at = the first hold + holdMs), and `[ends_at, ends_at +
 * cooldownMs)` the cool-down in which it may not hold it again. A checkout re-created, or
 * canceled and made again, inside the window keeps the window's end; a window whose cool-down
 * is over is forgotten, and a purchase (completion) ends its variants' windows with no cool-down.
 */
export class HoldWindows {
  readonly #sql: SqlStorage;
  readonly #rules: HoldRules;

  constructor(sql: SqlStorage, rules: HoldRules) {
    this.#sql = sql;
    this.#rules = rules;
  }

  #ends(variantId: string): number | undefined {
    return this.#sql
      .exec<{ ends_at: number }>("SELECT ends_at FROM hold_windows WHERE variant_id = ?", variantId)
      .toArray()[0]?.ends_at;
  }

  /** The variants of `variantIds` in their cool-down at `now`: refused before anything is held. */
  cooling(variantIds: readonly string[], now: number): CoolingVariant[] {
    return variantIds.flatMap((variant_id) => {
      const ends = this.#ends(variant_id);
      if (ends === undefined || now < ends || now >= ends + this.#rules.cooldownMs) return [];
      return [{ variant_id, until: ends + this.#rules.cooldownMs }];
    });
  }

  /** When a checkout holding `variantIds` made at `now` expires: the earliest end of their running windows, else a full hold. */
  expiryFor(variantIds: readonly string[], now: number): number {
    let at = now + this.#rules.holdMs;
    for (const id of variantIds) {
      const ends = this.#ends(id);
      if (ends !== undefined && now < ends) at = Math.min(at, ends);
    }
    return at;
  }

  /** Opens a window at `now` for each of `variantIds` that has no running one (they were just held). */
  open(variantIds: readonly string[], now: number): void {
    for (const id of variantIds) {
      const ends = this.#ends(id);
      if (ends !== undefined && now < ends) continue;
      this.#sql.exec(
        `INSERT INTO hold_windows (variant_id, started_at, ends_at) VALUES (?, ?, ?)
         ON CONFLICT (variant_id) DO UPDATE SET started_at = excluded.started_at, ends_at = excluded.ends_at`,
        id,
        now,
        now + this.#rules.holdMs,
      );
    }
  }

  /** Ends the windows of `variantIds` with no cool-down: the holder bought them. */
  close(variantIds: readonly string[]): void {
    for (const id of variantIds) this.#sql.exec("DELETE FROM hold_windows WHERE variant_id = ?", id);
  }

  /** Forgets windows whose cool-down ended before `now`. */
  purge(now: number): void {
    this.#sql.exec("DELETE FROM hold_windows WHERE ends_at + ? <= ?", this.#rules.cooldownMs, now);
  }
}
