import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { InputError } from "../../src/cli/args.ts";
import { readCatalogFile, SpilledProducts } from "../../src/cli/catalog-stream.ts";
import { catalogJsonChunks } from "../../src/cli/catalog-file.ts";
import { readJsonFile } from "../../src/cli/json-file.ts";
import { type JsonPart, JsonStreamError, readJsonObject } from "../../src/cli/json-stream.ts";
import { CatalogValidationError, parseCatalog, type SourceCatalog } from "../../src/catalog/schema.ts";
import { browseIndexSql } from "../../src/publish/browse-index.ts";
import { buildEntries, catalogDigest, planVersion } from "../../src/publish/build.ts";
import { CheckedCatalog } from "../../src/publish/catalog-input.ts";
import { generateCatalog } from "../../src/publish/generate.ts";

async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

// The publish CLI's reader of catalog files past V8's longest string (src/cli/json-stream.ts,
// catalog-stream.ts): it must give what JSON.parse and parseCatalog give, value for value, and say
// what is wrong where json-file.ts says it.

const scratch = mkdtempSync(join(tmpdir(), "storefront-stream-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let files = 0;
function fileOf(text: string): string {
  const file = join(scratch, `f${files++}.json`);
  writeFileSync(file, text);
  return file;
}

/** The object readJsonObject reads, put back together: the streamed arrays from their elements. */
function reassembled(parts: Iterable<JsonPart>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const part of parts) {
    if (part.kind === "field") out[part.key] = part.value;
    else if (part.kind === "array") out[part.key] = [];
    else (out[part.key] as unknown[]).push(part.value);
  }
  return out;
}

const TEXTS = {
  seed: readFileSync("seed/catalog.json", "utf8"),
  tricky: JSON.stringify(
    {
      'a"}]': 'x\\"]}[{',
      products: [
        { t: "é ü 中文 😀 \u2028", n: -1.5e-7, b: [true, false, null, [[], {}]], e: '"\\/\b\f\n\r\t\u0001' },
        [],
        "plain",
        42,
        { nested: { deeper: [{ "}": "]" }] } },
      ],
      empty: {},
      list: [1, 2, 3],
      n: 0,
    },
    null,
    2,
  ),
  compact: '{"products":[{"a":1},{"b":[2,3]}],"z":"\\u00e9"}',
  crlf: '{\r\n\t"products" : [ 1 ,\r\n 2 ] ,\r\n "x" : null }\r\n',
  noProducts: '{"currency":"USD"}',
  emptyProducts: '{"products":[],"after":true}',
  emptyObject: " {} ",
};

describe("readJsonObject: the same values as JSON.parse", () => {
  for (const [name, text] of Object.entries(TEXTS)) {
    it(`${name}, read with windows of 7 bytes to 16 MiB`, () => {
      const file = fileOf(text);
      for (const chunk of [7, 64, 4096, 16 << 20])
        expect(reassembled(readJsonObject(file, new Set(["products"]), chunk))).toEqual(JSON.parse(text));
    });
  }

  it("yields the products one at a time, each as JSON.parse gives it", () => {
    const file = fileOf(TEXTS.seed);
    const products = [...readJsonObject(file, new Set(["products"]), 1024)].filter((p) => p.kind === "element");
    expect(products.map((p) => p.value)).toEqual((JSON.parse(TEXTS.seed) as { products: unknown[] }).products);
  });
});

/** Where json-file.ts (the whole text through JSON.parse) says the first fault is. */
function wholeFileFault(file: string): string {
  try {
    readJsonFile(file);
  } catch (error) {
    if (error instanceof InputError) return error.message.slice(file.length + 1);
    throw error;
  }
  throw new Error(`${file} parsed`);
}

function streamFault(file: string, chunk: number): string {
  try {
    for (const _ of readJsonObject(file, new Set(["products"]), chunk));
  } catch (error) {
    if (error instanceof JsonStreamError)
      return `${error.position.line}:${error.position.column}: invalid JSON: ${error.message}`;
    throw error;
  }
  throw new Error(`${file} streamed`);
}

describe("readJsonObject: a syntax error names the line and column json-file.ts names", () => {
  it.each([
    ['{"currency": "USD",\n  "products": [1, 2,, 3]}'],
    ['{"currency": "USD",\n  "products": }'],
    ['{"currency": "USD",\n  "products": ['],
    ['{"currency": "USD"}\n}'],
    ['{"currency": "USD",\n  "products": [{"title": "é😀 tee", "x": tru}]}'],
    ['{"currency": "USD",\n  "products": [{"title": "é😀\n tee"}]}'],
    ['{"a": 1\n  "products": []}'],
    ['{"products": [{"a": 1}\n {"b": 2}]}'],
    ['{"products": [{"a": 1},\n {"b": 2,}]}'],
    ['{"products": [{"a": 1}, {"b": "x\\q"}]}'],
    ['{"products": [1]} x'],
    ['{"products": [{"a": "unterminated'],
    ['{"ok": 1, oops: 2}'],
    ['{"a": 01}'],
    ["\uFEFF{}"],
    [""],
    ["\u0000\u0000"],
  ])("%j", (text) => {
    const file = fileOf(text);
    const expected = wholeFileFault(file);
    for (const chunk of [5, 16 << 20]) expect(streamFault(file, chunk).split(": ")[0]).toBe(expected.split(": ")[0]);
  });
});

const CATALOG = generateCatalog({ products: 300, seed: 5 });

async function checked(file: string, wholeBytes?: number): Promise<{ catalog: CheckedCatalog; close(): void }> {
  const read = await readCatalogFile(file, wholeBytes);
  expect(read.input).toBeInstanceOf(CheckedCatalog);
  return { catalog: read.input as CheckedCatalog, close: read.close };
}

describe("readCatalogFile: what parseCatalog and catalogDigest give, the products on disk", () => {
  const file = join(scratch, "catalog.json");
  writeFileSync(file, [...catalogJsonChunks(CATALOG)].join(""));
  const parsed = parseCatalog(JSON.parse(readFileSync(file, "utf8")));

  it("each product, the digest and every other field", async () => {
    const { catalog, close } = await checked(file);
    try {
      const { products, ...rest } = catalog.catalog;
      const { products: expected, ...expectedRest } = parsed;
      expect(rest).toEqual(expectedRest);
      expect(products.length).toBe(expected.length);
      for (let i = 0; i < expected.length; i++) expect(products.at(i)).toEqual(expected[i]);
      expect(products.at(expected.length)).toBeUndefined();
      expect(catalog.digest).toBe(await catalogDigest(parsed));
    } finally {
      close();
    }
  });

  it("the same KV entries and browse index as the catalog in memory", async () => {
    const { catalog, close } = await checked(file);
    try {
      const meta = planVersion(parsed, "v1", "d", new Date(0));
      expect(planVersion(catalog.catalog, "v1", "d", new Date(0))).toEqual(meta);
      expect(await all(buildEntries(catalog.catalog, meta))).toEqual(await all(buildEntries(parsed, meta)));
      expect(await all(browseIndexSql(catalog.catalog, "v1"))).toEqual(await all(browseIndexSql(parsed, "v1")));
    } finally {
      close();
    }
  });

  it("SpilledProducts reads back what was pushed, in any order", () => {
    const list = new SpilledProducts();
    try {
      const lines = CATALOG.products.map((p) => JSON.stringify(p));
      for (const line of lines) list.push(line);
      for (const i of [5, 0, 299, 5, 150, 1]) expect(JSON.stringify(list.at(i))).toBe(lines[i]);
      expect([list.at(-1), list.at(300), list.at(1.5)]).toEqual([undefined, undefined, undefined]);
    } finally {
      list.close();
    }
  });
});

describe("readCatalogFile: faults in a file too large to read whole again", () => {
  const broken = (change: (c: SourceCatalog) => void): string => {
    const copy = structuredClone(CATALOG);
    change(copy);
    return fileOf([...catalogJsonChunks(copy)].join(""));
  };

  it("a product that fails validation: its index, handle and field, as parseCatalog says it", async () => {
    const file = broken((c) => {
      (c.products[7] as { title: unknown }).title = 42;
      c.products[9]!.handle = c.products[8]!.handle;
    });
    const error = await readCatalogFile(file, 0).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CatalogValidationError);
    const whole = (() => {
      try {
        parseCatalog(JSON.parse(readFileSync(file, "utf8")));
      } catch (e) {
        return e as CatalogValidationError;
      }
    })();
    expect((error as CatalogValidationError).issues).toEqual(whole?.issues);
    expect((error as CatalogValidationError).issues[0]).toContain(
      `products[7] (handle "${CATALOG.products[7]!.handle}")`,
    );
  });

  it("an unknown collection member, when every product is valid", async () => {
    const file = broken((c) => c.collections[0]!.products.push("no-such-product"));
    const error = (await readCatalogFile(file, 0).catch((e: unknown) => e)) as CatalogValidationError;
    expect(error).toBeInstanceOf(CatalogValidationError);
    expect(error.issues).toEqual([
      `collections[0] (handle "frontpage").products[${CATALOG.collections[0]!.products.length}]: no product has handle "no-such-product"`,
    ]);
  });

  it("a fault in the catalog's own fields", async () => {
    const file = broken((c) => {
      (c as { store: unknown }).store = {};
    });
    const error = (await readCatalogFile(file, 0).catch((e: unknown) => e)) as CatalogValidationError;
    expect(error).toBeInstanceOf(CatalogValidationError);
    expect(error.issues).toEqual(["store.name: Invalid input: expected string, received undefined"]);
  });

  it("not an object at all", async () => {
    const error = await readCatalogFile(fileOf("[1, 2]"), 0).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/:1:1: invalid JSON: expected a JSON object$/);
  });

  it("a syntax error: the file, line and column", async () => {
    const file = fileOf('{"currency": "USD",\n  "products": [{"a": 1}, {"b": tru}]}');
    const error = await readCatalogFile(file, 0).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toMatch(new RegExp(`^${file.replace(/[.]/g, "\\.")}:2:32: invalid JSON: `));
  });

  it("currency after the products: says to put it first", async () => {
    const { currency, products, ...rest } = CATALOG;
    const file = fileOf(JSON.stringify({ ...rest, products, currency }));
    const error = await readCatalogFile(file, 0).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toContain("gives currency or allow_http_urls after its products");
    // Read whole (the default for a file this small), the same file publishes.
    const read = await readCatalogFile(file);
    expect(parseCatalog(read.input).products.length).toBe(CATALOG.products.length);
  });
});
