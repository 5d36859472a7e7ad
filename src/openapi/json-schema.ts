import * as z from "zod";

/** A JSON Schema (2020-12, the dialect of OpenAPI 3.1) as plain data. */
export type JsonSchema = { [key: string]: unknown };

const COMPONENT_PREFIX = "#/components/schemas/";

function rewriteRefs(value: unknown, rename: Map<string, string>): unknown {
  if (Array.isArray(value)) return value.map((item) => rewriteRefs(item, rename));
  if (value === null || typeof value !== "object") return value;
  const out: JsonSchema = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === "$ref" && typeof child === "string" && child.startsWith("#/$defs/")) {
      const id = child.slice("#/$defs/".length);
      out[key] = COMPONENT_PREFIX + (rename.get(id) ?? id);
    } else {
      out[key] = rewriteRefs(child, rename);
    }
  }
  return out;
}

/**
 * Collects the zod schemas of the operations into `components.schemas`. Every schema named with
 * `.meta({ id })` becomes one component, referenced wherever it is used. Request schemas are
 * converted as zod *inputs* (what a client sends: coerced strings, optional defaults) and response
 * schemas as *outputs*; when the two differ for one id, the input one is kept as `<id>Input`
 * (so add every response schema before any request schema).
 */
export class SchemaComponents {
  readonly schemas: Record<string, JsonSchema> = {};

  /** Converts `schema` and returns its JSON Schema, a `$ref` when the schema is named. */
  add(schema: z.ZodType, io: "input" | "output"): JsonSchema {
    const converted = z.toJSONSchema(schema, { io, target: "draft-2020-12" }) as JsonSchema;
    const defs = (converted.$defs ?? {}) as Record<string, JsonSchema>;
    delete converted.$defs;
    delete converted.$schema;
    const rename = new Map<string, string>();
    for (const [id, def] of Object.entries(defs)) {
      const existing = this.schemas[id];
      if (existing && JSON.stringify(existing) !== JSON.stringify(rewriteRefs(def, new Map()))) {
        if (io === "output") throw new Error(`Two different response schemas share the id ${id}.`);
        rename.set(id, `${id}Input`);
      }
    }
    for (const [id, def] of Object.entries(defs)) {
      const name = rename.get(id) ?? id;
      this.schemas[name] = rewriteRefs(def, rename) as JsonSchema;
    }
    return rewriteRefs(converted, rename) as JsonSchema;
  }

  /** Resolves a `$ref` produced by `add` to the component it names. */
  resolve(schema: JsonSchema): JsonSchema {
    const ref = schema.$ref;
    if (typeof ref !== "string" || !ref.startsWith(COMPONENT_PREFIX)) return schema;
    return this.schemas[ref.slice(COMPONENT_PREFIX.length)] ?? schema;
  }
}
