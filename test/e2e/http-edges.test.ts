import { readFile } from "node:fs/promises";
import net from "node:net";
import { describe, expect, inject, it } from "vitest";
import { api, TOKEN_A } from "./http.ts";

/**
 * Issue 22, item 5, over real HTTP against `npm run dev` (wrangler's proxy and workerd's HTTP
 * parser in front of the worker): a client hanging up mid-body, and over-long URLs.
 */

const base = inject("e2eBaseUrl");

/** Sends a request head and part of its declared body over a raw socket, then hangs up. */
function hangUpMidBody(requestId: string): Promise<void> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(
        [
          "POST /api/v1/cart/lines HTTP/1.1",
          `Host: ${hostname}:${port}`,
          `Authorization: Bearer ${TOKEN_A}`,
          "Content-Type: application/json",
          "Content-Length: 100",
          `X-Request-Id: ${requestId}`,
          "",
          '{"variant_id":',
        ].join("\r\n"),
      );
      setTimeout(() => socket.destroy(), 300);
    });
    socket.on("error", () => {});
    socket.on("close", () => resolve());
  });
}

async function logLines(requestId: string): Promise<string[]> {
  const log = await readFile(inject("e2eLogFile"), "utf8");
  return log.split("\n").filter((line) => line.includes(requestId));
}

describe("a client that hangs up mid-body", () => {
  // Bug: the worker logged it as {"level":"error", "message":"Network connection lost."} and a 500.
  it("is logged by the worker as status 499 in its one request line, with no error-level line", async () => {
    const requestId = `e2e-abort-${Date.now()}`;
    await hangUpMidBody(requestId);
    let lines: string[] = [];
    for (let i = 0; i < 50 && lines.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      lines = await logLines(requestId);
    }
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!.slice(lines[0]!.indexOf("{")))).toMatchObject({
      method: "POST",
      route: "/api/v1/cart/lines",
      status: 499,
      request_id: requestId,
    });
    expect(lines.join("\n")).not.toContain('"level":"error"');
  });
});

describe("over-long URLs", () => {
  // Bug: a URL the worker could answer was answered by whatever route it reached, a 404 quoting
  // tens of kilobytes of path back; now one 414 in the envelope, without the URL.
  it.each([
    ["a query", `/api/v1/products?q=${"a".repeat(20_000)}`],
    ["a path", `/api/v1/${"z".repeat(20_000)}`],
    ["a cart path", `/api/v1/cart/lines/cl_${"c".repeat(40_000)}`],
  ])("over 16 KiB in %s: 414 url_too_long in the envelope, with a request id", async (_what, path) => {
    const res = await api(path, { headers: { Authorization: `Bearer ${TOKEN_A}` } });
    expect(res.status).toBe(414);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({
      error: { type: "invalid_request_error", code: "url_too_long", message: expect.stringContaining("16 KiB") },
    });
    expect(text.length).toBeLessThan(300);
  });

  it("still answers a URL just under 16 KiB normally", async () => {
    const res = await api(`/api/v1/products/${"a".repeat(15_000)}`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: "resource_missing" } });
  });

  it("over about 64 KiB, wrangler dev's HTTP layer answers 414 before the worker runs (not a 5xx)", async () => {
    const res = await api(`/api/v1/products?q=${"a".repeat(70_000)}`);
    await res.body?.cancel();
    expect(res.status).toBe(414);
  });
});
