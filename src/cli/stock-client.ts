import type { StockBatchRequest } from "../stock/api.ts";
import type { StockBatchResult, StockDetail, StockStatus } from "../stock/results.ts";
import { OperatorError } from "./operator-client.ts";
import { count } from "../count.ts";

/**
 * The stock CLI's logic without Node: the parsed command, a client of `/api/v1/operator/stock`
 * and the lines it prints (argument parsing lives in `src/cli/stock.ts`). Kept free of Node APIs
 * so the tests run it in workerd against the real worker.
 */

export type StockAction = "set" | "adjust" | "untrack" | "show";

export interface StockCommand {
  action: StockAction;
  /** set/adjust: `<variant_id>=<number>` pairs, in order (untrack: `track: false` per id); show: the variant ids. */
  changes: StockBatchRequest["changes"];
  show: string[];
  /** The batch's Idempotency-Key: a retry with it never applies a change twice. */
  key: string;
}

type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

/** `123=5` (set) or `123=-2` (adjust) into a change; null when it is not that shape. */
export function parseChange(action: "set" | "adjust", text: string): StockBatchRequest["changes"][number] | null {
  const match = /^((?:gid:\/\/shopify\/ProductVariant\/)?\d{1,20})=([+-]?\d{1,10})$/.exec(text);
  if (!match) return null;
  const value = Number(match[2]);
  return action === "set" ? { variant_id: match[1]!, set: value } : { variant_id: match[1]!, adjust: value };
}

/** Calls `/api/v1/operator/stock` of one worker with the operator secret. */
export class StockClient {
  readonly #base: string;
  readonly #secret: string;
  readonly #fetch: FetchLike;

  constructor(baseUrl: string, secret: string, fetchFn: FetchLike = (input, init) => fetch(input, init)) {
    this.#base = `${baseUrl.replace(/\/+$/, "")}/api/v1/operator/stock`;
    this.#secret = secret;
    this.#fetch = fetchFn;
  }

  async change(batch: StockBatchRequest, key: string): Promise<{ result: StockBatchResult; replayed: boolean }> {
    const res = await this.#fetch(this.#base, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${this.#secret}`,
        "Content-Type": "application/json",
        "Idempotency-Key": key,
      },
      body: JSON.stringify(batch),
    });
    return {
      result: await this.#read<StockBatchResult>(res),
      replayed: res.headers.get("Idempotent-Replayed") === "true",
    };
  }

  async status(): Promise<StockStatus> {
    const res = await this.#fetch(this.#base, { headers: { Authorization: `Bearer ${this.#secret}` } });
    return this.#read<StockStatus>(res);
  }

  async show(variantId: string): Promise<StockDetail> {
    const res = await this.#fetch(`${this.#base}/${encodeURIComponent(variantId)}`, {
      headers: { Authorization: `Bearer ${this.#secret}` },
    });
    return this.#read<StockDetail>(res);
  }

  async #read<T>(res: Response): Promise<T> {
    const payload = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    if (!res.ok) throw new OperatorError(res.status, payload?.error?.message ?? `HTTP ${res.status}`);
    return payload as T;
  }
}

const levelLine = (l: StockDetail["level"]) =>
  l.tracked
    ? `${l.variant_id}  quantity=${l.quantity}  held=${l.held}  available=${l.available_quantity}  policy=${l.inventory_policy}  ${l.in_stock ? "in stock" : "sold out"}  (tracked by the ${l.tracked_by})`
    : `${l.variant_id}  not tracked (the catalog's available decides)`;

const TRACKING = {
  started: " (started tracking: its level decides from now on)",
  stopped: " (stopped tracking: the catalog's available decides again)",
} as const;

/** Runs a parsed command and returns the lines to print. */
export async function runStockCommand(command: StockCommand, client: StockClient): Promise<string[]> {
  if (command.action === "show" && command.show.length === 0) {
    const s = await client.status();
    return [
      s.catalog_version === null
        ? "No catalog is live."
        : `Catalog ${s.catalog_version}: ${count(s.tracked, "tracked variant")}; its publish wrote ` +
          `${count(s.written_by_publish, "level")} (${s.changed_by_publish} of them changed), kept ` +
          `${s.kept_by_publish} live and stopped tracking ${s.untracked_by_publish}.`,
      `Stock objects: ${count(s.shards, "shard")} (STOCK_SHARDS).`,
    ];
  }
  if (command.action === "show") {
    const lines: string[] = [];
    for (const id of command.show) {
      const detail = await client.show(id);
      lines.push(levelLine(detail.level));
      for (const m of detail.movements)
        lines.push(
          `  ${m.at}  ${m.source}/${m.kind}  ${m.delta_quantity >= 0 ? "+" : ""}${m.delta_quantity}  -> ${m.quantity} (held ${m.held})  ${m.ref}`,
        );
    }
    return lines;
  }
  const { result, replayed } = await client.change({ changes: command.changes }, command.key);
  return [
    `${replayed ? "Already applied" : "Applied"} batch ${command.key} (${result.changes.length} change${result.changes.length === 1 ? "" : "s"}):`,
    ...result.changes.map(
      (c) =>
        `  #${c.index} ${c.variant_id}: ${c.previous} -> ${c.quantity}${c.tracking ? TRACKING[c.tracking] : ""}${c.applied === "earlier" ? " (applied by an earlier try)" : ""}`,
    ),
    "Levels now:",
    ...result.levels.map((l) => `  ${levelLine(l)}`),
  ];
}
