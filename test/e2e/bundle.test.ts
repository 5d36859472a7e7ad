import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";

const WRANGLER = join(process.cwd(), "node_modules", "wrangler", "bin", "wrangler.js");
const outdir = mkdtempSync(join(tmpdir(), "storefront-bundle-"));

/**
 * Run by Node in the repository: imports the worker's entry (src/index.ts, the bundle's one entry,
 * with cloudflare:workers stood in for as src/cli/openapi-documents.ts does) and prints, as JSON,
 * every metadata zod's global registry was given while it loaded.
 */
const WATCH_REGISTRY = `
import { registerHooks } from "node:module";
registerHooks({
  resolve(specifier, context, next) {
    if (specifier === "cloudflare:workers")
      return { url: "data:text/javascript,export class DurableObject {}", shortCircuit: true };
    return next(specifier, context);
  },
});
const { globalRegistry } = await import("zod/mini");
const registered = [];
const add = globalRegistry.add.bind(globalRegistry);
globalRegistry.add = (schema, ...meta) => (registered.push(meta[0] ?? null), add(schema, ...meta));
await import("./src/index.ts");
process.stdout.write(JSON.stringify(registered));
`;

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe("the production bundle", () => {
  // Regression: `import { z } from "zod"` pulled zod's whole namespace, 364 KiB of locales
  // included, into the worker (173 KiB gzip). Sizes are counts, not timings: the same on any machine.
  it("builds with wrangler and stays within the 100 KiB gzip budget", () => {
    execFileSync(
      process.execPath,
      [WRANGLER, "deploy", "--dry-run", "--outdir", outdir, "--metafile", join(outdir, "meta.json")],
      {
        env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
        stdio: "pipe",
      },
    );
    const script = readFileSync(join(outdir, "index.js"));
    const gzipKiB = gzipSync(script).byteLength / 1024;
    expect(gzipKiB).toBeGreaterThan(10);
    expect(gzipKiB).toBeLessThanOrEqual(100);
  });

  // The OpenAPI documents are built by `npm run docs:assets` in Node and served as static assets:
  // their builder, the guide text and the schema conversion (about 12 KiB gzip) stay out of the worker.
  it("leaves the OpenAPI document builder and its guide out of the worker", () => {
    const meta = JSON.parse(readFileSync(join(outdir, "meta.json"), "utf8")) as { inputs: Record<string, unknown> };
    const inputs = Object.keys(meta.inputs);
    expect(inputs).toContain("src/routes/openapi.ts");
    const builder = [
      "src/openapi/openapi.ts",
      "src/openapi/document.ts",
      "src/openapi/json-schema.ts",
      "src/openapi/guide.ts",
    ];
    expect(inputs.filter((input) => builder.includes(input))).toEqual([]);
  });

  // Regression: every route's description (summaries, prose, examples, response schemas) rode in
  // the worker beside its handler, about 11 KiB gzip; routes now carry only an operationId.
  it("leaves the operations' descriptions (src/routes/reference/) out of the worker", () => {
    const meta = JSON.parse(readFileSync(join(outdir, "meta.json"), "utf8")) as { inputs: Record<string, unknown> };
    const inputs = Object.keys(meta.inputs);
    expect(inputs).toContain("src/routes/products.ts");
    expect(inputs.filter((input) => input.startsWith("src/routes/reference/"))).toEqual([]);
    expect(inputs.filter((input) => input.endsWith("src/openapi/seed-examples.ts"))).toEqual([]);
  });

  // Regression: the schemas' ids, descriptions and examples (`.register(z.globalRegistry, {…})` in
  // src/<room>/) rode in the worker, about 10.7 KB gzip; they are attached in Node by
  // src/routes/reference/schemas/<room>.ts. Checked by what loading the worker does, not by its
  // text: the worker's entry is imported in Node with zod's registry watched, and must register
  // nothing, however the call is spelled. Failing? Move the metadata it lists into that room's
  // module as `documentSchema(schema, meta)` (src/openapi/schema-docs.ts says how to reach a nested schema).
  it("leaves the schemas' documentation (src/routes/reference/schemas/) out of the worker", () => {
    const meta = JSON.parse(readFileSync(join(outdir, "meta.json"), "utf8")) as { inputs: Record<string, unknown> };
    const inputs = Object.keys(meta.inputs);
    expect(inputs).toContain("src/catalog/api.ts");
    expect(inputs.filter((input) => input.endsWith("src/openapi/schema-docs.ts"))).toEqual([]);
    const registered = JSON.parse(
      execFileSync(process.execPath, ["--input-type=module", "--eval", WATCH_REGISTRY], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      }),
    ) as unknown[];
    expect(registered).toEqual([]);
  });

  // The operator stock surface's answer schemas (about 1.1 KiB gzip with their descriptions) are
  // the reference's and the CLI's: the worker builds those answers without them.
  it("leaves the stock answers' schemas (src/stock/results.ts) out of the worker", () => {
    const meta = JSON.parse(readFileSync(join(outdir, "meta.json"), "utf8")) as { inputs: Record<string, unknown> };
    const inputs = Object.keys(meta.inputs);
    expect(inputs).toContain("src/stock/api.ts");
    expect(inputs).not.toContain("src/stock/results.ts");
  });

  // The source catalog format and its checks (src/catalog/schema.ts, 2,243 bytes gzip) are the
  // publish's and the importer's: the worker validates handles, variant ids and the stock policy
  // with the few fields it needs, src/catalog/fields.ts.
  it("leaves the source catalog format (src/catalog/schema.ts) out of the worker", () => {
    const meta = JSON.parse(readFileSync(join(outdir, "meta.json"), "utf8")) as { inputs: Record<string, unknown> };
    const inputs = Object.keys(meta.inputs);
    expect(inputs).toContain("src/catalog/fields.ts");
    expect(inputs).not.toContain("src/catalog/schema.ts");
  });

  // POST /operator/catalog/changes hands the batch to the catalog writer over a service binding:
  // its schema, sanitiser and writer (about 89 KB gzip) are the writer Worker's, never the storefront's.
  it("leaves the catalog writer (src/writer/, src/publish/, sanitize-html) out of the worker", () => {
    const meta = JSON.parse(readFileSync(join(outdir, "meta.json"), "utf8")) as { inputs: Record<string, unknown> };
    const inputs = Object.keys(meta.inputs);
    expect(inputs).toContain("src/routes/operator-catalog.ts");
    expect(
      inputs.filter((input) => /^src\/(writer|publish)\/|^src\/catalog\/changes\.ts$|sanitize-html/.test(input)),
    ).toEqual([]);
  });
});

describe("the catalog writer's bundle (writer/wrangler.toml)", () => {
  const writerOut = join(outdir, "writer");
  // Its own Worker, with the same budget: the batch writer, the catalog schema and sanitize-html,
  // postcss aliased to a stub (sanitize-html parses style attributes with it, never allowed here).
  it("builds with wrangler and stays within the 100 KiB gzip budget, postcss left out", () => {
    execFileSync(
      process.execPath,
      [
        WRANGLER,
        "deploy",
        "--dry-run",
        "--config",
        "writer/wrangler.toml",
        "--outdir",
        writerOut,
        "--metafile",
        join(writerOut, "meta.json"),
      ],
      { env: { ...process.env, WRANGLER_SEND_METRICS: "false" }, stdio: "pipe" },
    );
    const gzipKiB = gzipSync(readFileSync(join(writerOut, "index.js"))).byteLength / 1024;
    expect(gzipKiB).toBeGreaterThan(10);
    expect(gzipKiB).toBeLessThanOrEqual(100);
    const inputs = Object.keys(
      (JSON.parse(readFileSync(join(writerOut, "meta.json"), "utf8")) as { inputs: Record<string, unknown> }).inputs,
    );
    // Paths are the config's directory's (writer/): ../src/writer/apply.ts.
    expect(inputs.some((input) => input.endsWith("src/writer/apply.ts"))).toBe(true);
    expect(inputs.some((input) => input.includes("node_modules/sanitize-html/"))).toBe(true);
    expect(inputs.filter((input) => input.includes("node_modules/postcss/"))).toEqual([]);
  });
});
