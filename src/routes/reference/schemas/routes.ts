/**
 * The OpenAPI documentation of the schemas of src/routes/ (the path and query schemas
 * declared beside a route): their component ids, descriptions
 * and examples, attached to the schemas themselves (see src/openapi/schema-docs.ts). Node side only.
 */
import { documentSchema } from "../../../openapi/schema-docs.ts";
import { DocsFileParamsSchema } from "../../docs.ts";

// src/routes/docs.ts

documentSchema(DocsFileParamsSchema.shape.file, {
  description: "A file name such as `scalar.js`, `reference.js`, `try.js` or `docs.css`.",
  example: "try.js",
});
