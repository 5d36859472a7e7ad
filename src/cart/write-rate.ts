import type { WriteRate } from "./failure.ts";

/** The contract's cart write limit: 120 writes per 60 s per token (wrangler.toml's CART_WRITE_LIMITER). */
export const WRITE_LIMIT = 120;
export const WRITE_WINDOW_SECONDS = 60;

/**
 * The cart's own count of each token's writes in the current fixed window, kept in memory by the
 * holder's cart object (every write of a token passes through it, one at a time). The Workers Rate
 * Limiting binding decides; this count only says how much is left, for the `RateLimit` header a
 * browser backs off by. Lost on eviction (an idle cart), which only ever under-counts.
 */
export class WriteCounts {
  readonly #windows = new Map<string, { start: number; used: number }>();

  #window(tokenId: string, now: number): { start: number; used: number } {
    const start = Math.floor(now / (WRITE_WINDOW_SECONDS * 1000)) * WRITE_WINDOW_SECONDS * 1000;
    let window = this.#windows.get(tokenId);
    if (!window || window.start !== start) {
      if (this.#windows.size >= 64) this.#windows.clear();
      window = { start, used: 0 };
      this.#windows.set(tokenId, window);
    }
    return window;
  }

  /** What is left for `tokenId`, without counting (a replay, a refusal, a read). */
  peek(tokenId: string, now: number): WriteRate {
    const window = this.#window(tokenId, now);
    return rate(window, now);
  }

  /** Counts one write; `allowed` is the binding's verdict (a refused write leaves nothing). */
  count(tokenId: string, now: number, allowed: boolean): WriteRate {
    const window = this.#window(tokenId, now);
    window.used = allowed ? window.used + 1 : WRITE_LIMIT;
    return rate(window, now);
  }
}

function rate(window: { start: number; used: number }, now: number): WriteRate {
  return {
    remaining: Math.max(0, WRITE_LIMIT - window.used),
    resetSeconds: Math.max(1, Math.ceil((window.start + WRITE_WINDOW_SECONDS * 1000 - now) / 1000)),
  };
}
