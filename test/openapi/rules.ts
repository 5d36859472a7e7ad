/**
 * Checks of an OpenAPI document that no general validator makes: components nothing refers to,
 * and examples naming data the seed catalog does not hold. Shared by the workerd tests and the
 * `npm run check` lint (test/openapi/lint.ts), so both hold the served document to one rule.
 */

export type Json = { [key: string]: unknown };

const COMPONENT_KINDS = [
  "schemas",
  "responses",
  "parameters",
  "examples",
  "requestBodies",
  "headers",
  "securitySchemes",
  "links",
  "callbacks",
  "pathItems",
];

function walk(node: unknown, visit: (value: Json, key: string | undefined) => void, key?: string): void {
  if (Array.isArray(node)) for (const item of node) walk(item, visit, key);
  else if (node !== null && typeof node === "object") {
    visit(node as Json, key);
    for (const [childKey, child] of Object.entries(node)) walk(child, visit, childKey);
  }
}

/**
 * Components no operation reaches, directly or through other components (a chain of dead
 * types is reported whole), as `#/components/<kind>/<name>`. Security schemes count as used
 * when a security requirement names them.
 */
export function unusedComponents(doc: Json): string[] {
  const components = (doc.components ?? {}) as Record<string, Record<string, unknown>>;
  const reached = new Set<string>();
  const pending: unknown[] = [doc.paths, doc.webhooks, doc.security];
  while (pending.length > 0) {
    walk(pending.pop(), (value, key) => {
      const ref = value.$ref;
      if (typeof ref === "string" && ref.startsWith("#/components/") && !reached.has(ref)) {
        reached.add(ref);
        const [, , kind, name] = ref.split("/");
        pending.push(components[kind ?? ""]?.[name ?? ""]);
      }
      if (key === "security") {
        for (const name of Object.keys(value)) reached.add(`#/components/securitySchemes/${name}`);
      }
    });
  }
  // `security` is an array of requirement objects: the walk visits each with key "security".
  const unused: string[] = [];
  for (const kind of COMPONENT_KINDS) {
    for (const name of Object.keys(components[kind] ?? {})) {
      const ref = `#/components/${kind}/${name}`;
      if (!reached.has(ref)) unused.push(ref);
    }
  }
  return unused;
}

/** What the seed catalog holds, as the examples may name it. */
export interface SeedNames {
  handles: Set<string>;
  productIds: Set<string>;
  variantIds: Set<string>;
}

/** The names of `seed/catalog.json` (products, their variants, collections). */
export function seedNames(seed: {
  products: { id: string; handle: string; variants: { id: string }[] }[];
  collections: { handle: string }[];
}): SeedNames {
  return {
    handles: new Set([...seed.products.map((p) => p.handle), ...seed.collections.map((c) => c.handle)]),
    productIds: new Set(seed.products.map((p) => p.id)),
    variantIds: new Set(seed.products.flatMap((p) => p.variants.map((v) => v.id))),
  };
}

const HANDLE_PATTERN = "^[a-z0-9]+(-[a-z0-9]+)*$";
const HANDLE_KEYS = new Set(["handle", "product_handle", "starting_after", "ending_before"]);
const VARIANT_GID = /^gid:\/\/shopify\/ProductVariant\/(\d+)$/;
const PRODUCT_GID = /^gid:\/\/shopify\/Product\/\d+$/;
const PRODUCT_URL = /^\/api\/v1\/products\/([^/?]+)$/;

/** Problems with one example value: every handle, product and variant it names must be in the seed. */
function exampleProblems(value: unknown, seed: SeedNames, where: string, handleSchema: boolean): string[] {
  const problems: string[] = [];
  const check = (text: string, key: string | undefined) => {
    const variant =
      VARIANT_GID.exec(text)?.[1] ?? (key === "variant_id" || /^\d{11,20}$/.test(text) ? text : undefined);
    if (variant !== undefined && !seed.variantIds.has(variant))
      problems.push(`${where}: variant ${text} is not in the seed catalog`);
    if (PRODUCT_GID.test(text) && !seed.productIds.has(text))
      problems.push(`${where}: product ${text} is not in the seed catalog`);
    const url = PRODUCT_URL.exec(text)?.[1];
    if (url !== undefined && !seed.handles.has(url))
      problems.push(`${where}: ${text} names a product not in the seed catalog`);
    if ((handleSchema || (key !== undefined && HANDLE_KEYS.has(key))) && !seed.handles.has(text))
      problems.push(`${where}: handle ${text} is not in the seed catalog`);
  };
  if (typeof value === "string") check(value, undefined);
  walk(value, (node) => {
    for (const [key, child] of Object.entries(node)) if (typeof child === "string") check(child, key);
  });
  return problems;
}

/**
 * Every example in the document (schema `example`s and `examples`, media and parameter
 * `examples`) checked against the seed catalog, so mock servers and the rendered reference show
 * data the API really serves. Error examples are checked too (their messages are free text).
 */
export function seedExampleProblems(doc: Json, seed: SeedNames): string[] {
  const problems: string[] = [];
  walk(doc, (node, key) => {
    const handleSchema = node.pattern === HANDLE_PATTERN;
    if ("example" in node && key !== "properties")
      problems.push(...exampleProblems(node.example, seed, "example", handleSchema));
    const examples = node.examples;
    if (Array.isArray(examples))
      for (const example of examples) problems.push(...exampleProblems(example, seed, "examples", handleSchema));
    else if (examples !== null && typeof examples === "object" && key !== "properties") {
      for (const [name, example] of Object.entries(examples as Record<string, Json>))
        problems.push(...exampleProblems(example?.value, seed, `examples.${name}`, false));
    }
  });
  return problems;
}

/**
 * Paging sizes and offsets (`limit`, `offset`, `page`, `per_page`, `page_size`) not documented as
 * integers: a generated client would type them as strings. Ids made of
 * digits (variant cursors) and decimal amounts (`price_min`) are strings by design, so the rule
 * goes by name. A zod string-to-number pipe is documented as its number (src/openapi/json-schema.ts).
 */
export function pagingNotIntegers(doc: Json): string[] {
  const problems: string[] = [];
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(item)) {
      for (const parameter of (op.parameters ?? []) as Json[]) {
        const schema = (parameter.schema ?? {}) as Json;
        if (
          parameter.in === "query" &&
          /^(limit|offset|page|per_page|page_size)$/.test(String(parameter.name)) &&
          schema.type !== "integer"
        ) {
          problems.push(
            `${method.toUpperCase()} ${path}: query parameter ${String(parameter.name)} is not documented as an integer`,
          );
        }
      }
    }
  }
  return problems;
}
