import {
  createExecutionContext,
  createMessageBatch,
  getQueueResult,
  runDurableObjectAlarm,
  runInDurableObject,
} from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Checkout } from "../../src/checkout/api.ts";
import { checkoutsFor } from "../../src/checkout/client.ts";
import { DELIVERY_WINDOW_MS, retryBaseSeconds, retryDelaySeconds } from "../../src/checkout/event-delivery.ts";
import { OrderEventListSchema } from "../../src/checkout/events-api.ts";
import { type OrderEventMessage, type OrderEventRow, OrderEvents } from "../../src/checkout/order-events.ts";
import { orderIdFor } from "../../src/checkout/orders.ts";
import type { VariantRecord } from "../../src/catalog/store.ts";
import { OrdersClient, runOrdersCommand } from "../../src/cli/orders-client.ts";
import worker from "../../src/index.ts";
import { OrderEventBodySchema } from "../../src/routes/reference/order-event.ts";
import { addLine, BASE, issueToken, OPERATOR_SECRET, operator, seedVariants } from "../helpers/cart.ts";
import { checkoutFrom, operatorComplete, orderFrom, postCheckout, setStock } from "../helpers/checkout.ts";
import type { Received, Step } from "./receiver.ts";
import { RECEIVER, received, script } from "./receiver-client.ts";

let variants: VariantRecord[];
const client = new OrdersClient(BASE, OPERATOR_SECRET, (input, init) => exports.default.fetch(input, init));
const events = new OrderEvents(env.ORDERS);

beforeAll(async () => {
  variants = (await seedVariants()).available;
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** A new holder's open checkout of one unit of the first available variant, with the holder. */
async function openCheckout(): Promise<{ checkout: Checkout; holder: string; orderId: string }> {
  const variant = variants[0]!;
  await setStock({ [variant.id]: 1000 });
  const { token, holder } = await issueToken();
  expect((await addLine(token, variant.id, 1)).status).toBe(200);
  const checkout = await checkoutFrom(await postCheckout(token));
  return { checkout, holder, orderId: await orderIdFor(checkout.id) };
}

/** Waits until the receiver has something for `orderId` that `done` accepts. */
async function receivedUntil(
  orderId: string,
  done: (got: Received[]) => boolean,
  timeout = 20_000,
): Promise<Received[]> {
  return vi.waitFor(
    async () => {
      const got = await received(orderId);
      if (!done(got)) throw new Error(`received so far: ${JSON.stringify(got.map((r) => [r.type, r.answered]))}`);
      return got;
    },
    { timeout, interval: 100 },
  );
}

const accepted = (got: Received[]) => got.filter((r) => r.answered === 200);

/** Waits until the outbox says the event was delivered. */
async function deliveredRow(eventId: string): Promise<OrderEventRow> {
  return vi.waitFor(
    async () => {
      const row = await events.get(eventId);
      if (!row?.delivered_at) throw new Error(`not delivered: ${JSON.stringify(row)}`);
      return row;
    },
    { timeout: 10_000, interval: 100 },
  );
}

/** An outbox row written by hand for an existing order (no queue message: the test hands it to the consumer itself). */
async function handRow(orderId: string, fields: Partial<OrderEventRow>): Promise<string> {
  const id = `evt_${crypto.randomUUID().replaceAll("-", "")}`;
  const row = { created_at: Date.now(), attempts: 0, next_attempt_at: Date.now(), send: 0, ...fields };
  await env.ORDERS.prepare(
    "INSERT INTO order_events (id, type, order_id, created_at, attempts, next_attempt_at, send) VALUES (?, 'order.created', ?, ?, ?, ?, ?)",
  )
    .bind(id, orderId, row.created_at, row.attempts, row.next_attempt_at, row.send)
    .run();
  return id;
}

/** Runs the worker's queue handler on one message, as the queue would, and answers what it acked or retried. */
async function consume(message: OrderEventMessage, vars: Partial<Env> = {}) {
  const batch = createMessageBatch<OrderEventMessage>("storefront-order-events", [
    { id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body: message },
  ]);
  // The test batch's result leaves out a retry's delay (@cloudflare/vitest-plugin 1.4): the spy keeps it.
  const retry = vi.spyOn(batch.messages[0]!, "retry");
  await worker.queue(batch, { ...env, ...vars });
  const result = await getQueueResult(batch, createExecutionContext());
  return { ...result, delays: retry.mock.calls.map(([options]) => options?.delaySeconds) };
}

/** A completed order whose own order.created was delivered: a test then adds rows of its own for it. */
async function deliveredOrder(): Promise<string> {
  const { checkout, orderId } = await openCheckout();
  await orderFrom(await operatorComplete(checkout));
  await receivedUntil(orderId, (got) => accepted(got).length === 1);
  return orderId;
}

// Deliveries go through the real queue (a batch waits up to 1 s) and the retries wait 1 s, 2 s…
describe("order events out (contract 10.7)", { timeout: 30_000 }, () => {
  it("delivers order.created within 10 s, signed, with the order as the operator reads it", async () => {
    const { checkout, orderId } = await openCheckout();
    const started = Date.now();
    const order = await orderFrom(await operatorComplete(checkout));
    const [event] = await receivedUntil(order.id, (got) => accepted(got).length === 1);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(event!.signature).toBe("valid");
    const body = OrderEventBodySchema.parse(event!.body);
    expect(body.type).toBe("order.created");
    expect(body.id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(body.data.object).toEqual(await (await operator(`/orders/${orderId}`)).json());
    const row = await deliveredRow(body.id);
    expect(row).toMatchObject({ attempts: 1, last_error: null, next_attempt_at: null });
    expect(new Date(body.created_at).getTime()).toBe(row.created_at);
    const listed = OrderEventListSchema.parse(await (await operator("/order-events")).json());
    expect(listed.webhook_url_set).toBe(true);
    expect(listed.data.map((e) => e.id)).not.toContain(body.id);
  });

  it("emits order.payment_mismatch beside order.created for a payment that did not match, each its own id", async () => {
    const { checkout, orderId } = await openCheckout();
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    await orderFrom(await operatorComplete(checkout, "pay_short", { amount: "0.50", currency: "USD" }));
    const got = accepted(await receivedUntil(orderId, (all) => accepted(all).length === 2));
    expect(got.map((r) => r.type).sort()).toEqual(["order.created", "order.payment_mismatch"]);
    expect(new Set(got.map((r) => r.event_id)).size).toBe(2);
    for (const r of got) expect(OrderEventBodySchema.parse(r.body).data.object.payment_status).toBe("mismatch");
  });

  it("retries a non-2xx and a cut connection with the same event id and body until a 2xx, backing off", async () => {
    const { checkout, orderId } = await openCheckout();
    await script(orderId, [503, "drop", 200]);
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    await orderFrom(await operatorComplete(checkout));
    const got = await receivedUntil(orderId, (all) => accepted(all).length === 1, 30_000);
    expect(got.map((r) => r.answered)).toEqual<Step[]>([503, "drop", 200]);
    expect(new Set(got.map((r) => r.event_id)).size).toBe(1);
    expect(got.every((r) => r.signature === "valid")).toBe(true);
    const { created_at: _a, ...first } = got[0]!.body;
    for (const r of got) expect({ ...r.body, created_at: undefined }).toEqual({ ...first, created_at: undefined });
    // ORDER_WEBHOOK_RETRY_SECONDS=1 here: the retries come about 1 s, then 2 s, after the failures.
    expect(got[1]!.at - got[0]!.at).toBeGreaterThanOrEqual(900);
    expect(got[2]!.at - got[1]!.at).toBeGreaterThanOrEqual(1_900);
    const row = await deliveredRow(got[0]!.event_id);
    expect(row.attempts).toBe(3);
  }, 40_000);

  it("lists an event still failing with its attempts, last error and next attempt, through orders -- events", async () => {
    const { checkout, orderId } = await openCheckout();
    await script(orderId, Array(40).fill(500));
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    await orderFrom(await operatorComplete(checkout));
    await receivedUntil(orderId, (got) => got.length >= 2);
    const page = OrderEventListSchema.parse(await (await operator("/order-events?limit=250")).json());
    const event = page.data.find((e) => e.order_id === orderId)!;
    expect(event).toMatchObject({ object: "order_event", type: "order.created", last_error: "HTTP 500" });
    expect(event.attempts).toBeGreaterThanOrEqual(2);
    expect(Date.parse(event.next_attempt_at!)).toBeGreaterThan(Date.now() - 5_000);
    const { lines, ok } = await runOrdersCommand({ action: "events", limit: 250, all: true }, client);
    expect(ok).toBe(true);
    const line = lines.find((l) => l.includes(event.id))!;
    expect(line).toContain(`order.created  order=${orderId}`);
    expect(line).toMatch(/attempts \d+ {2}last error: HTTP 500 {2}next attempt: \d{4}-/);
  });

  it("backs off from ORDER_WEBHOOK_RETRY_SECONDS, doubling to an hour, within Queues' limits for 3 days", () => {
    expect(retryBaseSeconds(undefined)).toBe(30);
    expect(retryBaseSeconds("0")).toBe(30);
    expect(retryBaseSeconds("61")).toBe(30);
    expect(retryBaseSeconds("5")).toBe(5);
    // The production schedule: 30 s, 60 s, 120 s … 3600 s, then hourly until 3 days are past.
    const delays: number[] = [];
    for (let total = 0; total <= DELIVERY_WINDOW_MS / 1000; ) {
      const delay = retryDelaySeconds(delays.length + 1, 30);
      delays.push(delay);
      total += delay;
    }
    expect(delays.slice(0, 8)).toEqual([30, 60, 120, 240, 480, 960, 1920, 3600]);
    expect(delays[0]).toBeLessThanOrEqual(60); // the first retry within 60 s
    expect(Math.max(...delays)).toBeLessThanOrEqual(43_200); // Queues' longest delay, 12 h
    expect(delays.length).toBeLessThanOrEqual(100); // Queues' max_retries (wrangler.toml)
    // With the shortest base, too, the retries of 3 days fit in max_retries.
    let count = 0;
    for (let total = 0; total <= DELIVERY_WINDOW_MS / 1000; count++) total += retryDelaySeconds(count + 1, 1);
    expect(count).toBeLessThanOrEqual(100);
  });

  it("retries with the event's own backoff, and gives it up 3 days after it was written", async () => {
    const orderId = await deliveredOrder();
    const warns = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const young = await handRow(orderId, { attempts: 2 });
    await script(orderId, [503, 500]);
    const retried = await consume({ event_id: young, send: 0 });
    expect(retried.delays).toEqual([4]); // 1 s × 2^2, after the third failed attempt
    expect(await events.get(young)).toMatchObject({ attempts: 3, last_error: "HTTP 503" });
    expect(warns.mock.calls.flat().join("\n")).toContain('"error":"order_event_not_delivered"');

    const old = await handRow(orderId, { attempts: 80, created_at: Date.now() - DELIVERY_WINDOW_MS + 500 });
    const abandoned = await consume({ event_id: old, send: 0 });
    expect(abandoned.retryMessages).toEqual([]);
    expect(abandoned.explicitAcks).toHaveLength(1);
    expect(await events.get(old)).toMatchObject({ attempts: 81, last_error: "HTTP 500", next_attempt_at: null });
    expect(errors.mock.calls.flat().join("\n")).toContain('"error":"order_event_abandoned"');
    const { lines } = await runOrdersCommand({ action: "events", limit: 250, all: true }, client);
    expect(lines.find((l) => l.includes(old))).toContain("next attempt: none (gave up after 3 days)");
  });

  it("acknowledges without a delivery a message whose send a re-drive superseded, or whose event was delivered", async () => {
    const orderId = await deliveredOrder();
    const superseded = await handRow(orderId, { send: 1 });
    const before = (await received(orderId)).length;
    expect((await consume({ event_id: superseded, send: 0 })).explicitAcks).toHaveLength(1);
    const [delivered] = accepted(await received(orderId));
    expect((await consume({ event_id: delivered!.event_id, send: 0 })).explicitAcks).toHaveLength(1);
    expect((await received(orderId)).length).toBe(before);
  });

  it("fails a delivery visibly, never silently, when the signing secret is the development one outside development", async () => {
    const orderId = await deliveredOrder();
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const id = await handRow(orderId, {});
    const result = await consume({ event_id: id, send: 0 }, { ENVIRONMENT: "production" });
    expect(result.retryMessages).toHaveLength(1);
    expect((await events.get(id))?.last_error).toMatch(/^ORDER_WEBHOOK_SECRET is not set/);
    expect((await received(orderId)).filter((r) => r.event_id === id)).toEqual([]);
  });

  it("answers the completion when the queue send fails, and the alarm sends the event again (the outbox re-drive)", async () => {
    const { checkout, holder, orderId } = await openCheckout();
    const stub = checkoutsFor(env, holder);
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    // The object's queue refuses every send, as a queue outage would.
    await runInDurableObject(stub, (instance) => {
      const own = (instance as unknown as { env: Env }).env;
      const broken = { sendBatch: () => Promise.reject(new Error("queue unavailable")) } as unknown as Queue;
      Object.assign(instance, { env: { ...own, ORDER_EVENTS: broken } });
    });
    const order = await orderFrom(await operatorComplete(checkout));
    expect(order.id).toBe(orderId);
    expect(errors.mock.calls.flat().join("\n")).toContain('"error":"order_event_send_failed"');
    const [row] = await events.pending(orderId);
    expect(row).toMatchObject({ attempts: 0, send: 0, delivered_at: null });
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await received(orderId)).toEqual([]);
    // The queue is back; the alarm finds the event overdue (made so here: the grace is 60 s) and sends it again.
    await runInDurableObject(stub, async (instance, state) => {
      Object.assign(instance, { env });
      await env.ORDERS.prepare("UPDATE order_events SET next_attempt_at = ? WHERE order_id = ?")
        .bind(Date.now() - 61_000, orderId)
        .run();
      state.storage.sql.exec("UPDATE event_checks SET check_at = 0");
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const [event] = accepted(await receivedUntil(orderId, (got) => accepted(got).length === 1));
    expect(event!.event_id).toBe(row!.id);
    expect(await deliveredRow(row!.id)).toMatchObject({ send: 1, attempts: 1 });
    // Delivered: the next look ends the check.
    await runInDurableObject(stub, (_i, state) => state.storage.sql.exec("UPDATE event_checks SET check_at = 0"));
    await runDurableObjectAlarm(stub);
    const checks = await runInDurableObject(stub, (_i, state) =>
      state.storage.sql.exec("SELECT COUNT(*) AS n FROM event_checks").one(),
    );
    expect(checks.n).toBe(0);
  });

  it("writes no second event when a completion is repeated, and none at all without ORDER_WEBHOOK_URL", async () => {
    const { checkout, orderId } = await openCheckout();
    await orderFrom(await operatorComplete(checkout));
    await orderFrom(await operatorComplete(checkout, "pay_again"));
    await receivedUntil(orderId, (got) => accepted(got).length === 1);
    const count = (id: string) =>
      env.ORDERS.prepare("SELECT COUNT(*) AS n FROM order_events WHERE order_id = ?").bind(id).first<number>("n");
    expect(await count(orderId)).toBe(1);

    const off = await openCheckout();
    await runInDurableObject(checkoutsFor(env, off.holder), (instance) => {
      Object.assign(instance, { env: { ...env, ORDER_WEBHOOK_URL: "" } });
    });
    await orderFrom(await operatorComplete(off.checkout));
    expect(await count(off.orderId)).toBe(0);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await received(off.orderId)).toEqual([]);
    expect(RECEIVER).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });
});
