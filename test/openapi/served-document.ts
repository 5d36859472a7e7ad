import { Validator } from "@cfworker/json-schema";
import type { Json } from "./rules.ts";

/**
 * Checks real responses against an OpenAPI document as a client that knows only the document
 * would: it finds the operation by method and path template, then requires the status to be
 * declared, the declared headers to be sent, and the body to match the declared media type and
 * JSON Schema. The schemas are checked by @cfworker/json-schema, which interprets them (workerd
 * forbids the code generation Ajv compiles with), with `$ref`s resolved inside the document.
 */
function withoutExamples(node: unknown, key?: string): unknown {
  if (Array.isArray(node)) return node.map((item) => withoutExamples(item));
  if (node === null || typeof node !== "object") return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    if (key !== "properties" && (k === "example" || k === "examples")) continue;
    out[k] = withoutExamples(v, k);
  }
  return out;
}

export class ServedDocument {
  readonly #doc: Json;
  readonly #base: string;
  /** `METHOD path-template status`, for every response checked. */
  readonly answered = new Set<string>();

  constructor(doc: Json, base: string) {
    this.#doc = doc;
    this.#base = base;
    this.#schemas = withoutExamples(doc) as Json;
  }

  /** The document as the validator reads it: examples are annotations, and their `id` fields would read as schema ids. */
  readonly #schemas: Json;

  /** Every documented `METHOD path-template status`. */
  documented(): string[] {
    const out: string[] = [];
    for (const [path, item] of Object.entries(this.#doc.paths as Record<string, Record<string, Json>>)) {
      for (const [method, op] of Object.entries(item)) {
        for (const status of Object.keys(op.responses as Json)) out.push(`${method.toUpperCase()} ${path} ${status}`);
      }
    }
    return out;
  }

  /** The documented path template a concrete path matches, if any (literal paths before templates). */
  template(pathname: string): string | undefined {
    const paths = Object.keys(this.#doc.paths as Json).sort((a, b) => a.split("{").length - b.split("{").length);
    return paths.find((template) => {
      const pattern = template
        .split("/")
        .map((segment) => (/^\{[^}]+\}$/.test(segment) ? "[^/]+" : segment.replace(/[.*+?^$()|[\]\\]/g, "\\$&")));
      return new RegExp(`^${pattern.join("/")}$`).test(pathname);
    });
  }

  /**
   * The problems with one answer; an empty list means it conforms. `optionalHeaders` may be
   * missing although declared (they depend on the request: a replay, an Origin).
   */
  async problems(method: string, url: string, res: Response, optionalHeaders: ReadonlySet<string>): Promise<string[]> {
    const pathname = new URL(url).pathname;
    const template = this.template(pathname);
    const where = `${method} ${template ?? pathname} ${res.status}`;
    // HEAD is not listed (the guide says it works wherever GET does): it answers the GET's statuses and headers, no body.
    const head = method.toUpperCase() === "HEAD";
    const item = template ? (this.#doc.paths as Record<string, Record<string, Json>>)[template] : undefined;
    const op = (head ? item?.get : item?.[method.toLowerCase()]) as Json | undefined;
    if (template && !op && res.status === 405) return this.#methodNotAllowed(where, res);
    if (!template || !op) return [`${method} ${pathname} is not documented`];
    const response = (op.responses as Record<string, Json>)[String(res.status)];
    if (!response)
      return [`${where} is not a documented status (documented: ${Object.keys(op.responses as Json).join(", ")})`];
    this.answered.add(where);
    const problems: string[] = [];
    for (const header of Object.keys((response.headers ?? {}) as Json)) {
      if (!optionalHeaders.has(header) && !res.headers.has(header))
        problems.push(`${where}: the documented header ${header} is missing`);
    }
    const text = await res.text();
    const content = head ? undefined : (response.content as Record<string, Json> | undefined);
    if (!content) {
      if (text !== "") problems.push(`${where}: a body was sent where none is documented`);
      return problems;
    }
    const type = (res.headers.get("content-type") ?? "").split(";")[0]?.trim() ?? "";
    const media = content[type];
    if (!media)
      return [
        ...problems,
        `${where}: media type ${type || "(none)"} is not documented (documented: ${Object.keys(content).join(", ")})`,
      ];
    const body: unknown = type === "application/json" ? JSON.parse(text) : text;
    const pointer = [
      "paths",
      template,
      method.toLowerCase(),
      "responses",
      String(res.status),
      "content",
      type,
      "schema",
    ]
      .map((part) => part.replaceAll("~", "~0").replaceAll("/", "~1"))
      .join("/");
    return [...problems, ...this.#mismatch(where, pointer, body)];
  }

  /** Whether `value` conforms to the schema at `pointer` (`components/schemas/StockChange`), as a client reading the document judges it. */
  accepts(pointer: string, value: unknown): boolean {
    const validator = new Validator({ $ref: `${this.#base}#/${pointer}` }, "2020-12", false);
    validator.addSchema(this.#schemas as never, this.#base);
    return validator.validate(value).valid;
  }

  #mismatch(where: string, pointer: string, body: unknown): string[] {
    const validator = new Validator({ $ref: `${this.#base}#/${pointer}` }, "2020-12", false);
    validator.addSchema(this.#schemas as never, this.#base);
    const result = validator.validate(body);
    if (result.valid) return [];
    return [
      `${where}: the body does not match the documented schema: ${result.errors
        .map((e) => `${e.instanceLocation} ${e.error}`)
        .slice(0, 5)
        .join("; ")}`,
    ];
  }

  /**
   * A documented path refusing a method it has no operation for: no operation can declare that
   * answer, so it is held to the document's description (the error envelope, and `Allow`).
   */
  async #methodNotAllowed(where: string, res: Response): Promise<string[]> {
    const problems = res.headers.has("Allow") ? [] : [`${where}: a 405 without Allow`];
    return [...problems, ...this.#mismatch(where, "components/schemas/ErrorResponse", await res.json())];
  }
}
