import { stockStore } from "../stock/store.ts";
import type { StockHolds } from "./stock-port.ts";

/**
 * Live stock as checkouts use it: the stock room's adapter (holds spread over the variants'
 * shards, all or none), each call idempotent by the checkout id as hold id.
 */
export function stockHolds(env: Env): StockHolds {
  const store = stockStore(env);
  return {
    async hold(holdId, lines, expiresAt) {
      const held = await store.hold(holdId, lines, expiresAt);
      if (held.ok) return { ok: true };
      // A closed hold id is never reused: each checkout attempt has a new id.
      if (held.code === "hold_closed") throw new Error(held.message);
      return { ok: false, refusals: held.refusals };
    },
    async release(holdId, lines) {
      await store.release(
        holdId,
        lines.map((l) => l.variant_id),
      );
    },
    async commit(holdId, lines) {
      const committed = await store.commit(holdId, lines);
      return new Set(committed.lines.filter((l) => l.oversold).map((l) => l.variant_id));
    },
  };
}
