import { stockStore } from "../stock/store.ts";
import type { StockHolds } from "./stock-port.ts";

/**
 * Live stock as checkouts use it: the stock room's adapter (holds spread over the variants'
 * shards, all or none), each call idempotent by the checkout id as hold id.
 */
export function stockHolds(env: Env): StockHolds {
  const store = stockStore(env);
  return {
    async sync(version, variantIds) {
      await store.ensureSynced({ version }, variantIds);
    },
    async tracked(variantIds) {
      const levels = await store.levels(variantIds);
      return new Set([...levels.values()].filter((l) => l.tracked).map((l) => l.variant_id));
    },
    async hold(holdId, lines, expiresAt, request) {
      const held = await store.hold(holdId, lines, expiresAt, request);
      if (held.ok)
        return { ok: true, held: held.levels.filter((l) => l.tracked && l.policy === "deny").map((l) => l.variant_id) };
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
