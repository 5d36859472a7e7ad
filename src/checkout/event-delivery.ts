import type { Order } from "./api.ts";
import { type OrderEventMessage, type OrderEventRow, OrderEvents } from "./order-events.ts";
import { OrdersStore } from "./orders.ts";
import { signatureHeader } from "./signature.ts";

/**
 * Order events out (contract 10.7): the ORDER_EVENTS queue's consumer, which POSTs each event to
 * ORDER_WEBHOOK_URL signed like `Storefront-Signature` with ORDER_WEBHOOK_SECRET, and the re-drive
 * the cart objects run for events whose queue message went missing. The outbox row (D1) is
 * the truth: attempts, last error, next attempt; the queue only carries the event's id.
 */

/** An event is retried this long after it was written, then given up (listed, logged at error level). */
export const DELIVERY_WINDOW_MS = 3 * 24 * 3600 * 1000;
/** Retries double up to this (Queues allow 12 h a delay and 100 retries: an hour fits 3 days in 84). */
const MAX_RETRY_SECONDS = 3600;
/** How long the receiver has to answer one delivery. */
const DELIVERY_TIMEOUT_MS = 10_000;
/** How long past its due time an undelivered event's message is taken as lost, and sent again. */
export const REDRIVE_GRACE_MS = 60_000;
/** The documented development value of ORDER_WEBHOOK_SECRET: refused outside development. */
export const DEV_ORDER_WEBHOOK_SECRET = "dev-order-webhook-secret";

/** One log line about order events: ids, counts and reasons, never the URL or the secret. */
export function logEvents(level: "error" | "warn", error: string, fields: Record<string, unknown>): void {
  console[level](JSON.stringify({ level, error, ...fields }));
}

/** ORDER_WEBHOOK_RETRY_SECONDS as set (1 to 60), else 30: the first retry's delay. */
export function retryBaseSeconds(setting: unknown): number {
  const value = typeof setting === "string" && /^\d{1,2}$/.test(setting) ? Number(setting) : 0;
  return value >= 1 && value <= 60 ? value : 30;
}

/** The delay before the retry that follows failed attempt number `attempts` (1-based). */
export function retryDelaySeconds(attempts: number, base: number): number {
  return Math.min(base * 2 ** (attempts - 1), MAX_RETRY_SECONDS);
}

/** Whether orders write events: ORDER_WEBHOOK_URL is set (a bad value still writes them, and fails visibly). */
export function eventsEnabled(env: Env): boolean {
  return (env.ORDER_WEBHOOK_URL ?? "").trim() !== "";
}

/** Where and how to deliver, or why not (each a retried failure: the operator may fix the setting). */
function target(env: Env): { url: string; secret: string } | { error: string } {
  const url = (env.ORDER_WEBHOOK_URL ?? "").trim();
  if (!/^https?:$/.test(URL.parse(url)?.protocol ?? "")) return { error: "ORDER_WEBHOOK_URL is not an http(s) URL" };
  const secret = (env as Env & { ORDER_WEBHOOK_SECRET?: unknown }).ORDER_WEBHOOK_SECRET;
  if (
    typeof secret !== "string" ||
    secret.length < 16 ||
    (secret === DEV_ORDER_WEBHOOK_SECRET && env.ENVIRONMENT !== "development")
  )
    return { error: "ORDER_WEBHOOK_SECRET is not set (at least 16 characters)" };
  return { url, secret };
}

/** The body a receiver gets: the same bytes on every retry (the order is written once). */
export function eventBody(event: OrderEventRow, order: Order): string {
  return JSON.stringify({
    object: "event",
    id: event.id,
    type: event.type,
    created_at: new Date(event.created_at).toISOString(),
    data: { object: order },
  });
}

/** One signed POST; null when the receiver answered 2xx, else what went wrong (never the URL). */
async function post(url: string, secret: string, body: string): Promise<string | null> {
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Storefront-Signature": await signatureHeader(secret, body) },
      body,
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
    });
    await res.body?.cancel();
    return res.ok ? null : `HTTP ${res.status}`;
  } catch (error) {
    const name = error instanceof Error ? error.name : "Error";
    return name === "TimeoutError" ? "no answer within 10 s" : `network error (${name})`;
  }
}

/** Sends messages to the queue (the cart object after writing an order, and the re-drive). */
export async function enqueue(env: Env, messages: readonly OrderEventMessage[]): Promise<void> {
  if (messages.length > 0) await env.ORDER_EVENTS.sendBatch(messages.map((body) => ({ body, contentType: "json" })));
}

/** Delivers one message's event: null when the message is done, else the delay of its retry in seconds. */
async function deliver(env: Env, message: OrderEventMessage): Promise<number | null> {
  const events = new OrderEvents(env.ORDERS);
  const event = await events.get(message.event_id);
  // Delivered, given up, or superseded by a re-drive's newer send: nothing to do.
  if (!event || event.next_attempt_at === null || event.delivered_at !== null || event.send !== message.send)
    return null;
  const order = await new OrdersStore(env.ORDERS).get(event.order_id);
  const to = target(env);
  const error = !order
    ? "order not found"
    : "error" in to
      ? to.error
      : await post(to.url, to.secret, eventBody(event, order));
  const now = Date.now();
  if (error === null) {
    await events.delivered(event.id, now);
    return null;
  }
  const attempts = event.attempts + 1;
  const delay = retryDelaySeconds(attempts, retryBaseSeconds(env.ORDER_WEBHOOK_RETRY_SECONDS));
  const giveUp = now + delay * 1000 > event.created_at + DELIVERY_WINDOW_MS;
  if (!(await events.failed(event.id, event.send, error, giveUp ? null : now + delay * 1000))) return null;
  const line = { event_id: event.id, type: event.type, order_id: event.order_id, attempts, last_error: error };
  if (giveUp) logEvents("error", "order_event_abandoned", line);
  else logEvents("warn", "order_event_not_delivered", { ...line, retry_in_s: delay });
  return giveUp ? null : delay;
}

/** The ORDER_EVENTS consumer: each message delivered, acknowledged, or retried with its event's backoff. */
export async function deliverOrderEvents(batch: MessageBatch<OrderEventMessage>, env: Env): Promise<void> {
  await Promise.all(
    batch.messages.map(async (message) => {
      try {
        const delay = await deliver(env, message.body);
        if (delay === null) message.ack();
        else message.retry({ delaySeconds: delay });
      } catch (error) {
        // D1 unreachable, say: the message comes back after the first retry's delay.
        logEvents("error", "order_event_delivery_error", { message: String(error) });
        message.retry({ delaySeconds: retryBaseSeconds(env.ORDER_WEBHOOK_RETRY_SECONDS) });
      }
    }),
  );
}

/**
 * Sends again each of an order's undelivered events whose message is overdue by more than the
 * grace (lost: its send failed, the queue dropped it, a local queue restarted empty). Answers when
 * to look again, or null once every event is delivered or given up.
 */
export async function redriveOrderEvents(env: Env, orderId: string, now: number): Promise<number | null> {
  const events = new OrderEvents(env.ORDERS);
  const resend: OrderEventMessage[] = [];
  let next: number | null = null;
  for (const event of await events.pending(orderId)) {
    const due = (event.next_attempt_at ?? now) + REDRIVE_GRACE_MS;
    if (due <= now && (await events.resend(event.id, event.send)))
      resend.push({ event_id: event.id, send: event.send + 1 });
    const check = due <= now ? now + REDRIVE_GRACE_MS : due;
    next = next === null ? check : Math.min(next, check);
  }
  await enqueue(env, resend);
  return next;
}
