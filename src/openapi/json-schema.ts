import * as z from "zod/mini";

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

type ZodDef = { type: string; in?: { _zod: { def: ZodDef } }; out?: z.ZodMiniType & { _zod: { def: ZodDef } } };

/**
 * A query value arrives as text, so its schema is often a string piped into a number
 * (`limit`: digits, then 1–250). What a client sends is the number the text spells, so the
 * document gives the number's schema (`type: integer`, `minimum`, `maximum`): a generated
 * client then types it as a number and writes it as digits, which is what the pipe accepts.
 * Likewise a boolean read from `true`/`false` is documented `type: boolean`.
 */
function documentPipedNumbers(ctx: { zodSchema: unknown; jsonSchema: JsonSchema }): void {
  const def = (ctx.zodSchema as { _zod: { def: ZodDef } })._zod.def;
  if (def.type !== "pipe" || !def.out) return;
  const out = def.out._zod.def;
  // `available`: the text `true`/`false`, read into a boolean; a client sends the boolean.
  if (out.type === "boolean" && def.in?._zod.def.type === "pipe") {
    for (const key of Object.keys(ctx.jsonSchema)) if (key !== "description") delete ctx.jsonSchema[key];
    ctx.jsonSchema.type = "boolean";
    return;
  }
  if (def.in?._zod.def.type !== "string" || out.type !== "number") return;
  const number = z.toJSONSchema(def.out, { io: "output", target: "draft-2020-12" }) as JsonSchema;
  delete number.$schema;
  for (const key of ["type", "pattern", "format", "minLength", "maxLength"]) delete ctx.jsonSchema[key];
  Object.assign(ctx.jsonSchema, number);
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

  /**
   * Converts `schema` and returns its JSON Schema, a `$ref` when the schema is named. With
   * `inline`, the schema itself is returned whole even when named, and only what it refers to
   * becomes components: a query or path schema is spread into parameters, so a component of it
   * would be referenced by nothing.
   */
  add(schema: z.ZodMiniType, io: "input" | "output", { inline = false } = {}): JsonSchema {
    let converted = z.toJSONSchema(schema, {
      io,
      target: "draft-2020-12",
      override: documentPipedNumbers,
    }) as JsonSchema;
    const defs = (converted.$defs ?? {}) as Record<string, JsonSchema>;
    delete converted.$defs;
    delete converted.$schema;
    const rootRef =
      typeof converted.$ref === "string" && converted.$ref.startsWith("#/$defs/")
        ? converted.$ref.slice("#/$defs/".length)
        : undefined;
    if (inline && rootRef && defs[rootRef] && !JSON.stringify(defs).includes(`"#/$defs/${rootRef}"`)) {
      converted = defs[rootRef];
      delete defs[rootRef];
    }
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
