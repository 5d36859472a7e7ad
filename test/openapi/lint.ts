/**
 * `npm run check`'s OpenAPI lint, run by Node: builds both documents from the app's routes (the
 * same code that builds what /api/v1/openapi.json and /api/v1/operator/openapi.json serve), then
 *   1. validates each against the OpenAPI 3.1 JSON Schema (@seriousme/openapi-schema-validator),
 *   2. refuses components nothing refers to, examples naming data the seed catalog lacks, and
 *      paging sizes documented as anything but integers.
 * Prints one line per document and exits 1 with every problem listed when there is one.
 *
 *   node test/openapi/lint.ts            # both documents
 *   node test/openapi/lint.ts --write d  # also writes d/openapi.json and d/operator.openapi.json
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { buildOpenApiDocuments } from "../../src/cli/openapi-documents.ts";
import { pagingNotIntegers, seedExampleProblems, seedNames, unusedComponents, type Json } from "./rules.ts";

const seed = seedNames(JSON.parse(readFileSync(join(import.meta.dirname, "../../seed/catalog.json"), "utf8")));
const documents: [string, Json][] = (await buildOpenApiDocuments()).map(({ asset, document }) => [
  basename(asset),
  document,
]);

const write = process.argv.indexOf("--write");
if (write !== -1) {
  const dir = process.argv[write + 1] ?? ".";
  mkdirSync(dir, { recursive: true });
  for (const [name, doc] of documents) writeFileSync(join(dir, name), `${JSON.stringify(doc, null, 2)}\n`);
}

let failed = false;
for (const [name, doc] of documents) {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(doc));
  const problems = [
    ...(result.valid ? [] : [`not valid OpenAPI ${String(doc.openapi)}: ${JSON.stringify(result.errors, null, 1)}`]),
    ...unusedComponents(doc).map((ref) => `unused component ${ref}`),
    ...seedExampleProblems(doc, seed),
    ...pagingNotIntegers(doc),
  ];
  const operations = Object.values(doc.paths as Record<string, Json>).reduce(
    (n, item) => n + Object.keys(item).length,
    0,
  );
  if (problems.length === 0) {
    console.log(
      `openapi lint: ${name} is valid OpenAPI ${String(doc.openapi)} (${operations} operations), no unused components, examples from the seed`,
    );
  } else {
    failed = true;
    console.error(`openapi lint: ${name} has ${problems.length} problem(s):`);
    for (const problem of problems) console.error(`  - ${problem}`);
  }
}
process.exit(failed ? 1 : 0);
