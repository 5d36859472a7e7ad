import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { CartSchema } from "../../src/cart/api.ts";
import { runCli, STACK_FRAME } from "../helpers/cli.ts";
import { api } from "./http.ts";

/**
 * `npm run rules` as an operator runs it, against the real `npm run dev` (contract 10.1): a
 * publish reaches the next cart answer (the dev server reads the rules pointer on every request,
 * CATALOG_POINTER_TTL_MS 0), list and rollback, and its mistakes: one line, exit 2, no stack
 * trace. Other e2e files share this server: the documents here hold one code and no zones or tax,
 * so no other file's figures change, and `{}` is published at the end.
 */

const base = () => inject("e2eBaseUrl");
const scratch = mkdtempSync(join(tmpdir(), "storefront-rules-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function file(name: string, content: unknown): string {
  const path = join(scratch, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  return path;
}

const rules = (args: string[]) => runCli("rules", [...args, "--url", base()]);

const CODE_RULES = {
  discounts: [{ id: "e2e-five", title: "5% off", code: "E2EFIVE", kind: "percentage", value: "5" }],
};

async function newCart(): Promise<string> {
  const res = await api("/api/v1/carts", { method: "POST", headers: { "CF-Connecting-IP": "192.0.2.77" } });
  expect(res.status).toBe(201);
  return ((await res.json()) as { token: string }).token;
}

describe("npm run rules against npm run dev", () => {
  it("publish reaches the very next cart answer; list and rollback; {} at the end", async () => {
    const token = await newCart();
    const auth = { Authorization: `Bearer ${token}`, "Content-Type": "application/json" };
    const add = await api("/api/v1/cart/lines", {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ variant_id: "44102938475602", quantity: 1 }),
    });
    expect(add.status).toBe(200);
    await api("/api/v1/cart", {
      method: "PATCH",
      headers: auth,
      body: JSON.stringify({ discount_codes: ["e2efive"] }),
    });

    const published = await rules(["publish", file("rules.json", CODE_RULES)]);
    expect(published.code, published.stderr).toBe(0);
    expect(published.stdout).toMatch(
      /^Published rules \S+ from .*rules\.json.*: 1 discount \(1 with a code\), 0 shipping zones, no tax\.\n$/,
    );
    const started = Date.now();
    const cart = CartSchema.parse(await (await api("/api/v1/cart", { headers: auth })).json());
    expect(Date.now() - started).toBeLessThan(1000);
    expect(cart.discount_codes).toEqual([expect.objectContaining({ code: "e2efive", applicable: true })]);
    expect(cart.cost.total).toEqual({ amount: "26.60", currency: "USD" });

    const emptied = await rules(["publish", file("none.json", {})]);
    expect(emptied.code, emptied.stderr).toBe(0);
    const list = await rules(["list"]);
    expect(list.code).toBe(0);
    expect(list.stdout.trimEnd().split("\n").at(-1)).toMatch(
      /^\* +\d+ +\S+ +publish +\S+ +from \S+ +0 discounts, 0 zones, no tax$/,
    );
    const back = await rules(["rollback"]);
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toMatch(/^Rolled back: rules \S+ are live again .*: 1 discount/);
    const shown = await rules(["show"]);
    expect(shown.stdout).toContain('  e2e-five  code E2EFIVE  percentage 5%  "5% off"');
    expect((await rules(["publish", file("none.json", {})])).code).toBe(0);
    const after = CartSchema.parse(await (await api("/api/v1/cart", { headers: auth })).json());
    expect(after.discount_codes[0]).toMatchObject({ applicable: false, reason: "unknown" });
  });

  it("a document with a mistake is FILE: path: what is wrong, exit 2, and nothing is published", async () => {
    const before = await rules(["list"]);
    const bad = file("bad.json", { discounts: [{ id: "x", title: "X", kind: "percentage", value: "120" }] });
    const run = await rules(["publish", bad]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      new RegExp(`^${bad.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: discounts\\[0\\]\\.value: `),
    );
    expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(run.stderr).not.toMatch(STACK_FRAME);
    expect((await rules(["list"])).stdout).toBe(before.stdout);
  });
});

describe("npm run rules: mistakes before anything is sent", () => {
  it.each([
    [["frob"], /^Unknown command "frob": use one of publish, list, rollback, show\./],
    [["publish"], /^publish needs the rules FILE \(JSON\)\./],
    [["list", "extra"], /^list takes no argument/],
    [["rollback", "not a version!"], /is not a rules version/],
    [["show", "--expect", "v1"], /^--expect applies to publish and rollback only\./],
    [["list", "--local", "--remote"], /^Give --local or --remote, not both\./],
    [["list", "--lcoal"], /Unknown option --lcoal\./],
  ])("%j: one line, exit 2", async (args, message) => {
    const run = await runCli("rules", args);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toContain("--help");
    expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(run.stderr).not.toMatch(STACK_FRAME);
    expect(run.stdout).toBe("");
  });

  it("a file that is not JSON names its line and column (exit 2)", async () => {
    const broken = file("broken.json", '{\n  "discounts": [\n');
    const run = await runCli("rules", ["publish", broken]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(new RegExp(`^${broken.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:3:\\d+: invalid JSON`));
  });
});
