/**
 * The bench's publish row for a catalog too large to generate in the bench's own process (1M
 * products: ~3.8 GiB as objects): `npm run catalog:publish -- --local` on a generated file, run as
 * the operator runs it, in a child process whose peak RSS (VmHWM) and workerd's are sampled.
 *
 *   npm exec -- node test/bench/publish-file.ts --products 1000000 [--file F]
 *
 * Without --file the catalog is generated (catalog:generate --seed 1, not timed) into a scratch
 * directory; with it, F is published (generated beforehand with the same command). The state goes
 * to a fresh scratch directory, deleted after. Prints the publish table of npm run bench with one
 * row; its "bench peak RSS" is the catalog:publish process's (test/bench/README.md).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineCli } from "../../src/cli/args.ts";
import { publishWithCli } from "./publish-cli.ts";
import { publishTable } from "./report.ts";

const cli = defineCli({
  command: "npm exec -- node test/bench/publish-file.ts",
  summary: "Publishes a generated catalog file with catalog:publish --local and prints the bench's publish row.",
  options: {
    products: { type: "integer", value: "N", min: 1, help: "products to generate (default 1000000)" },
    file: { type: "string", value: "FILE", help: "publish FILE instead of generating one" },
  },
});
const { values } = cli.parse();
const work = mkdtempSync(join(tmpdir(), "storefront-publish-bench-"));

try {
  let file = values.file;
  if (file === undefined) {
    const products = values.products ?? 1_000_000;
    file = join(work, `catalog-${products}.json`);
    process.stderr.write(`[bench] generating ${products} products into ${file}\n`);
    const generated = spawnSync(
      process.execPath,
      ["src/cli/catalog-generate.ts", "--products", String(products), "--seed", "1", "--out", file],
      { stdio: "inherit" },
    );
    if (generated.status !== 0) throw new Error("catalog:generate failed");
  }
  const { figures } = await publishWithCli(file, join(work, "state"));
  process.stdout.write(`${publishTable({ [`${Math.round(figures.products / 1000)}k`]: figures })}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
