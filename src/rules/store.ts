import type { Currency } from "../money.ts";
import { BoundedMemo } from "../memo.ts";
import { RULES_POINTER_KEY, type RulesPointer, rulesDocumentKey } from "./layout.ts";
import { issueWhere, type Rules } from "./schema.ts";
import { parseRules } from "./parse.ts";

/** The live rules as a cart prices with them: the version (for logs and tests) and the compiled document. */
export interface LiveRules {
  version: string;
  rules: Rules;
}

/**
 * Compiled documents this isolate has read, by version and currency. A version's document is
 * written once and never changed, so a kept value cannot go stale; `null` marks a document that
 * does not fit the currency (told once per isolate, not on every cart answer).
 */
const compiled = new BoundedMemo<Rules | null>(4 * 1024 * 1024);

/** The pointer this isolate read last, per namespace, and when (kept only when a TTL is set). */
const keptPointers = new WeakMap<KVNamespace, { pointer: RulesPointer | null; readAt: number }>();

/**
 * The rules document's KV adapter for its readers (the cart): the only code that reads the rules
 * keys. The pointer follows the catalog's freshness rule (CATALOG_POINTER_TTL_MS: kept at most
 * that long in an isolate, 0 under `npm run dev` and the tests, so a local publish shows on the
 * next request); a version's document is read and compiled once per isolate. So with the pointer
 * fresh, reading the rules costs a cart answer one map lookup.
 */
export class RulesStore {
  readonly #kv: KVNamespace;
  readonly #pointerTtlMs: number;

  constructor(kv: KVNamespace, options: { pointerTtlMs?: number } = {}) {
    this.#kv = kv;
    this.#pointerTtlMs = options.pointerTtlMs ?? 0;
  }

  /** The live pointer, or null when no rules were ever published. One read, or none within the TTL. */
  async pointer(): Promise<RulesPointer | null> {
    const kept = keptPointers.get(this.#kv);
    if (kept !== undefined && Date.now() - kept.readAt < this.#pointerTtlMs) return kept.pointer;
    const pointer = await this.#kv.get<RulesPointer>(RULES_POINTER_KEY, "json");
    if (this.#pointerTtlMs > 0) keptPointers.set(this.#kv, { pointer, readAt: Date.now() });
    return pointer;
  }

  /**
   * The rules `pointer` names, compiled for the catalog's `currency`; null when there are none.
   * A document that no longer fits the currency (the catalog was republished in another one) is
   * not applied: an error line says so, and the operator publishes rules in the new currency.
   */
  async rules(pointer: RulesPointer | null, currency: Currency): Promise<LiveRules | null> {
    if (!pointer) return null;
    const { version } = pointer.current;
    const key = `${version}\u0000${currency}`;
    let rules = compiled.get(key);
    if (rules === undefined) {
      const text = await this.#kv.get(rulesDocumentKey(version), "text");
      // Deleted under a stale pointer (cleanup keeps the last versions): none until the pointer moves on.
      if (text === null) return null;
      const parsed = parseRules(JSON.parse(text), currency);
      rules = parsed.ok ? parsed.rules : null;
      if (!parsed.ok)
        console.error(
          JSON.stringify({
            level: "error",
            message: `Rules ${version} do not fit the catalog's currency ${currency}; they are not applied until rules in ${currency} are published.`,
            issue: `${issueWhere(parsed.issues[0]?.path ?? [])}: ${parsed.issues[0]?.message ?? ""}`,
          }),
        );
      compiled.set(key, rules, text.length * 4);
    }
    return rules === null ? null : { version, rules };
  }

  /** The live rules compiled for `currency`. */
  async live(currency: Currency): Promise<LiveRules | null> {
    return this.rules(await this.pointer(), currency);
  }
}
