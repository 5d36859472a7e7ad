import { afterAll, describe, expect, inject, it } from "vitest";
import { ErrorResponseSchema } from "../../src/http/errors.ts";
import { localServerForSuite } from "../hardening/local-server.ts";
import { rawRequest } from "../hardening/raw-http.ts";
import { printFigures } from "../hardening/run-config.ts";
import { AVAILABLE_VARIANT, TOKEN_A, TOKEN_B } from "./http.ts";

/**
 * Faults and raw HTTP over real sockets. The local server (`src/cli/dev.ts`, own port and
 * state) is stopped and started again, then killed outright and started again: carts, a
 * revocation, Idempotency-Keys and the live catalog survive both. Requests fetch cannot make
 * (two Authorization header lines, a hand-chunked body) go over a bare socket to the e2e server.
 */

const PORTS = [8830, 8831, 8832, 8833, 8834, 8835, 8836, 8837, 8838, 8839];
const DEV_OPERATOR_SECRET = "dev-operator-secret";
const figures = {
  restarts: 0,
  crashes: 0,
  carts_checked: 0,
  lost_lines: 0,
  doubled_writes: 0,
  raw_requests: 0,
  unexpected_5xx: 0,
};

afterAll(() => printFigures("e2e-restart", figures));

describe("raw HTTP the fetch API cannot send", () => {
  const base = () => inject("e2eBaseUrl");

  it("answers two Authorization header lines 400 parameter_invalid (param Authorization), never a guess", async () => {
    for (const [first, second] of [
      [TOKEN_A, TOKEN_B],
      [TOKEN_A, TOKEN_A],
      [TOKEN_A, "nonsense"],
    ] as const) {
      const res = await rawRequest(base(), [
        "GET /api/v1/cart HTTP/1.1",
        `Authorization: Bearer ${first}`,
        `Authorization: Bearer ${second}`,
      ]);
      figures.raw_requests += 1;
      expect(res.status).toBe(400);
      expect(ErrorResponseSchema.parse(JSON.parse(res.body)).error).toMatchObject({
        code: "parameter_invalid",
        param: "Authorization",
      });
      expect(res.body).not.toContain("LocalToken");
    }
  });

  it("answers two Authorization header lines on a cart write 400 and adds nothing to either cart", async () => {
    // Tokens of this test's own, on the shared server, so no other e2e file writes these carts.
    const issue = async () => {
      const res = await fetch(`${base()}/api/v1/operator/tokens`, {
        method: "POST",
        headers: { Authorization: `Bearer ${DEV_OPERATOR_SECRET}`, "Content-Type": "application/json" },
        body: JSON.stringify({ label: "raw two headers" }),
      });
      return ((await res.json()) as { token: string }).token;
    };
    const [mine, other] = [await issue(), await issue()];
    const cartLines = async (token: string) =>
      (
        JSON.parse(
          (await rawRequest(base(), ["GET /api/v1/cart HTTP/1.1", `Authorization: Bearer ${token}`])).body,
        ) as { lines: unknown[] }
      ).lines;
    const body = JSON.stringify({ variant_id: AVAILABLE_VARIANT, quantity: 1 });
    const res = await rawRequest(
      base(),
      [
        "POST /api/v1/cart/lines HTTP/1.1",
        `Authorization: Bearer ${mine}`,
        `Authorization: Bearer ${other}`,
        "Content-Type: application/json",
        `Content-Length: ${body.length}`,
      ],
      body,
    );
    figures.raw_requests += 3;
    expect(res.status).toBe(400);
    expect(res.body).not.toContain(mine);
    expect(await cartLines(mine)).toEqual([]);
    expect(await cartLines(other)).toEqual([]);
  });

  it("answers a hand-chunked body over 16 KiB 413 body_too_large", async () => {
    const payload = `{"variant_id":"${AVAILABLE_VARIANT}","quantity":1,"pad":"${"x".repeat(20_000)}"}`;
    const chunks = payload.match(/[\s\S]{1,4096}/g) ?? [];
    const chunked = `${chunks.map((c) => `${Buffer.byteLength(c).toString(16)}\r\n${c}\r\n`).join("")}0\r\n\r\n`;
    const res = await rawRequest(
      base(),
      [
        "POST /api/v1/cart/lines HTTP/1.1",
        `Authorization: Bearer ${TOKEN_B}`,
        "Content-Type: application/json",
        "Transfer-Encoding: chunked",
      ],
      chunked,
    );
    figures.raw_requests += 1;
    expect(res.status).toBe(413);
    expect(ErrorResponseSchema.parse(JSON.parse(res.body)).error.code).toBe("body_too_large");
  });

  it("answers a path over 8 KiB in the envelope, not with a 5xx", async () => {
    const res = await rawRequest(base(), [`GET /api/v1/products/${"a".repeat(9000)} HTTP/1.1`]);
    figures.raw_requests += 1;
    if (res.status >= 500) figures.unexpected_5xx += 1;
    expect(res.status).toBe(404);
    expect(ErrorResponseSchema.parse(JSON.parse(res.body)).error).toMatchObject({
      code: "resource_missing",
      param: "handle",
    });
  });
});

describe("the local server stopped, crashed and started again", () => {
  const local = localServerForSuite(PORTS);
  const url = local.url;
  const bearer = (token: string, extra: Record<string, string> = {}) => ({
    Authorization: `Bearer ${token}`,
    ...extra,
  });

  async function cartOf(token: string): Promise<{ status: number; lines: { variant_id: string; quantity: number }[] }> {
    const res = await fetch(url("/api/v1/cart"), { headers: bearer(token) });
    const body = (await res.json()) as { lines?: { variant_id: string; quantity: number }[] };
    return {
      status: res.status,
      lines: (body.lines ?? []).map((l) => ({ variant_id: l.variant_id, quantity: l.quantity })),
    };
  }

  async function catalog(): Promise<{ version: string | null; etag: string | null; body: string }> {
    const res = await fetch(url("/api/v1/products?limit=250"));
    return { version: res.headers.get("x-catalog-version"), etag: res.headers.get("etag"), body: await res.text() };
  }

  it("keeps carts, a revocation, Idempotency-Keys and the live catalog across a clean stop and a crash", async () => {
    const operator = (path: string) =>
      fetch(url(`/api/v1/operator${path}`), {
        method: "POST",
        headers: bearer(DEV_OPERATOR_SECRET, { "Content-Type": "application/json" }),
        body: "{}",
      });
    const live = (await (await operator("/tokens")).json()) as { id: string; token: string };
    const doomed = (await (await operator("/tokens")).json()) as { id: string; token: string };
    const add = (token: string, quantity: number, key: string) =>
      fetch(url("/api/v1/cart/lines"), {
        method: "POST",
        headers: bearer(token, { "Content-Type": "application/json", "Idempotency-Key": key }),
        body: JSON.stringify({ variant_id: AVAILABLE_VARIANT, quantity }),
      });
    for (const [token, quantity] of [
      [TOKEN_A, 3],
      [live.token, 5],
      [doomed.token, 1],
    ] as const) {
      expect((await add(token, quantity, `restart-${quantity}`)).status).toBe(200);
    }
    expect((await operator(`/tokens/${doomed.id}/revoke`)).status).toBe(200);
    const before = { a: await cartOf(TOKEN_A), live: await cartOf(live.token), catalog: await catalog() };
    expect(before.a.lines).toEqual([{ variant_id: AVAILABLE_VARIANT, quantity: 3 }]);

    for (const how of ["stop", "crash"] as const) {
      if (how === "stop") {
        await local.server.stop();
        figures.restarts += 1;
      } else {
        await local.server.kill();
        figures.crashes += 1;
      }
      await local.restart();

      for (const [token, was] of [
        [TOKEN_A, before.a],
        [live.token, before.live],
      ] as const) {
        const now = await cartOf(token);
        figures.carts_checked += 1;
        expect(now.status).toBe(200);
        if (JSON.stringify(now.lines) !== JSON.stringify(was.lines)) figures.lost_lines += 1;
        expect(now.lines, `after a ${how}`).toEqual(was.lines);
      }
      expect((await cartOf(doomed.token)).status, `revocation after a ${how}`).toBe(401);
      // The same key and request: replayed from the ledger the object kept, not applied again.
      const retry = await add(TOKEN_A, 3, "restart-3");
      expect(retry.headers.get("idempotent-replayed"), `replay after a ${how}`).toBe("true");
      const a = await cartOf(TOKEN_A);
      if (a.lines[0]?.quantity !== 3) figures.doubled_writes += 1;
      expect(a.lines).toEqual(before.a.lines);
      // Same catalog version, same bytes, same ETag: the restart published nothing new.
      expect(await catalog(), `catalog after a ${how}`).toEqual(before.catalog);
    }
  }, 600_000);
});
