import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { decodeForm, operationOf, requestSchemaPath, schemaProblems, typed } from "./spec.ts";

/**
 * A local stand-in for Stripe's API, for tests and `npm run dev` (STRIPE_API_BASE). Every request
 * is checked against Stripe's own OpenAPI document (./spec.ts): an operation Stripe has for the
 * method and path, an `Authorization: Bearer sk_…` key, an `Idempotency-Key` and
 * `Stripe-Version` of Stripe's shapes, and a form body (bracket notation) that Stripe's schema for
 * the operation accepts, unknown parameters included. Refusals come in Stripe's error shape. What
 * it answers is built from what was sent (amount_total = lines − coupon + shipping) and checked
 * against the document's response schema too. It keeps Stripe's idempotency (a replay answers
 * the first result; the same key with another body is refused) and lets tests inject faults.
 */

type Json = Record<string, unknown>;

/** One request as it arrived, and what the stand-in answered. */
export interface Seen {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Json | null;
  raw: string;
  status: number;
  /** What the stand-in answered (sent, or lost by a `lose` fault). */
  answer: Json | null;
}

/** A fault for the next `times` requests whose path or raw body contains `match`. */
export interface Fault {
  match: string;
  /** status500/402: answered so; hang: never answered; drop: the connection cut unread; lose: done, then the answer lost. */
  mode: "status500" | "status402" | "hang" | "drop" | "lose";
  times: number;
}

const SECRET_KEY = /^(sk|rk)_(test|live)_[A-Za-z0-9]{8,}$/;

function stripeError(status: number, type: string, message: string, extra: Json = {}): [number, Json] {
  return [status, { error: { type, message, ...extra } }];
}

/** The validator's most specific complaints (not the "a subschema had errors" above each). */
function leaves(problems: readonly string[]): string[] {
  const summaries = /A subschema had errors|does not match schema|did not match schema|failed to match/;
  const specific = problems.filter((p) => !summaries.test(p));
  return (specific.length > 0 ? specific : problems).slice(0, 3);
}

function id(prefix: string): string {
  return `${prefix}_test_${randomBytes(12).toString("base64url").replace(/[-_]/g, "x")}`;
}

export class StripeStandIn {
  readonly seen: Seen[] = [];
  readonly sessions = new Map<string, Json>();
  readonly coupons = new Map<string, Json>();
  readonly #replays = new Map<string, { digest: string; status: number; body: Json }>();
  readonly #faults: Fault[] = [];
  #server: Server | undefined;
  url = "";

  /** Reads Stripe's document and prepares the checks of the operations the worker uses, so no request waits for it. */
  warm(): void {
    for (const [method, path] of [
      ["POST", "/v1/checkout/sessions"],
      ["POST", "/v1/checkout/sessions/cs_x/expire"],
      ["POST", "/v1/coupons"],
    ] as const) {
      const found = operationOf(method, path)!;
      schemaProblems(requestSchemaPath(found.template, method), {});
      schemaProblems(
        ["paths", found.template, "post", "responses", "200", "content", "application/json", "schema"],
        {},
      );
    }
  }

  async start(port = 0): Promise<string> {
    this.#server = createServer((req, res) => void this.#handle(req, res));
    await new Promise<void>((resolve) => this.#server!.listen(port, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise((resolve) => this.#server?.close(resolve));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    const url = new URL(req.url ?? "/", "http://stand-in");
    if (url.pathname.startsWith("/__stand-in/")) return this.#control(req.method ?? "GET", url, raw, res);
    const fault = this.#faults.find((f) => f.times > 0 && (url.pathname.includes(f.match) || raw.includes(f.match)));
    if (fault) {
      fault.times -= 1;
      if (fault.mode === "drop") return void req.socket.destroy();
      if (fault.mode === "hang") return;
    }
    const headers = Object.fromEntries(
      Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(",") : (v ?? "")]),
    );
    const seen: Seen = {
      method: req.method ?? "",
      path: url.pathname,
      headers,
      body: null,
      raw,
      status: 0,
      answer: null,
    };
    this.seen.push(seen);
    const [status, body, replayed] =
      fault?.mode === "status500"
        ? [...stripeError(500, "api_error", "An unexpected error occurred (injected)."), false]
        : fault?.mode === "status402"
          ? [...stripeError(402, "card_error", "Refused (injected)."), false]
          : this.#answer(seen);
    seen.status = status;
    seen.answer = body;
    if (fault?.mode === "lose") return void req.socket.destroy();
    res.writeHead(status, {
      "Content-Type": "application/json",
      "Request-Id": id("req"),
      ...(replayed ? { "Idempotent-Replayed": "true" } : {}),
    });
    res.end(JSON.stringify(body));
  }

  /** Checks the request against the document, then answers it, or replays the first answer of its key. */
  #answer(seen: Seen): [number, Json, boolean] {
    const auth = /^Bearer (.+)$/.exec(seen.headers.authorization ?? "")?.[1];
    if (!auth || !SECRET_KEY.test(auth)) {
      return [...stripeError(401, "invalid_request_error", "Invalid API Key provided."), false];
    }
    const version = seen.headers["stripe-version"];
    if (version !== undefined && !/^\d{4}-\d{2}-\d{2}(\.[a-z]+)?$/.test(version)) {
      return [...stripeError(400, "invalid_request_error", `Invalid Stripe API version: ${version}`), false];
    }
    const found = operationOf(seen.method, seen.path);
    if (!found) {
      return [
        ...stripeError(404, "invalid_request_error", `Unrecognized request URL (${seen.method}: ${seen.path}).`),
        false,
      ];
    }
    const key = seen.headers["idempotency-key"];
    if (seen.method === "POST") {
      if (
        (seen.headers["content-type"] ?? "").split(";")[0] !== "application/x-www-form-urlencoded" &&
        seen.raw !== ""
      ) {
        return [
          ...stripeError(400, "invalid_request_error", "Send the body as application/x-www-form-urlencoded."),
          false,
        ];
      }
      if (key !== undefined && (key.length === 0 || key.length > 255)) {
        return [...stripeError(400, "invalid_request_error", "Idempotency-Key must be 1 to 255 characters."), false];
      }
    }
    const decoded = decodeForm(seen.raw);
    if (!decoded) return [...stripeError(400, "invalid_request_error", "Malformed form body."), false];
    const schemaPath = requestSchemaPath(found.template, seen.method);
    const body = typed(
      decoded,
      found.op.requestBody
        ? { $ref: `#/${schemaPath.map((p) => p.replaceAll("~", "~0").replaceAll("/", "~1")).join("/")}` }
        : {},
    ) as Json;
    seen.body = body;
    if (found.op.requestBody) {
      const problems = schemaProblems(schemaPath, body);
      if (problems.length > 0) {
        return [
          ...stripeError(400, "invalid_request_error", `Invalid request: ${leaves(problems).join("; ")}`, {
            code: "parameter_invalid",
          }),
          false,
        ];
      }
    }
    const digest = createHash("sha256").update(`${seen.method} ${seen.path}\n${seen.raw}`).digest("hex");
    const replayKey = key ? `${auth}\n${key}` : undefined;
    const first = replayKey ? this.#replays.get(replayKey) : undefined;
    if (first) {
      if (first.digest !== digest) {
        return [
          ...stripeError(
            400,
            "idempotency_error",
            "Keys for idempotent requests can only be used with the same parameters they were first used with.",
          ),
          false,
        ];
      }
      return [first.status, first.body, true];
    }
    const [status, answer] = this.#operate(found.template, seen.path, body);
    if (status === 200) {
      const problems = schemaProblems(
        [
          "paths",
          found.template,
          seen.method.toLowerCase(),
          "responses",
          "200",
          "content",
          "application/json",
          "schema",
        ],
        answer,
      );
      if (problems.length > 0)
        throw new Error(`The stand-in's own answer is off Stripe's schema: ${problems.join("; ")}`);
    }
    if (replayKey && status < 500) this.#replays.set(replayKey, { digest, status, body: answer });
    return [status, answer, false];
  }

  #operate(template: string, path: string, body: Json): [number, Json] {
    const now = Math.floor(Date.now() / 1000);
    if (template === "/v1/coupons") {
      const coupon = {
        id: id("co").slice(0, 24),
        object: "coupon",
        amount_off: body.amount_off ?? null,
        currency: body.currency ?? null,
        percent_off: body.percent_off ?? null,
        duration: body.duration ?? "once",
        duration_in_months: null,
        max_redemptions: body.max_redemptions ?? null,
        metadata: body.metadata ?? {},
        name: body.name ?? null,
        redeem_by: null,
        times_redeemed: 0,
        valid: true,
        created: now,
        livemode: false,
      };
      this.coupons.set(coupon.id, coupon);
      return [200, coupon];
    }
    if (template === "/v1/checkout/sessions") return this.#createSession(body, now);
    if (template === "/v1/checkout/sessions/{session}/expire") {
      const session = this.sessions.get(decodeURIComponent(path.split("/")[4] ?? ""));
      if (!session)
        return stripeError(404, "invalid_request_error", "No such checkout.session", { code: "resource_missing" });
      if (session.status !== "open") {
        return stripeError(
          400,
          "invalid_request_error",
          'Only Checkout Sessions with a status in ["open"] can be expired.',
        );
      }
      Object.assign(session, { status: "expired", url: null });
      return [200, session];
    }
    return stripeError(400, "invalid_request_error", `The stand-in does not answer ${template}.`);
  }

  #createSession(body: Json, now: number): [number, Json] {
    const items = (body.line_items ?? []) as {
      quantity?: number;
      price_data?: { currency: string; unit_amount?: number };
    }[];
    if (body.mode !== "payment" || items.length === 0 || items.some((i) => !i.price_data || i.quantity === undefined)) {
      return stripeError(
        400,
        "invalid_request_error",
        "The stand-in makes payment-mode sessions of price_data line items.",
      );
    }
    if (items.length > 100)
      return stripeError(400, "invalid_request_error", "At most 100 line items.", { param: "line_items" });
    const currencies = new Set(items.map((i) => i.price_data!.currency));
    const currency = items[0]!.price_data!.currency;
    if (currencies.size > 1)
      return stripeError(400, "invalid_request_error", "All line items must share one currency.");
    const expiresAt = (body.expires_at as number | undefined) ?? now + 24 * 3600;
    if (expiresAt < now + 30 * 60 || expiresAt > now + 24 * 3600) {
      return stripeError(
        400,
        "invalid_request_error",
        "The `expires_at` timestamp must be between 30 minutes and 24 hours from Checkout Session creation.",
        { param: "expires_at" },
      );
    }
    const subtotal = items.reduce((sum, i) => sum + (i.price_data!.unit_amount ?? 0) * i.quantity!, 0);
    const couponId = ((body.discounts ?? []) as { coupon?: string }[])[0]?.coupon;
    const coupon = couponId ? this.coupons.get(couponId) : undefined;
    if (couponId && !coupon)
      return stripeError(400, "invalid_request_error", `No such coupon: '${couponId}'`, {
        param: "discounts[0][coupon]",
      });
    if (coupon && coupon.currency !== currency)
      return stripeError(400, "invalid_request_error", "The coupon's currency is not the session's.");
    const discount = Math.min((coupon?.amount_off as number | undefined) ?? 0, subtotal);
    const rate = (
      (body.shipping_options ?? []) as {
        shipping_rate_data?: { fixed_amount?: { amount: number; currency: string } };
      }[]
    )[0]?.shipping_rate_data?.fixed_amount;
    if (rate && rate.currency !== currency)
      return stripeError(400, "invalid_request_error", "The shipping rate's currency is not the session's.");
    const shipping = rate?.amount ?? 0;
    const sessionId = id("cs");
    const session: Json = {
      id: sessionId,
      object: "checkout.session",
      after_expiration: null,
      allow_promotion_codes: null,
      amount_subtotal: subtotal,
      amount_total: subtotal - discount + shipping,
      automatic_tax: { enabled: false, status: null },
      billing_address_collection: null,
      cancel_url: body.cancel_url ?? null,
      client_reference_id: body.client_reference_id ?? null,
      consent: null,
      consent_collection: null,
      created: now,
      currency,
      custom_fields: [],
      custom_text: { shipping_address: null, submit: null },
      customer: null,
      customer_creation: "if_required",
      customer_details: null,
      customer_email: body.customer_email ?? null,
      expires_at: expiresAt,
      livemode: false,
      locale: null,
      metadata: body.metadata ?? {},
      mode: "payment",
      payment_intent: null,
      payment_link: null,
      payment_method_collection: null,
      payment_method_options: {},
      payment_method_types: ["card"],
      payment_status: "unpaid",
      phone_number_collection: { enabled: false },
      recovered_from: null,
      setup_intent: null,
      shipping_address_collection: null,
      shipping_cost: rate
        ? { amount_subtotal: shipping, amount_tax: 0, amount_total: shipping, shipping_rate: id("shr") }
        : null,
      shipping_details: null,
      shipping_options: rate ? [{ shipping_amount: shipping, shipping_rate: id("shr") }] : [],
      status: "open",
      submit_type: null,
      subscription: null,
      success_url: body.success_url,
      total_details: { amount_discount: discount, amount_shipping: shipping, amount_tax: 0 },
      url: `https://checkout.stripe.test/c/pay/${sessionId}`,
    };
    this.sessions.set(sessionId, session);
    return [200, session];
  }

  /** Test controls: inject a fault, read what was seen. Never part of Stripe's API. */
  #control(method: string, url: URL, raw: string, res: ServerResponse): void {
    let answer: unknown = null;
    if (method === "POST" && url.pathname === "/__stand-in/faults") this.#faults.push(JSON.parse(raw) as Fault);
    else if (url.pathname === "/__stand-in/seen") {
      const match = url.searchParams.get("match") ?? "";
      answer = this.seen.filter((s) => s.path.includes(match) || s.raw.includes(match));
    } else if (url.pathname.startsWith("/__stand-in/sessions/")) {
      answer = this.sessions.get(url.pathname.split("/")[3] ?? "") ?? null;
    }
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(JSON.stringify(answer));
  }
}
