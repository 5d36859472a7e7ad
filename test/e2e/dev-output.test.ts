import { readFile } from "node:fs/promises";
import { describe, expect, inject, it } from "vitest";

const base = inject("e2eBaseUrl");

/** Everything `npm run dev` printed for the e2e suite's server, from its first line. */
function devOutput(): Promise<string> {
  return readFile(inject("e2eLogFile"), "utf8");
}

describe("npm run dev: what a newcomer reads on start", () => {
  it("prints no warning that carts will fail: the local-state tools no longer bind the Cart object", async () => {
    const output = await devOutput();
    expect(output).toContain("Published the seed catalog");
    expect(output).not.toContain("no such Durable Object class is exported");
    expect(output).not.toContain("will fail at runtime");
    expect(output).not.toContain("will not work in local development");
  });

  it("prints no Request.cf network stack trace (Miniflare's cf fetch is off)", async () => {
    const output = await devOutput();
    expect(output).toContain("Ready on http");
    expect(output).not.toContain("Request.cf");
    expect(output).not.toContain("ENOTFOUND");
    expect(output).not.toMatch(/\n\s+at\s.*:\d+:\d+\)?\n/);
  });

  it("says which catalog version it serves: on fresh state, the seed it just published", async () => {
    const output = await devOutput();
    const version = /Published the seed catalog as (\S+)\./.exec(output)?.[1];
    expect(version).toBeDefined();
    expect(output).toContain(`Serving catalog ${version} (the seed, 28 products).`);
  });

  it("announces both dev tokens on fresh state", async () => {
    expect(await devOutput()).toContain("Dev tokens ready: sf_dev_LocalToken_A1, sf_dev_LocalToken_B2.");
  });
});

describe("regression: defect 5, a 401's docs_url pointed at storefront.example.com under npm run dev", () => {
  it("points at the dev server's own /docs page", async () => {
    const res = await fetch(`${base}/api/v1/cart`);
    expect(res.status).toBe(401);
    const body = (await res.json()) as { error: { docs_url: string } };
    expect(body.error.docs_url).toBe(`${base}/docs#authentication`);
    const page = await fetch(body.error.docs_url);
    expect(page.status).toBe(200);
    await page.body?.cancel();
  });
});
