/**
 * The OpenAPI documentation of the schemas of src/money.ts: their component ids, descriptions and
 * examples, attached to the schemas themselves (see src/openapi/schema-docs.ts). Node side only.
 */
import { documentSchema } from "../../../openapi/schema-docs.ts";
import { CurrencySchema, MoneySchema } from "../../../money.ts";

// src/money.ts

documentSchema(CurrencySchema, {
  description: "ISO 4217 code of the catalog's currency (one per catalog; the seed's is USD).",
  example: "USD",
});

documentSchema(MoneySchema, {
  id: "Money",
  description:
    'An amount in the catalog\'s currency. `currency` is the ISO 4217 code the catalog was published with (one per catalog; every Money of every answer, cart included, has it). `amount` is a decimal string written with exactly that currency\'s minor-unit digits: `"100.00"` USD, `"1500"` JPY (no decimals), `"2.500"` KWD. Never a number: parse it as a decimal, not a float.',
});
