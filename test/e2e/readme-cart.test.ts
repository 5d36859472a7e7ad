import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, inject, it } from "vitest";
import { runCli } from "../helpers/cli.ts";

/**
 * The README's cart example sent a fixed `Idempotency-Key: first-add`, so a new user
 * who ran it twice (or added another variant) got the first answer replayed and a stale cart.
 * The block is run as written, in plain `sh`, against the e2e dev server, with a fresh token.
 */

const base = inject("e2eBaseUrl");

/** The README's sh block that adds to the cart. */
function cartExample(): string {
  const readme = readFileSync("README.md", "utf8");
  const block = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)]
    .map((m) => m[1]!)
    .find((b) => b.includes("/api/v1/cart/lines"));
  if (!block) throw new Error("README.md has no sh block adding to the cart");
  return block;
}

describe("README: the cart example", () => {
  it("adds again each time it is run (a fresh Idempotency-Key per add), in plain sh", async () => {
    const issued = await runCli("token", ["issue", "--label", "readme", "--url", base]);
    expect(issued.code, issued.stderr).toBe(0);
    const token = issued.stdout.trimEnd().split("\n").at(-1)!;
    const script = cartExample()
      .replaceAll("http://localhost:8787", base)
      .replace(/^TOKEN=.*$/m, `TOKEN=${token}`);
    expect(script).toContain(`TOKEN=${token}`);
    for (let run = 0; run < 2; run++) execFileSync("sh", ["-c", script], { stdio: "pipe" });
    const cart = (await (
      await fetch(`${base}/api/v1/cart`, { headers: { Authorization: `Bearer ${token}` } })
    ).json()) as { lines: { variant_id: string; quantity: number }[] };
    expect(cart.lines).toHaveLength(1);
    expect(cart.lines[0]?.quantity).toBe(2);
  });

  it("runs as written: a shopper token from POST /carts, a line with attributes, a note, then the cart", () => {
    const script = cartExample().replaceAll("http://localhost:8787", base);
    const out = execFileSync("sh", ["-c", script], { stdio: "pipe" }).toString("utf8");
    // Each curl prints one JSON answer; the last is GET /cart.
    const cart = JSON.parse(out.slice(out.lastIndexOf('{"object":"cart"'))) as {
      lines: { quantity: number; attributes: Record<string, string> }[];
      note: string | null;
    };
    expect(cart.lines.map((l) => [l.quantity, l.attributes])).toEqual([[1, { Engraving: "A.B." }]]);
    expect(cart.note).toBe("Please gift wrap.");
  });
});
