import * as z from "zod/mini";

/** What the OpenAPI document says about one schema: its component id, its prose, its example. */
export type SchemaDoc = z.core.GlobalMeta;

/**
 * Documents a schema for the OpenAPI documents: its `id` (the component that names it), its
 * description and examples. Called only from src/routes/reference/schemas/, one module per room,
 * which the document builder loads before it builds: the schemas themselves (src/<room>/) carry
 * only their shape, so the Worker, which validates with them, never carries their prose (about
 * 9 KB gzip of its 100 KiB budget; test/e2e/bundle.test.ts keeps it out).
 *
 * A nested schema is reached from the exported one that holds it: `.shape.<key>` for an object's
 * property, `.def.innerType` through `z.optional`/`z.nullable`, `.def.element` through
 * `z.array`, `.def.in`/`.def.out` through `z.pipe`, `._zod.parent` for the schema a `.check(...)`
 * was added to. Throws when the path reaches nothing (a renamed property) and when the schema is
 * documented already (twice here, or still in the Worker code), so neither can drift silently.
 */
export function documentSchema(schema: z.core.$ZodType | undefined, doc: SchemaDoc): void {
  if (schema === undefined) throw new Error(`No schema to document as ${JSON.stringify(doc).slice(0, 120)}.`);
  if (z.globalRegistry.has(schema))
    throw new Error(
      `A schema is documented twice: ${JSON.stringify(z.globalRegistry.get(schema)).slice(0, 120)}. ` +
        "Document it only in src/routes/reference/schemas/, never with `.register(z.globalRegistry, …)` in the Worker.",
    );
  z.globalRegistry.add(schema, doc);
}
