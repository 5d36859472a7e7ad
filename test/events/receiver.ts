// node test/events/receiver.ts --port N --log FILE [--secret S]   (the e2e test runs it as a process)
import { createHmac, timingSafeEqual } from "node:crypto";
import { appendFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";

/**
 * A store's order-event receiver, as the reference tells one to be written: it checks
 * `Storefront-Signature` itself (node:crypto, not the worker's code) within 300 s, and keeps what
 * it got. Tests script its answers per order (a status, or `drop`: the connection cut unanswered)
 * over `PUT /script/<order id>` and read what arrived over `GET /received?order_id=`; as a process
 * it also appends each accepted event to a log file, so what arrived survives its own kill.
 */

/** The development signing secret, as npm run dev and vitest.config.ts give it to the worker. */
export const RECEIVER_SECRET = "dev-order-webhook-secret";

export type Step = number | "drop";

/** One delivery as it arrived, and what the receiver did with it. */
export interface Received {
  event_id: string;
  type: string;
  order_id: string;
  signature: "valid" | "invalid";
  answered: Step;
  at: number;
  body: Record<string, unknown>;
}

/** Whether a `Storefront-Signature` header signs `body` with `secret`, within 300 s of `now`. */
export function signedBy(header: string, body: string, secret: string, now = Date.now()): boolean {
  const parts = header.split(",").map((part) => part.split("="));
  const t = Number(parts.find(([name]) => name === "t")?.[1]);
  const expected = createHmac("sha256", secret).update(`${t}.${body}`).digest();
  const matches = parts
    .filter(([name, value]) => name === "v1" && /^[0-9a-f]{64}$/.test(value ?? ""))
    .some(([, value]) => timingSafeEqual(Buffer.from(value!, "hex"), expected));
  return Number.isInteger(t) && matches && Math.abs(now / 1000 - t) <= 300;
}

function read(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (text += chunk));
    req.on("end", () => resolve(text));
    req.on("error", reject);
  });
}

export class OrderReceiver {
  readonly received: Received[] = [];
  readonly #scripts = new Map<string, Step[]>();
  readonly #secret: string;
  readonly #log: string | undefined;
  #server: Server | undefined;

  constructor(secret = RECEIVER_SECRET, log?: string) {
    this.#secret = secret;
    this.#log = log;
  }

  /** Listens on 127.0.0.1 (`port` 0: any free one) and answers its base URL. */
  start(port = 0): Promise<string> {
    const server = createServer((req, res) => void this.#handle(req, res));
    this.#server = server;
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
    });
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      this.#server?.closeAllConnections();
      this.#server?.close(() => resolve());
    });
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://receiver");
    const body = await read(req);
    if (req.method === "PUT" && url.pathname.startsWith("/script/")) {
      this.#scripts.set(url.pathname.slice("/script/".length), JSON.parse(body) as Step[]);
      res.writeHead(204).end();
    } else if (req.method === "GET" && url.pathname === "/received") {
      const orderId = url.searchParams.get("order_id");
      const found = this.received.filter((r) => orderId === null || r.order_id === orderId);
      res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(found));
    } else if (req.method === "POST" && url.pathname === "/hook") {
      this.#deliver(req, res, body);
    } else res.writeHead(404).end();
  }

  #deliver(req: IncomingMessage, res: ServerResponse, raw: string): void {
    const valid = signedBy(String(req.headers["storefront-signature"] ?? ""), raw, this.#secret);
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      // kept as {}: a test sees the event id missing
    }
    const order = ((body.data ?? {}) as { object?: { id?: string } }).object;
    const orderId = order?.id ?? "";
    const step: Step = valid ? (this.#scripts.get(orderId)?.shift() ?? 200) : 400;
    const entry: Received = {
      event_id: String(body.id ?? ""),
      type: String(body.type ?? ""),
      order_id: orderId,
      signature: valid ? "valid" : "invalid",
      answered: step,
      at: Date.now(),
      body,
    };
    this.received.push(entry);
    if (step === "drop") {
      req.socket.destroy();
      return;
    }
    if (this.#log && step >= 200 && step < 300) appendFileSync(this.#log, `${JSON.stringify(entry)}\n`);
    res.writeHead(step, { "Content-Type": "text/plain" }).end(step < 300 ? "ok" : "no");
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: { port: { type: "string" }, log: { type: "string" }, secret: { type: "string" } },
  });
  const receiver = new OrderReceiver(values.secret ?? RECEIVER_SECRET, values.log);
  const url = await receiver.start(Number(values.port ?? 0));
  process.stdout.write(`listening ${url}\n`);
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.on(signal, () => void receiver.stop().then(() => process.exit(0)));
}
