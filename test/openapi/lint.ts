/**
 * `npm run check`'s OpenAPI lint, run by Node: builds both documents from the app's routes (the
 * same code that serves /api/v1/openapi.json and /api/v1/operator/openapi.json), then
 *   1. validates each against the OpenAPI 3.1 JSON Schema (@seriousme/openapi-schema-validator),
 *   2. refuses components nothing refers to, examples naming data the seed catalog lacks, and
 *      paging sizes documented as anything but integers.
 * Prints one line per document and exits 1 with every problem listed when there is one.
 *
 *   node test/openapi/lint.ts            # both documents
 *   node test/openapi/lint.ts --write d  # also writes d/openapi.json and d/operator.openapi.json
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { registerHooks } from "node:module";
import { join } from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { pagingNotIntegers, seedExampleProblems, seedNames, unusedComponents, type Json } from "./rules.ts";

// The worker's entry exports the cart's Durable Object class, whose base class exists only in
// workerd; under Node it is stood in for, since building the documents never runs it.
registerHooks({
  resolve(specifier, context, next) {
    if (specifier === "cloudflare:workers")
      return { url: "data:text/javascript,export class DurableObject {}", shortCircuit: true };
    return next(specifier, context);
  },
});

const { apiReference } = await import("../../src/openapi/openapi.ts");
await import("../../src/index.ts");

const seed = seedNames(JSON.parse(readFileSync(join(import.meta.dirname, "../../seed/catalog.json"), "utf8")));
const documents: [string, Json][] = [
  ["openapi.json", apiReference.publicDocument()],
  ["operator.openapi.json", apiReference.operatorDocument()],
];

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
