import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localServerForSuite } from "../hardening/local-server.ts";
import { printFigures } from "../hardening/run-config.ts";
import { runCli } from "../helpers/cli.ts";
import { firstFreePort } from "../helpers/ports.ts";
import type { Received } from "../events/receiver.ts";

/**
 * Order events out across a receiver that dies (contract 10.7, issue 43 part 8): `npm run dev` with
 * ORDER_WEBHOOK_URL pointing at a local receiver process (test/events/receiver.ts, which checks the
 * signature and appends each accepted event to a file) and ORDER_WEBHOOK_RETRY_SECONDS=1. Orders
 * are completed while it is up, it is killed (SIGKILL), more orders (a payment mismatch among them)
 * are completed while it is down, then it is started again: every event arrives (at least once, one
 * id each), and `npm run orders -- events` lists nothing undelivered.
 */

const PORTS = [8865, 8866, 8867, 8868, 8869];
const RECEIVER_PORTS = [8875, 8876, 8877, 8878, 8879];
const OPERATOR = { Authorization: "Bearer dev-operator-secret", "Content-Type": "application/json" };
/** The seed's stock-tracked available variant, restocked below. */
const VARIANT = "44102938475615";
const figures = { orders_while_up: 0, orders_while_down: 0, events: 0, deliveries: 0, down_ms: 0, caught_up_ms: 0 };

afterAll(() => printFigures("e2e-order-events", figures));

/** The receiver as its own process, appending accepted events to `log`; resolves once it listens. */
function startReceiver(port: number, log: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["test/events/receiver.ts", "--port", String(port), "--log", log], {
    cwd: process.cwd(),
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    child.stdout?.once("data", () => resolve(child));
    child.once("exit", (code) => reject(new Error(`the receiver exited (${code}) before listening`)));
  });
}

async function killed(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await gone;
}

async function receivedIn(log: string): Promise<Received[]> {
  const text = await readFile(log, "utf8").catch(() => "");
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Received);
}

describe("order events across a receiver killed and restarted", () => {
  let dir: string;
  let port: number;
  let log: string;
  let receiver: ChildProcess | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "storefront-events-"));
    log = join(dir, "received.jsonl");
    port = await firstFreePort("127.0.0.1", RECEIVER_PORTS);
    receiver = await startReceiver(port, log);
  });
  afterAll(async () => {
    if (receiver) await killed(receiver);
    await rm(dir, { recursive: true, force: true });
  });

  const local = localServerForSuite(PORTS, () => ({
    ORDER_WEBHOOK_URL: `http://127.0.0.1:${port}/hook`,
    ORDER_WEBHOOK_RETRY_SECONDS: "1",
  }));
  const post = async (path: string, body: unknown, headers: Record<string, string> = OPERATOR) => {
    const res = await fetch(local.url(path), { method: "POST", headers, body: JSON.stringify(body) });
    const text = await res.text();
    expect(res.status, `${path}: ${text}`).toBeLessThan(300);
    return JSON.parse(text) as Record<string, unknown>;
  };

  /** One order of one unit by a new holder, paid its total (or `paid`); answers its id. */
  async function order(paid?: { amount: string; currency: string }): Promise<string> {
    const { token } = (await post("/api/v1/operator/tokens", { label: "events" })) as { token: string };
    const bearer = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
    await post("/api/v1/cart/lines", { variant_id: VARIANT, quantity: 1 }, bearer);
    const checkout = (await post("/api/v1/checkouts", {}, bearer)) as {
      id: string;
      cost: { total: { amount: string; currency: string } };
    };
    const done = await post(`/api/v1/operator/checkouts/${checkout.id}/complete`, {
      payment_reference: `pay_${checkout.id.slice(-6)}`,
      ...(paid ?? checkout.cost.total),
    });
    return done.id as string;
  }

  it("delivers every event, once the receiver is back, and lists nothing undelivered", async () => {
    await post("/api/v1/operator/stock", { changes: [{ variant_id: VARIANT, set: 1000 }] });
    const expected = new Map<string, string[]>(); // order id -> event types
    for (let i = 0; i < 2; i++) expected.set(await order(), ["order.created"]);
    figures.orders_while_up = 2;
    const upDeadline = Date.now() + 20_000;
    while ((await receivedIn(log)).length < 2 && Date.now() < upDeadline) await new Promise((r) => setTimeout(r, 200));
    expect((await receivedIn(log)).length).toBe(2);

    await killed(receiver!);
    const downAt = Date.now();
    for (let i = 0; i < 4; i++) expected.set(await order(), ["order.created"]);
    expected.set(await order({ amount: "0.50", currency: "USD" }), ["order.created", "order.payment_mismatch"]);
    figures.orders_while_down = 5;
    // Down for a while: the deliveries fail, and the operator sees them waiting.
    await new Promise((r) => setTimeout(r, 6_000));
    const waiting = await runCli("orders", ["events", "--url", local.server.baseUrl]);
    expect(waiting.code, waiting.stderr).toBe(0);
    const lines = waiting.stdout.trim().split("\n");
    expect(lines).toHaveLength(6);
    for (const line of lines)
      expect(line).toMatch(/attempts [1-9]\d* {2}last error: network error \(.+\) {2}next attempt: \d{4}-/);

    receiver = await startReceiver(port, log);
    figures.down_ms = Date.now() - downAt;
    const want = [...expected].flatMap(([orderId, types]) => types.map((type) => `${orderId} ${type}`)).sort();
    const backAt = Date.now();
    let got: Received[] = [];
    while (Date.now() - backAt < 60_000) {
      got = await receivedIn(log);
      if (new Set(got.map((r) => `${r.order_id} ${r.type}`)).size === want.length) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    figures.caught_up_ms = Date.now() - backAt;
    figures.deliveries = got.length;
    expect([...new Set(got.map((r) => `${r.order_id} ${r.type}`))].sort()).toEqual(want);
    // At least once, de-duplicable: one event id per order and type, however often it came.
    const ids = new Map<string, Set<string>>();
    for (const r of got)
      ids.set(`${r.order_id} ${r.type}`, (ids.get(`${r.order_id} ${r.type}`) ?? new Set()).add(r.event_id));
    expect([...ids.values()].every((set) => set.size === 1)).toBe(true);
    expect(got.every((r) => r.signature === "valid")).toBe(true);
    figures.events = ids.size;

    // The consumer marks each delivered once the receiver's 2xx is back: give it a moment.
    let after = { code: -1 as number | null, stdout: "", stderr: "" };
    for (let i = 0; i < 20; i++) {
      after = await runCli("orders", ["events", "--url", local.server.baseUrl]);
      if (after.stdout.trim() === "No undelivered events.") break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout.trim()).toBe("No undelivered events.");
  }, 150_000);
});
