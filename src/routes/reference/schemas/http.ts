/**
 * The OpenAPI documentation of the schemas of src/http/ (the error envelope): their component ids, descriptions
 * and examples, attached to the schemas themselves (see src/openapi/schema-docs.ts). Node side only.
 */
import { documentSchema } from "../../../openapi/schema-docs.ts";
import { ErrorBodySchema, ErrorResponseSchema, ErrorTypeSchema } from "../../../http/errors.ts";

// src/http/errors.ts

documentSchema(ErrorTypeSchema, {
  id: "ErrorType",
  description: "The class of failure; `code` says which one exactly.",
});

documentSchema(ErrorBodySchema, {
  id: "ErrorBody",
  description: "What went wrong. `type`, `code` and `message` are always present; the other fields where they apply.",
});

documentSchema(ErrorBodySchema.shape.message, { description: "A human-readable explanation. Do not parse it." });

documentSchema(ErrorBodySchema.shape.code, {
  description:
    "A machine-readable reason, e.g. `sold_out` or `parameter_unknown`: what a client " +
    "branches on. Every error has one.",
});

documentSchema(ErrorBodySchema.shape.param, { description: "The parameter or field at fault, when there is one." });

documentSchema(ErrorBodySchema.shape.docs_url, {
  description: "Where the docs explain this failure (authentication errors).",
});

documentSchema(ErrorBodySchema.shape.request_id, { description: "The request id to quote to support (500s)." });

documentSchema(ErrorBodySchema.shape.retry, {
  description: "Whether retrying can ever succeed (`false` for reserved operations).",
});

documentSchema(ErrorBodySchema.shape.lines, {
  description: "`checkout_unavailable`: each cart line that stops the checkout, and why.",
});

documentSchema(ErrorBodySchema.shape.lines.def.innerType.def.element.shape.id, {
  description: "The cart line at fault.",
});

documentSchema(ErrorBodySchema.shape.lines.def.innerType.def.element.shape.available_quantity, {
  description: "Units left, where stock is counted.",
});

documentSchema(ErrorBodySchema.shape.lines.def.innerType.def.element.shape.max_quantity, {
  description: "`hold_limit`: the most units of this variant one holder may hold.",
});

documentSchema(ErrorBodySchema.shape.lines.def.innerType.def.element.shape.cooldown_ends_at, {
  description: "`hold_cooldown`: when this holder may hold the variant again.",
});

documentSchema(ErrorBodySchema.shape.available_quantity, {
  description: "`insufficient_stock`: how many units are left to take (live stock).",
});

documentSchema(ErrorResponseSchema, {
  id: "ErrorResponse",
  description: "Every non-2xx response (but 304) has this envelope.",
  example: { error: { type: "not_found_error", code: "sold_out", message: "Sold out", param: "handle" } },
});
