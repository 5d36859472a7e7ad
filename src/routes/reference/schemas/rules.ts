import { documentSchema } from "../../../openapi/schema-docs.ts";
import { RulesDocumentSchema } from "../../../rules/schema.ts";

// src/rules/schema.ts

documentSchema(RulesDocumentSchema, {
  id: "RulesDocument",
  description:
    "The store's rules (contract 10.1): `discounts`, `shipping.zones` and `tax`, every key optional, unknown keys refused. `{}` is the same as no rules.",
});
