import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { OperatorError } from "../../src/cli/operator-client.ts";
import { parseChange, runStockCommand, StockClient, type StockCommand } from "../../src/cli/stock-client.ts";
import { BASE, OPERATOR_SECRET } from "../helpers/cart.ts";
import { publishSeedCatalog } from "../helpers/catalog.ts";

/** npm run stock's logic (src/cli/stock.ts parses the real command line) against the real worker. */

const M_NAVY = "44102938475615";
const S_NAVY = "44102938475614";

function client(secret = OPERATOR_SECRET): StockClient {
  return new StockClient(BASE, secret, (input, init) => exports.default.fetch(input, init));
}

function command(action: StockCommand["action"], args: string[], key = `cli-${crypto.randomUUID()}`): StockCommand {
  if (action === "show") return { action, changes: [], show: args, key };
  if (action === "untrack")
    return { action, changes: args.map((id) => ({ variant_id: id, track: false })), show: [], key };
  return { action, changes: args.map((a) => parseChange(action, a)!), show: [], key };
}

beforeAll(async () => {
  await publishSeedCatalog();
});

describe("npm run stock", () => {
  it("reads ID=NUMBER pairs, and nothing else", () => {
    expect(parseChange("set", `${M_NAVY}=12`)).toEqual({ variant_id: M_NAVY, set: 12 });
    expect(parseChange("adjust", `gid://shopify/ProductVariant/${M_NAVY}=-2`)).toEqual({
      variant_id: `gid://shopify/ProductVariant/${M_NAVY}`,
      adjust: -2,
    });
    for (const bad of ["12", "x=1", "12=1.5", "12=", "=3"]) expect(parseChange("set", bad)).toBeNull();
  });

  it("set and adjust print each change and the levels; show prints the level and its movement log", async () => {
    const set = await runStockCommand(command("set", [`${M_NAVY}=12`, `${S_NAVY}=2`]), client());
    expect(set[0]).toMatch(/^Applied batch cli-\S+ \(2 changes\):$/);
    expect(set).toContain(`  #0 ${M_NAVY}: 3 -> 12`);
    expect(
      set.some((l) => l.includes(`${S_NAVY}  quantity=2`) && l.endsWith("in stock  (tracked by the catalog)")),
    ).toBe(true);
    const key = `cli-${crypto.randomUUID()}`;
    const adjusted = await runStockCommand(command("adjust", [`${M_NAVY}=-2`], key), client());
    expect(adjusted).toContain(`  #0 ${M_NAVY}: 12 -> 10`);
    // Run again with its key (after a lost answer): nothing is applied twice.
    const again = await runStockCommand(command("adjust", [`${M_NAVY}=-2`], key), client());
    expect(again[0]).toMatch(/^Already applied batch/);
    expect(again).toContain(`  #0 ${M_NAVY}: 12 -> 10 (applied by an earlier try)`);
    const shown = await runStockCommand(command("show", [M_NAVY]), client());
    expect(shown[0]).toBe(
      `${M_NAVY}  quantity=10  held=0  available=10  policy=deny  in stock  (tracked by the catalog)`,
    );
    expect(shown.slice(1).map((l) => l.split("  ").slice(2, 4).join(" "))).toEqual([
      "publish/set +3",
      "operator/set +9",
      "operator/adjust -2",
    ]);
  });

  it("show without an id says what the live version's publish wrote and kept in live stock", async () => {
    const lines = await runStockCommand(command("show", []), client());
    expect(lines[0]).toMatch(
      /^Catalog \S+: 2 tracked variants; its publish wrote 2 levels \(2 of them changed\), kept 0 live and stopped tracking 0\.$/,
    );
    expect(lines[1]).toBe("Stock objects: 16 shards (STOCK_SHARDS).");
  });

  it("set starts tracking a variant the catalog does not track, and untrack stops it, each saying so (issue 42 point 4)", async () => {
    const untracked = "44102938475610"; // essential-crew-tee-white, L
    const started = await runStockCommand(command("set", [`${untracked}=4`]), client());
    expect(started).toContain(`  #0 ${untracked}: 0 -> 4 (started tracking: its level decides from now on)`);
    expect(started.some((l) => l.endsWith("in stock  (tracked by the operator)"))).toBe(true);
    const stopped = await runStockCommand(command("untrack", [untracked]), client());
    expect(stopped).toContain(`  #0 ${untracked}: 4 -> 0 (stopped tracking: the catalog's available decides again)`);
    expect(stopped).toContain(`  ${untracked}  not tracked (the catalog's available decides)`);
  });

  it("reports the operator surface's refusal (an unknown variant) and changes nothing", async () => {
    const before = await runStockCommand(command("show", [M_NAVY]), client());
    const failed = runStockCommand(command("set", ["123=1", `${M_NAVY}=0`]), client());
    await expect(failed).rejects.toBeInstanceOf(OperatorError);
    await expect(failed).rejects.toMatchObject({ status: 400, message: expect.stringContaining("no variant 123") });
    expect((await runStockCommand(command("show", [M_NAVY]), client()))[0]).toBe(before[0]);
    await expect(runStockCommand(command("show", [M_NAVY]), client("wrong-secret-0123456"))).rejects.toMatchObject({
      status: 401,
    });
  });
});
