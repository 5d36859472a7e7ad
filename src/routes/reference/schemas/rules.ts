import { documentSchema } from "../../../openapi/schema-docs.ts";
import { RollbackRulesRequestSchema, VersionNameSchema } from "../../../rules/api.ts";
import { RulesHistorySchema, RulesVersionItemSchema } from "../../../rules/history-api.ts";
import { RulesDocumentSchema } from "../../../rules/schema.ts";

// src/rules/schema.ts

documentSchema(RulesDocumentSchema, {
  id: "RulesDocument",
  description:
    "The store's rules (contract 10.1): `discounts`, `shipping.zones` and `tax`, every key optional, unknown keys refused. `{}` is the same as no rules.",
});

// src/rules/api.ts

documentSchema(VersionNameSchema, {
  description: "A rules version, as `GET /operator/rules/versions` lists it (its `ETag` without the quotes).",
  example: "20261201T090000Z-3f9a1c",
});

documentSchema(RollbackRulesRequestSchema, {
  id: "RollbackRulesRequest",
  description: "Which kept version goes live again. `{}` for the previous one.",
  example: {},
});

documentSchema(RollbackRulesRequestSchema.shape.version, {
  description: "The version to make live again; absent: the previous one (two rollbacks in a row return).",
});

// src/rules/history-api.ts (the history's answer: read only by the reference, the CLI and the tests)

documentSchema(RulesVersionItemSchema, {
  id: "RulesVersionItem",
  description: "One publish or rollback of the rules document.",
});

documentSchema(RulesVersionItemSchema.shape.seq, { description: "1, 2, 3… in the order the actions took effect." });

documentSchema(RulesVersionItemSchema.shape.version, { description: "The version that went live." });

documentSchema(RulesVersionItemSchema.shape.from, { description: "The version live before; null for the first." });

documentSchema(RulesVersionItemSchema.shape.live, {
  description: "True on the last entry: its version is live now.",
});

documentSchema(RulesVersionItemSchema.shape.kept, {
  description:
    "Whether its document is still kept, so a rollback can return to it (the live, the previous and the last 10 published are).",
});

documentSchema(RulesVersionItemSchema.shape.discounts, {
  description: "Discounts in the document; null once it is no longer kept.",
});

documentSchema(RulesVersionItemSchema.shape.codes, { description: "Of them, with a code." });

documentSchema(RulesVersionItemSchema.shape.zones, { description: "Shipping zones." });

documentSchema(RulesVersionItemSchema.shape.tax, {
  description: "`tax.mode`, or null without tax rules (or once not kept).",
});

documentSchema(RulesHistorySchema, {
  id: "RulesHistory",
  description: "Every publish and rollback of the rules document, oldest first (append-only).",
});
