import type { Order } from "../checkout/api.ts";
import type { OrderEvent, OrderEventList } from "../checkout/events-api.ts";
import type { Reconciliation } from "../checkout/reconcile.ts";
import { OperatorError } from "./operator-client.ts";
import { count } from "../count.ts";

/**
 * The orders CLI's logic without Node: a client of the operator surface's orders endpoints and
 * the lines each command prints (argument parsing lives in `src/cli/orders.ts`), so the tests
 * run it in workerd against the real worker.
 */

export type OrdersCommand =
  | { action: "list"; limit: number; since?: string; all: boolean }
  | { action: "show"; id: string }
  | { action: "check" }
  | { action: "events"; limit: number; all: boolean };

type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

export class OrdersClient {
  readonly #base: string;
  readonly #secret: string;
  readonly #fetch: FetchLike;

  constructor(baseUrl: string, secret: string, fetchFn: FetchLike = (input, init) => fetch(input, init)) {
    this.#base = `${baseUrl.replace(/\/+$/, "")}/api/v1/operator`;
    this.#secret = secret;
    this.#fetch = fetchFn;
  }

  list(query: {
    limit: number;
    since?: string;
    startingAfter?: string;
  }): Promise<{ data: Order[]; has_more: boolean; count: number }> {
    const params = new URLSearchParams({ limit: String(query.limit) });
    if (query.since) params.set("since", query.since);
    if (query.startingAfter) params.set("starting_after", query.startingAfter);
    return this.#get(`/orders?${params}`);
  }

  show(id: string): Promise<Order> {
    return this.#get(`/orders/${encodeURIComponent(id)}`);
  }

  events(query: { limit: number; startingAfter?: string }): Promise<OrderEventList> {
    const params = new URLSearchParams({ limit: String(query.limit) });
    if (query.startingAfter) params.set("starting_after", query.startingAfter);
    return this.#get(`/order-events?${params}`);
  }

  check(): Promise<Reconciliation> {
    return this.#get("/reconciliation");
  }

  async #get<T>(path: string): Promise<T> {
    const res = await this.#fetch(`${this.#base}${path}`, { headers: { Authorization: `Bearer ${this.#secret}` } });
    const payload = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    if (!res.ok) throw new OperatorError(res.status, payload?.error?.message ?? `HTTP ${res.status}`);
    return payload as T;
  }
}

function summary(o: Order): string {
  const mismatch =
    o.payment_status === "mismatch"
      ? `  PAYMENT MISMATCH (paid ${o.amount_paid?.amount} ${o.amount_paid?.currency})`
      : "";
  return (
    `${o.id}  ${o.created_at}  ${o.cost.total.amount} ${o.currency}  ${count(o.total_quantity, "unit")}  ` +
    `${o.completed_by}:${o.payment_reference}${mismatch}${o.oversold ? "  OVERSOLD" : ""}  checkout=${o.checkout_id}`
  );
}

/** `show`'s money and buyer lines: the frozen cost, what was paid, who and where. */
function moneyLines(o: Order): string[] {
  const money = (m: { amount: string; currency: string } | null) => (m ? `${m.amount} ${m.currency}` : "none");
  const c = o.cost;
  const lines = [
    `cost: subtotal ${money(c.subtotal)}, discounts ${money(c.discount_total)}, shipping ${money(c.shipping)}, ` +
      `tax ${money(c.tax)}${c.tax_included ? " (included)" : ""}, total ${money(c.total)}`,
    `paid: ${money(o.amount_paid)}  payment_status: ${o.payment_status}` +
      (o.payment_status === "mismatch" ? `  (expected ${money(c.total)}: refund or collect the difference)` : ""),
  ];
  for (const d of o.discounts) lines.push(`discount: ${d.title}${d.code ? ` (${d.code})` : ""} −${money(d.amount)}`);
  if (o.buyer) lines.push(`buyer: ${JSON.stringify(o.buyer)}`);
  if (o.shipping_option)
    lines.push(`shipping: ${o.shipping_option.title} (${o.shipping_option.id}) ${money(o.shipping_option.price)}`);
  return lines;
}

/** One undelivered event: what it is, how often it was tried, why it failed, when it is tried next. */
function eventLine(e: OrderEvent): string {
  return (
    `${e.id}  ${e.type}  order=${e.order_id}  created ${e.created_at}  attempts ${e.attempts}` +
    `  last error: ${e.last_error ?? "none"}  next attempt: ${e.next_attempt_at ?? "none (gave up after 3 days)"}`
  );
}

/** Runs one command; `ok` is false when `check` found a difference (the CLI exits 1). */
export async function runOrdersCommand(
  command: OrdersCommand,
  client: OrdersClient,
): Promise<{ lines: string[]; ok: boolean }> {
  switch (command.action) {
    case "list": {
      const lines: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await client.list({
          limit: command.limit,
          ...(command.since ? { since: command.since } : {}),
          ...(after ? { startingAfter: after } : {}),
        });
        lines.push(...page.data.map(summary));
        after = page.data.at(-1)?.id;
        if (!command.all || !page.has_more || !after) {
          if (page.has_more && !command.all) lines.push(`… more: --all lists every one (${page.count} in all).`);
          break;
        }
      }
      return { lines: lines.length === 0 ? ["No orders."] : lines, ok: true };
    }
    case "show": {
      const order = await client.show(command.id);
      const lines = [summary(order), ...moneyLines(order)];
      if (order.note) lines.push(`note: ${JSON.stringify(order.note)}`);
      if (Object.keys(order.attributes).length > 0) lines.push(`attributes: ${JSON.stringify(order.attributes)}`);
      for (const line of order.lines) {
        lines.push(
          `  ${line.quantity} × ${line.title} — ${line.variant_title} (${line.variant_id}) at ${line.unit_price.amount} = ` +
            `${line.line_total.amount}${Object.keys(line.attributes).length > 0 ? ` ${JSON.stringify(line.attributes)}` : ""}` +
            `${line.oversold ? "  OVERSOLD" : ""}`,
        );
      }
      return { lines, ok: true };
    }
    case "events": {
      const lines: string[] = [];
      let after: string | undefined;
      let page: OrderEventList;
      do {
        page = await client.events({ limit: command.limit, ...(after ? { startingAfter: after } : {}) });
        lines.push(...page.data.map(eventLine));
        after = page.data.at(-1)?.id;
      } while (command.all && page.has_more && after);
      if (page.has_more && !command.all) lines.push(`… more: --all lists every one (${page.count} in all).`);
      if (!page.webhook_url_set) lines.push("ORDER_WEBHOOK_URL is not set: orders write no events.");
      return { lines: lines.length === 0 ? ["No undelivered events."] : lines, ok: true };
    }
    case "check": {
      const report = await client.check();
      const head =
        `Checked ${count(report.orders, "order")} (${count(report.order_lines, "line")}) against ` +
        `${count(report.movements, "stock movement")} and ${count(report.open_holds, "open hold")}:`;
      if (report.differences.length === 0) return { lines: [`${head} no difference.`], ok: true };
      return {
        lines: [
          `${head} ${report.differences.length} difference(s).`,
          ...report.differences.map((d) => `  ${d.kind}: ${d.message}`),
        ],
        ok: false,
      };
    }
  }
}
