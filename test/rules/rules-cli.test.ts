import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { OperatorError } from "../../src/cli/operator-client.ts";
import {
  RulesClient,
  type RulesCommand,
  RulesFileError,
  RulesMovedError,
  runRulesCommand,
} from "../../src/cli/rules-client.ts";
import { BASE, OPERATOR_SECRET } from "../helpers/cart.ts";
import { publishSeedCatalog } from "../helpers/catalog.ts";
import { CONTRACT_EXAMPLE } from "./example.ts";

/** npm run rules' logic (src/cli/rules.ts parses the real command line) against the real worker. */

function client(secret = OPERATOR_SECRET): RulesClient {
  return new RulesClient(BASE, secret, (input, init) => exports.default.fetch(input, init));
}

const run = (command: RulesCommand, secret?: string) => runRulesCommand(command, client(secret));
const VERSION = /\d{8}T\d{6}Z-[0-9a-f]{6}/;

beforeAll(async () => {
  await publishSeedCatalog();
});

describe("npm run rules", () => {
  it("show and list say when nothing was published", async () => {
    expect(await run({ action: "show" })).toEqual([
      "No rules are published: no discounts, no shipping charges, no tax.",
    ]);
    expect(await run({ action: "list" })).toEqual(["No rules were ever published."]);
  });

  it("publish prints the new version and what the document holds; the same file again changes nothing", async () => {
    const [line] = await run({ action: "publish", file: "rules.json", document: CONTRACT_EXAMPLE });
    expect(line).toMatch(
      /^Published rules \d{8}T\d{6}Z-[0-9a-f]{6} from rules\.json: 4 discounts \(2 with a code\), 1 shipping zone, tax exclusive\.$/,
    );
    const again = await run({ action: "publish", file: "rules.json", document: CONTRACT_EXAMPLE });
    expect(again[0]).toMatch(/^Unchanged: rules \S+ are already live with this document \(rules\.json\)\.$/);
  });

  it("show lists each discount, zone and rate, and the tax", async () => {
    const lines = await run({ action: "show" });
    expect(lines[0]).toMatch(new RegExp(`^Live rules ${VERSION.source} \\(published .+\\): 4 discounts`));
    expect(lines).toContain("Discounts (4):");
    expect(lines).toContain(
      '  summer10  code SUMMER10  percentage 10%  "Summer sale"  (min subtotal 50.00, min 2 units, from 2026-12-01T00:00:00Z, until 2026-12-31T23:59:59Z, limit 100 uses)',
    );
    expect(lines).toContain('  ship-free  automatic  free_shipping  "Free shipping over 100"  (min subtotal 100.00)');
    expect(lines).toContain("  Domestic (US): standard 5.00, express 15.00");
    expect(lines.at(-1)).toBe("Tax: exclusive, 1 rate, shipping not taxed");
  });

  it("a document the worker refuses is FILE: path: message (exit 2 in the CLI), nothing published", async () => {
    const before = await run({ action: "list" });
    const bad = { discounts: [{ ...CONTRACT_EXAMPLE.discounts[1], value: "5.001" }] };
    const error = await run({ action: "publish", file: "rules.json", document: bad }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RulesFileError);
    expect((error as Error).message).toMatch(/^rules\.json: discounts\[0\]\.value: .*two decimals/);
    expect(await run({ action: "list" })).toEqual(before);
  });

  it("--expect refuses to publish over another version (nothing changed), and rollback returns to the previous one", async () => {
    const moved = await run({
      action: "publish",
      file: "rules.json",
      document: {},
      expect: "20200101T000000Z-000000",
    }).catch((e: unknown) => e);
    expect(moved).toBeInstanceOf(RulesMovedError);
    expect((moved as Error).message).toMatch(
      /^The live rules are version \S+, not the one If-Match names\. Nothing changed/,
    );
    const [published] = await run({ action: "publish", file: "none.json", document: {} });
    expect(published).toMatch(/: 0 discounts, 0 shipping zones, no tax\.$/);
    const [back] = await run({ action: "rollback" });
    expect(back).toMatch(/^Rolled back: rules \S+ are live again \(were \S+\): 4 discounts \(2 with a code\)/);
  });

  it("list marks the live version and says what each version held", async () => {
    const lines = await run({ action: "list" });
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      new RegExp(`^ +1  \\S+  publish   ${VERSION.source}  \\(first\\)  4 discounts, 1 zone, tax exclusive$`),
    );
    expect(lines[1]).toMatch(/^ +2 .* publish .* from \S+ {2}0 discounts, 0 zones, no tax$/);
    expect(lines[2]).toMatch(/^\* +3 .* rollback /);
  });

  it("a wrong operator secret is the operator surface's 401, not a file error", async () => {
    const error = await run({ action: "show" }, "not-the-secret").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OperatorError);
    expect((error as OperatorError).status).toBe(401);
  });
});
