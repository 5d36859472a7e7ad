import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineCli } from "../../src/cli/args.ts";
import { benchCatalogFile, publishWithCli } from "./publish-cli.ts";
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
  const file = benchCatalogFile(values.file, values.products ?? 1_000_000, work);
  const { figures } = await publishWithCli(file, join(work, "state"));
  process.stdout.write(`${publishTable({ [`${Math.round(figures.products / 1000)}k`]: figures })}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
