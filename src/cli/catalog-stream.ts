import { constants } from "node:buffer";
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CatalogStreamCheck, CatalogValidationError, type SourceProduct } from "../catalog/schema.ts";
import { CatalogDigest } from "../publish/build.ts";
import { CheckedCatalog, type ProductList } from "../publish/catalog-input.ts";
import { descriptionLossWarning, descriptionLossWarnings } from "../publish/sanitize.ts";
import { InputError } from "./args.ts";
import { fileError, readJsonFile } from "./json-file.ts";
import { JsonStreamError, readJsonObject } from "./json-stream.ts";

/**
 * Validated products as JSON lines in a scratch file, read back by position: the publish of a
 * million products holds their offsets (8 bytes each), not a million product objects (~2.3 KiB
 * each in V8's heap). Each `at` parses its product anew, except the last few asked for.
 */
export class SpilledProducts implements ProductList {
  readonly #dir: string;
  readonly #fd: number;
  /** Byte offset of each product's line, and of the end after the last. */
  #offsets = new Float64Array(1 << 16);
  #length = 0;
  #pending: string[] = [];
  #pendingBytes = 0;
  #written = 0;
  #scratch = Buffer.alloc(1 << 16);
  readonly #cache = new Map<number, SourceProduct>();

  constructor() {
    this.#dir = mkdtempSync(join(tmpdir(), "storefront-publish-"));
    this.#fd = openSync(join(this.#dir, "products.jsonl"), "w+");
  }

  get length(): number {
    return this.#length;
  }

  /** Appends a product, given as its JSON text. */
  push(json: string): void {
    const bytes = Buffer.byteLength(json);
    if (this.#length + 1 >= this.#offsets.length) {
      const grown = new Float64Array(this.#offsets.length * 2);
      grown.set(this.#offsets);
      this.#offsets = grown;
    }
    const start = this.#offsets[this.#length] as number;
    this.#offsets[++this.#length] = start + bytes;
    this.#pending.push(json);
    this.#pendingBytes += bytes;
    if (this.#pendingBytes >= 4 << 20) this.#flush();
  }

  #flush(): void {
    if (this.#pending.length === 0) return;
    const bytes = Buffer.from(this.#pending.join(""));
    for (let done = 0; done < bytes.length; )
      done += writeSync(this.#fd, bytes, done, bytes.length - done, this.#written + done);
    this.#written += bytes.length;
    this.#pending = [];
    this.#pendingBytes = 0;
  }

  at(index: number): SourceProduct | undefined {
    if (!Number.isInteger(index) || index < 0 || index >= this.#length) return undefined;
    const cached = this.#cache.get(index);
    if (cached) return cached;
    this.#flush();
    const start = this.#offsets[index] as number;
    const size = (this.#offsets[index + 1] as number) - start;
    if (size > this.#scratch.length) this.#scratch = Buffer.alloc(Math.max(size, this.#scratch.length * 2));
    for (let done = 0; done < size; ) {
      const n = readSync(this.#fd, this.#scratch, done, size - done, start + done);
      if (n === 0) throw new Error(`the scratch file of products ended early (product ${index})`);
      done += n;
    }
    const product = JSON.parse(this.#scratch.toString("utf8", 0, size)) as SourceProduct;
    // Successive reads of one product (a record, then its image) parse it once.
    if (this.#cache.size >= 4) this.#cache.delete(this.#cache.keys().next().value as number);
    this.#cache.set(index, product);
    return product;
  }

  /** Closes and deletes the scratch file. */
  close(): void {
    closeSync(this.#fd);
    rmSync(this.#dir, { recursive: true, force: true });
  }
}

/** A catalog file read for publishing, and its scratch files to delete when done. */
export interface CatalogRead {
  /** What publishTo takes: a CheckedCatalog, or (when the file was read whole) the parsed JSON. */
  input: unknown;
  /** catalog:publish's warnings about the products' descriptions (descriptionLossWarnings). */
  warnings: string[];
  close(): void;
}

/** A catalog file whose products come before its `currency` or `allow_http_urls`, which their checks need. */
class HeadAfterProducts extends Error {}

/**
 * Reads, validates and digests a catalog file a product at a time (json-stream.ts), the products
 * going to a scratch file (SpilledProducts): no string of the whole file (V8's longest is ~512 MiB,
 * ~330,000 generated products) and no million product objects. A file that fails and is small
 * enough to read whole is read again by readJsonFile and parseCatalog, so every fault is said as
 * they say it (a syntax error's line and column, up to 20 validation faults in their order).
 * docs/decisions/0002-publish-memory.md has the figures.
 */
export async function readCatalogFile(
  file: string,
  /** The largest file read whole again to say what is wrong with it (tests lower it). */
  wholeBytes = constants.MAX_STRING_LENGTH,
): Promise<CatalogRead> {
  let size: number;
  try {
    size = statSync(file).size;
  } catch (error) {
    throw fileError(error, file);
  }
  const products = new SpilledProducts();
  try {
    const { catalog, warnings } = await streamCatalog(file, products);
    return { input: catalog, warnings, close: () => products.close() };
  } catch (error) {
    products.close();
    const fault =
      error instanceof JsonStreamError || error instanceof CatalogValidationError || error instanceof HeadAfterProducts;
    if (fault && size <= wholeBytes) {
      const input = readJsonFile(file);
      return { input, warnings: descriptionLossWarnings(input), close: () => {} };
    }
    if (error instanceof JsonStreamError)
      throw new InputError(`invalid JSON: ${error.message}`, { file, ...error.position });
    if (error instanceof HeadAfterProducts) throw new InputError(error.message, { file });
    if (typeof (error as { code?: unknown }).code === "string") throw fileError(error, file);
    throw error;
  }
}

async function streamCatalog(
  file: string,
  products: SpilledProducts,
): Promise<{ catalog: CheckedCatalog; warnings: string[] }> {
  const head: Record<string, unknown> = {};
  const digest = new CatalogDigest();
  const warnings: string[] = [];
  let check: CatalogStreamCheck | undefined;
  let checkedWith: [unknown, unknown] = [undefined, undefined];
  let index = 0;
  for (const part of readJsonObject(file, new Set(["products"]))) {
    if (part.kind === "field") {
      head[part.key] = part.value;
      continue;
    }
    if (part.kind === "array") {
      head.products = [];
      continue;
    }
    if (!check) {
      check = new CatalogStreamCheck(head);
      checkedWith = [head.currency, head.allow_http_urls];
    }
    const product = check.product(part.value);
    const warning = descriptionLossWarning(part.value, index++);
    if (warning) warnings.push(warning);
    if (product && !check.failed) {
      const line = JSON.stringify(product);
      products.push(line);
      await digest.add(line);
    }
  }
  if (check && (head.currency !== checkedWith[0] || head.allow_http_urls !== checkedWith[1]))
    throw new HeadAfterProducts(
      "gives currency or allow_http_urls after its products: a catalog this large is read a " +
        "product at a time, and the products' prices and URLs are checked against them, so put " +
        "them first (as catalog:generate and catalog:import write them)",
    );
  const rest = (check ?? new CatalogStreamCheck(head)).finish(head);
  return { catalog: new CheckedCatalog({ ...rest, products }, await digest.finish(rest)), warnings };
}
