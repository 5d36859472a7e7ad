import { spawnSync } from "node:child_process";
import { constants } from "node:buffer";
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli, STACK_FRAME } from "../helpers/cli.ts";
import { SNAPSHOT_FORMAT } from "../../src/browse/snapshot.ts";

/** The operator CLIs as the README names them: file under src/cli/ and npm script. */
const COMMANDS = [
  ["dev", "npm run dev"],
  ["catalog-generate", "npm run catalog:generate"],
  ["catalog-publish", "npm run catalog:publish"],
  ["catalog-rollback", "npm run catalog:rollback"],
  ["token", "npm run token"],
] as const;

const scratch = mkdtempSync(join(tmpdir(), "storefront-cli-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("every operator CLI: --help", () => {
  it.each(COMMANDS)("%s --help prints its usage and exits 0", async (name, script) => {
    for (const args of [["--help"], ["-h"]]) {
      const run = await runCli(name, args);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout.startsWith(`Usage: ${script} -- `)).toBe(true);
      expect(run.stdout).toContain("--help");
      expect(run.stderr).toBe("");
    }
  });

  it("token <command> --help is help too, not an error", async () => {
    const run = await runCli("token", ["revoke", "--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("revoke  --token TOKEN");
    expect(run.stderr).toBe("");
  });
});

describe("the operator surface's CLIs: where a command goes", () => {
  // One helper reads --remote, --url and --persist-to for stock, rules and orders (operatorTargetFrom).
  it.each([
    ["stock", ["show"]],
    ["rules", ["list"]],
    ["orders", ["list"]],
  ] as const)("%s --remote --persist-to refuses the pair as a usage error (exit 2)", async (name, args) => {
    const run = await runCli(name, [...args, "--remote", "--persist-to", "/tmp/nowhere"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--persist-to applies to --local only.");
    expect(run.stderr).not.toMatch(STACK_FRAME);
  });
});

describe("every operator CLI: a mistyped option", () => {
  it.each(COMMANDS)("%s --lcoal says which option is wrong and exits 2, without a stack trace", async (name) => {
    const run = await runCli(name, name === "token" ? ["list", "--lcoal"] : ["--lcoal"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Unknown option --lcoal.");
    expect(run.stderr).toContain("--help");
    expect(run.stderr).not.toMatch(STACK_FRAME);
    expect(run.stdout).toBe("");
  });

  it("suggests the option a typo meant", async () => {
    const run = await runCli("catalog-publish", ["--lcoal"]);
    expect(run.stderr).toContain("Did you mean --local?");
  });

  it.each([
    [["--products", "-5"], "--products", '"-5"'],
    [["--products=-5"], "--products", '"-5"'],
    [["--products", "ten"], "--products", '"ten"'],
    [["--products", "1.5"], "--products", '"1.5"'],
    [["--seed", "abc"], "--seed", '"abc"'],
    [["--seed"], "--seed", "needs a value"],
    [["--out"], "--out", "needs a value"],
  ])("catalog:generate %j names %s and exits 2", async (args, option, detail) => {
    const run = await runCli("catalog-generate", args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(option);
    expect(run.stderr).toContain(detail);
    expect(run.stderr).not.toMatch(STACK_FRAME);
    expect(run.stdout).toBe("");
  });

  it("refuses a non-numeric PORT for npm run dev, naming it", async () => {
    const run = await runCli("dev", [], { env: { PORT: "eighty" } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("PORT must be a port number");
    expect(run.stderr).not.toMatch(STACK_FRAME);
  });

  it.each([
    [["delete"], "Unknown command"],
    [[], "Missing command"],
    [["revoke"], "--id TOKEN_ID or --token TOKEN"],
    [["revoke", "--id", "tok_x", "--token", `sf_live_${"a".repeat(44)}`], "--id TOKEN_ID or --token TOKEN"],
    [["list", "--token", `sf_live_${"a".repeat(44)}`], "--token applies to revoke only"],
    [["rotate"], "rotate needs --id"],
    [["list", "--local", "--remote"], "--local or --remote"],
    [["issue", "--label"], "--label needs a value"],
  ])("token %j is a usage error (exit 2)", async (args, message) => {
    const run = await runCli("token", args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stderr).not.toMatch(STACK_FRAME);
  });

  it("does not repeat a malformed --token it refuses", async () => {
    const almost = "sf_live_not a token!";
    const run = await runCli("token", ["revoke", "--token", almost]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--token is not a storefront token");
    expect(run.stderr + run.stdout).not.toContain("not a token!");
  });
});

describe("catalog:publish and npm run dev: a broken JSON file", () => {
  it.each([
    ['{"currency": "USD",\n  "products": [1, 2,, 3]}', "2:21"],
    ['{"currency": "USD",\n  "products": }', "2:15"],
    ['{"currency": "USD",\n  "products": [', "2:16"],
    ['{"currency": "USD"}\n}', "2:1"],
  ])("names the file, the line and the column (%j at %s) and publishes nothing", async (text, position) => {
    const file = join(scratch, `broken-${position.replace(":", "-")}.json`);
    writeFileSync(file, text);
    const run = await runCli("catalog-publish", ["--persist-to", join(scratch, "state"), file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:${position}: invalid JSON: `),
    );
    expect(run.stderr).not.toMatch(STACK_FRAME);
    expect(run.stdout).not.toContain("Published");
  });

  it("names a file that is not there", async () => {
    const run = await runCli("catalog-publish", [join(scratch, "missing.json")]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(`${join(scratch, "missing.json")}: no such file`);
  });

  it("reads a file past V8's longest string as a stream, and names its fault's line and column", async () => {
    // Regression: a 1.5 GB catalog (1M generated products) was read whole and failed with
    // "cannot be read (ERR_STRING_TOO_LONG)"; then it was refused by its size. Now it streams
    // (src/cli/catalog-stream.ts): this sparse file (its size, no bytes written) is zeros, invalid
    // from its first byte.
    const file = join(scratch, "huge.json");
    writeFileSync(file, "");
    truncateSync(file, constants.MAX_STRING_LENGTH + 1);
    const run = await runCli("catalog-publish", ["--persist-to", join(scratch, "state"), file]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(`${file}:1:1: invalid JSON: expected a JSON object`);
    rmSync(file);
  });

  it("names the file, then the product and field, for a catalog that fails validation", async () => {
    const seed = JSON.parse(readFileSync("seed/catalog.json", "utf8")) as {
      products: { handle: string; title: unknown }[];
    };
    seed.products[0]!.title = 42;
    const file = join(scratch, "invalid.json");
    writeFileSync(file, JSON.stringify(seed));
    const run = await runCli("catalog-publish", ["--persist-to", join(scratch, "state"), file]);
    expect(run.code).toBe(2);
    expect(run.stderr.startsWith(`${file}: The catalog is invalid:`)).toBe(true);
    expect(run.stderr).toContain(seed.products[0]!.handle);
    expect(run.stderr).toContain("title");
    expect(run.stderr).toContain("Nothing was published.");
  });
});

describe("catalog:publish and live stock (issue 42 point 2)", () => {
  it("says how many levels it writes and keeps; --stock replace writes them all", async () => {
    const state = join(scratch, "stock-state");
    const seed = JSON.parse(readFileSync("seed/catalog.json", "utf8")) as {
      products: { variants: { price: string }[] }[];
    };
    const first = await runCli("catalog-publish", ["--persist-to", state, "seed/catalog.json"]);
    expect(first.code, first.stderr).toBe(0);
    // The seed tracks two variants, new to live stock: both written.
    expect(first.stdout).toContain(
      "Live stock: 2 levels written (new to tracking, or changed in the file since the last publish), 0 kept",
    );
    // A price edit: the quantities are the last publish's, so live levels stay.
    seed.products[0]!.variants[0]!.price = "31.00";
    const edited = join(scratch, "price-edit.json");
    writeFileSync(edited, JSON.stringify(seed));
    const second = await runCli("catalog-publish", ["--persist-to", state, edited]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain("Live stock: 0 levels written (new to tracking, or changed in the file");
    expect(second.stdout).toContain("), 2 kept (the live level stays)");
    seed.products[0]!.variants[0]!.price = "32.00";
    writeFileSync(edited, JSON.stringify(seed));
    const replaced = await runCli("catalog-publish", ["--persist-to", state, "--stock", "replace", edited]);
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(replaced.stdout).toContain("Live stock: 2 levels written (--stock replace), 0 kept");
    const wrong = await runCli("catalog-publish", ["--persist-to", state, "--stock", "reset", edited]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("--stock must be one of keep, replace");
  }, 180_000);
});

describe("--remote --dry-run", () => {
  it("catalog:publish marks every line it prints as a dry run and claims nothing went live", async () => {
    const run = await runCli("catalog-publish", ["--remote", "--dry-run", "seed/catalog.json"]);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines.length).toBeGreaterThan(4);
    for (const line of lines) expect(line).toMatch(/^\(dry run\) /);
    expect(run.stdout).not.toMatch(/\bentries written\b|the new catalog is live|\bPublished catalog/);
    expect(run.stdout).toContain("Would publish catalog");
    // The browse snapshot (built from a node:sqlite copy of the index) goes to R2 in chunks, then its manifest.
    const snapshot = `wrangler r2 object put storefront-browse/browse/v${SNAPSHOT_FORMAT}/`;
    expect(run.stdout).toMatch(new RegExp(`${snapshot}[\\w-]+/0 --file `));
    expect(run.stdout).toMatch(new RegExp(`${snapshot}[\\w-]+ --file `));
  });

  it("catalog:publish --shard-products cuts the browse index: one snapshot per shard, each in chunks under its manifest", async () => {
    const seed = JSON.parse(readFileSync("seed/catalog.json", "utf8")) as { products: unknown[] };
    const run = await runCli("catalog-publish", [
      "--remote",
      "--dry-run",
      "--shard-products",
      "10",
      "seed/catalog.json",
    ]);
    expect(run.code, run.stderr).toBe(0);
    const shards = Math.ceil(seed.products.length / 10);
    expect(shards).toBeGreaterThan(1);
    const manifests = run.stdout.match(
      new RegExp(`wrangler r2 object put storefront-browse/browse/v${SNAPSHOT_FORMAT}/[\\w-]+/s\\d+ --file `, "g"),
    );
    expect(manifests?.length).toBe(shards);
    for (let shard = 0; shard < shards; shard++)
      expect(run.stdout).toMatch(new RegExp(`browse/v${SNAPSHOT_FORMAT}/[\\w-]+/s${shard}/0 --file `));
    // No snapshot of the whole version: the shards' only.
    expect(run.stdout).not.toMatch(
      new RegExp(`wrangler r2 object put storefront-browse/browse/v${SNAPSHOT_FORMAT}/[\\w-]+ --file `),
    );
    const refused = await runCli("catalog-publish", ["--shard-products", "0"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--shard-products");
  });

  it("catalog:rollback marks its lines too, its error included", async () => {
    const run = await runCli("catalog-rollback", ["--remote", "--dry-run"]);
    for (const line of (run.stdout + run.stderr).trimEnd().split("\n")) expect(line).toMatch(/^\(dry run\) /);
  });

  it("--dry-run without --remote is refused instead of publishing for real under a dry-run label", async () => {
    for (const name of ["catalog-publish", "catalog-rollback"]) {
      const run = await runCli(name, ["--dry-run"]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("--dry-run applies to --remote only");
    }
  });
});

describe("catalog:generate without --out", () => {
  it("refuses on a terminal, saying to give --out (exit 2)", () => {
    // `script` gives the command a pseudo-terminal as its stdout, as an operator's shell would.
    const command = `${process.execPath} src/cli/catalog-generate.ts --products 3`;
    const run = spawnSync("script", ["-qec", command, "/dev/null"], {
      encoding: "utf8",
      env: { ...process.env, FORCE_COLOR: "0" },
    });
    expect(run.status).toBe(2);
    expect(run.stdout).toContain("Give --out FILE");
    expect(run.stdout).not.toContain('"products"');
  });

  it("writes the catalog to stdout when it is redirected, and to --out FILE", async () => {
    const piped = await runCli("catalog-generate", ["--products", "3", "--seed", "7"]);
    expect(piped.code, piped.stderr).toBe(0);
    expect((JSON.parse(piped.stdout) as { products: unknown[] }).products).toHaveLength(3);
    const out = join(scratch, "generated.json");
    const written = await runCli("catalog-generate", ["--products", "3", "--seed", "7", "--out", out]);
    expect(written.code).toBe(0);
    expect(written.stdout).toBe("");
    expect(readFileSync(out, "utf8")).toBe(piped.stdout);
  });
});
