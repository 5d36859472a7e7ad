import type { OperationDoc } from "../../openapi/spec.ts";
import { OperatorDiscountListSchema } from "../../discounts/usage-api.ts";
import { errors, JSON_BODY_ERRORS, OPERATOR_ERRORS, QUERY_ERRORS } from "../../openapi/errors.ts";
import { NoQuerySchema } from "../../catalog/api.ts";
import { RollbackRulesRequestSchema } from "../../rules/api.ts";
import { RulesHistorySchema } from "../../rules/history-api.ts";
import { MAX_AUTOMATIC_DISCOUNTS } from "../../rules/checks.ts";
import { RulesDocumentSchema } from "../../rules/schema.ts";

const HEADERS = ["X-Request-Id", "Cache-Control", "ETag"] as const;

/** A store shipping to two zones with VAT and two discounts: the example every rules operation shows. */
export const RULES_EXAMPLE = {
  discounts: [
    {
      id: "welcome10",
      title: "10% off your first order",
      code: "WELCOME10",
      kind: "percentage",
      value: "10",
      minimum_subtotal: "40.00",
      combines_with: ["shipping"],
    },
    {
      id: "free-shipping-100",
      title: "Free shipping over 100",
      kind: "free_shipping",
      minimum_subtotal: "100.00",
      combines_with: ["order", "product"],
    },
  ],
  shipping: {
    zones: [
      {
        name: "Domestic",
        countries: ["GB"],
        rates: [
          { id: "gb-standard", title: "Standard (2-4 days)", price: "3.95" },
          { id: "gb-next-day", title: "Next day", price: "7.95", max_weight_grams: 5000 },
        ],
      },
      {
        name: "Europe",
        countries: ["DE", "FR", "IE", "NL"],
        rates: [{ id: "eu-standard", title: "Europe standard", price: "9.50" }],
      },
    ],
  },
  tax: {
    mode: "inclusive",
    shipping_taxable: true,
    rates: [
      { country: "GB", rate: "0.2", name: "VAT" },
      { country: "DE", rate: "0.19", name: "MwSt" },
      { country: "FR", rate: "0.2", name: "TVA" },
      { country: "IE", rate: "0.23", name: "VAT" },
      { country: "NL", rate: "0.21", name: "btw" },
    ],
  },
};

const RULES_DOCS =
  "The store's rules (contract 10.1): its discounts, where it ships and for how much, and its tax, " +
  "in one document published apart from the catalog, so a new discount never republishes a " +
  "product. Each publish is a new **version**, atomic (carts see the old rules or the new ones, " +
  "never a mix), listed in an append-only history and rolled back by one pointer switch, like the " +
  "catalog's. Carts price with the live version within 1 s where it was published (0 s under " +
  "`npm run dev`, which reads the pointer on every request) and within the catalog freshness bound " +
  "everywhere (`CATALOG_POINTER_TTL_MS` plus Workers KV's propagation, about 61 s). With no " +
  "rules, or `{}`, carts have no discounts, no shipping charge and no tax: a store's behaviour " +
  "before rules existed. `npm run rules` is the command-line client of these operations.";

const FIELDS =
  "Every key is optional and every unknown key is refused, at every level. Amounts are decimal " +
  'strings in the live catalog\'s currency, with at most its minor-unit digits (USD `"5.00"`, ' +
  'JPY `"500"`, KWD `"1.250"`); percentages are percents (`"10"` is 10 %, above 0 and at most 100).\n\n' +
  "| field | what it is |\n|---|---|\n" +
  `| \`discounts[]\` | At most 10,000, at most ${MAX_AUTOMATIC_DISCOUNTS} of them automatic (no \`code\`). |\n` +
  "| `discounts[].id` | 1–64 of letters, digits, `.`, `_`, `-`; unique. Named by `discounts[].id` in a cart's `discounts` and line allocations. |\n" +
  "| `discounts[].title` | What the cart shows (1–255 characters). |\n" +
  "| `discounts[].code` | What a shopper types (1–64 characters, unique ignoring case). Absent: an automatic discount, applied whenever its conditions hold. |\n" +
  "| `discounts[].kind` | `percentage`, `fixed_amount`, `free_shipping` or `buy_x_get_y`. |\n" +
  "| `discounts[].value` | `percentage`: the percent; `fixed_amount`: the amount. Not for the other kinds. |\n" +
  "| `discounts[].per_item` | `fixed_amount` only: `true` takes the amount off each eligible unit, `false` (default) once off the eligible lines. |\n" +
  "| `discounts[].applies_to` | `{products: [handle], collections: [handle], variants: [id]}`: the eligible lines (any list matching). Absent: the whole order (class `order`); present: class `product`. Not on `free_shipping`. |\n" +
  "| `discounts[].buy`, `.get` | `buy_x_get_y` only: `buy: {quantity, applies_to?}`, `get: {quantity, applies_to?, percentage?}` (default 100, free). Class `product`. |\n" +
  "| `discounts[].max_uses_per_order` | `buy_x_get_y` only: at most this many times per cart (default: as often as the cart allows). |\n" +
  "| `discounts[].minimum_subtotal` | The eligible lines' subtotal before any discount must be at least this (inclusive). |\n" +
  "| `discounts[].minimum_quantity` | The eligible lines must hold at least this many units. |\n" +
  "| `discounts[].starts_at`, `.ends_at` | ISO 8601 times with their offset, both inclusive. |\n" +
  "| `discounts[].usage_limit` | Total uses, counted exactly at checkout (a later release; until then not enforced). |\n" +
  "| `discounts[].once_per_buyer` | Once per buyer email, checked at checkout. |\n" +
  "| `discounts[].combines_with` | Classes (`order`, `product`, `shipping`) it combines with; two combine only when each lists the other's class. Default: none. |\n" +
  "| `shipping.zones[]` | At most 250: `{name, countries: [ISO 3166-1 alpha-2], rates}`. A country belongs to one zone. |\n" +
  "| `shipping.zones[].rates[]` | `{id, title, price, min_subtotal?, max_subtotal?, min_weight_grams?, max_weight_grams?}`: offered when the cart's shipped lines meet every bound (inclusive; subtotal before discounts, weight from the catalog's `weight_grams`). Ids unique in the document. |\n" +
  "| `tax.mode` | `exclusive` (added per line after its discounts), `inclusive` (prices include it; the cost says how much), `none`, or `stripe` (the payment computes it). |\n" +
  '| `tax.rates[]` | `{country, region?, rate, name}`: `rate` a decimal below 1 (`"0.2"`, at most 6 decimals); `region` an ISO 3166-2 subdivision without the country (`CA`). A destination takes its country-and-region rate, else its country\'s, else none (tax 0). |\n' +
  "| `tax.shipping_taxable` | Whether shipping is taxed at the destination's rate (default false). |\n\n" +
  "The document is checked as a whole before anything is written; the cart's cost model (stacking, " +
  "rounding, combining, the reasons a code does not apply) is in the cart operations' description.";

/** The OpenAPI description of src/routes/operator-rules.ts's operations, by operationId (never in the Worker bundle). */
export const OPERATOR_RULES_DOCS = {
  getRules: {
    summary: "The live rules document",
    description:
      `${RULES_DOCS}\n\nAnswers the live document exactly as it was published, with its version as a strong ` +
      '`ETag` (`"20261201T090000Z-3f9a1c"`): send it back in `If-Match` when you publish a change, so a ' +
      "change made meanwhile is never overwritten. 404 `resource_missing` when no rules were ever published. " +
      "Read from the rules' one writer, so it is the version a publish compares `If-Match` with.",
    tag: "Operator",
    auth: "operator",
    responses: {
      200: {
        description: "The live document.",
        schema: RulesDocumentSchema,
        headers: HEADERS,
        examples: { store: { summary: "Two zones, VAT included, two discounts", value: RULES_EXAMPLE } },
      },
      ...errors(...OPERATOR_ERRORS, "resource_missing"),
    },
  },
  putRules: {
    summary: "Publish a rules document",
    description:
      `${RULES_DOCS}\n\n${FIELDS}\n\n` +
      '**Concurrency.** `If-Match: "<version>"` (the ETag of what you read) publishes only while that ' +
      "version is live, else **412** `rules_version_mismatch` and nothing changes. While rules are live, a " +
      "PUT **without** `If-Match` is **428** `precondition_required`: an API that stores one document for " +
      "the whole store must not let two operators overwrite each other blind (`If-Match: *` replaces " +
      "whatever is live, for a script that means it). With no rules live, no `If-Match` is needed.\n\n" +
      "**Validation.** Checked against the live catalog's currency (503 `catalog_unavailable` before the " +
      "first catalog publish). A mistake is 400 naming its path in `param`, dotted as everywhere in this " +
      "API (`discounts.2.value`; an unknown key `parameter_unknown`, a missing one `parameter_missing`), " +
      "with how many more there are; nothing is written. The body may be up to 512 KiB.\n\n" +
      "**Answer.** 200 with the published document and its new `ETag`. The same document as the live " +
      "one publishes nothing and answers the live version.",
    tag: "Operator",
    auth: "operator",
    requestHeaders: [{ name: "If-Match" }],
    body: {
      schema: RulesDocumentSchema,
      examples: {
        store: { summary: "Two zones, VAT included, two discounts", value: RULES_EXAMPLE },
        none: { summary: "No rules (the same as none published)", value: {} },
      },
    },
    responses: {
      200: {
        description: "The published document, with its version as the ETag.",
        schema: RulesDocumentSchema,
        headers: HEADERS,
      },
      ...errors(
        ...OPERATOR_ERRORS,
        ...JSON_BODY_ERRORS,
        "parameter_invalid",
        "parameter_unknown",
        "parameter_missing",
        "rules_version_mismatch",
        "precondition_required",
        "catalog_unavailable",
        "rules_unavailable",
      ),
    },
  },
  listDiscounts: {
    summary: "The live discounts and their uses",
    description:
      "Every discount of the live rules, in document order, with its uses (contract 10.3): `committed` " +
      "(orders written with it), `held` (open checkouts that reserved one, until they are paid, canceled, " +
      "replaced or expire) and `remaining` (`usage_limit` less both; `null` when unlimited). Only a " +
      "discount with a `usage_limit` or `once_per_buyer` is counted (one counter object each, which " +
      "checkouts reserve with their stock holds: the reference's Checkout and orders); any other answers " +
      "0 and 0. Each counter is read as it is now: exact, not a cached figure. " +
      "`npm run rules -- show` prints the same beside each discount. No catalog yet: 503 `catalog_unavailable`.",
    tag: "Operator",
    auth: "operator",
    query: NoQuerySchema,
    responses: {
      200: {
        description: "The live discounts with their uses.",
        schema: OperatorDiscountListSchema,
        headers: ["X-Request-Id", "Cache-Control"],
      },
      ...errors(...OPERATOR_ERRORS, ...QUERY_ERRORS, "catalog_unavailable"),
    },
  },
  listRulesVersions: {
    summary: "The rules' publish history",
    description:
      `${RULES_DOCS}\n\nEvery publish and rollback, oldest first, append-only: what went live, from what, ` +
      "and whether its document is still kept for a rollback (the live, the previous and the last 10 " +
      "published versions are; older documents are deleted, their history lines stay).",
    tag: "Operator",
    auth: "operator",
    responses: {
      200: { description: "The history.", schema: RulesHistorySchema, headers: ["X-Request-Id", "Cache-Control"] },
      ...errors(...OPERATOR_ERRORS),
    },
  },
  rollbackRules: {
    summary: "Roll the rules back",
    description:
      `${RULES_DOCS}\n\nMakes a kept version live again with one pointer switch, recorded in the history. ` +
      '`{}` returns to the previous version (two rollbacks in a row come back), `{"version": …}` to any ' +
      "kept one. `If-Match` is optional here (the body already says where to go); when sent, a stale one " +
      "is 412 like a publish's. The version's document is checked against the live catalog's currency " +
      "again (a catalog republished in another currency refuses it, 400 naming the path). No previous " +
      "version, or the live one named: 400 `parameter_invalid` (`param: version`); a version the history " +
      "does not know, or whose document a cleanup deleted: 404 `resource_missing`.",
    tag: "Operator",
    auth: "operator",
    requestHeaders: [{ name: "If-Match" }],
    body: {
      schema: RollbackRulesRequestSchema,
      examples: { previous: { summary: "The previous version", value: {} } },
    },
    responses: {
      200: {
        description: "The document now live, with its version as the ETag.",
        schema: RulesDocumentSchema,
        headers: HEADERS,
      },
      ...errors(
        ...OPERATOR_ERRORS,
        ...JSON_BODY_ERRORS,
        "parameter_invalid",
        "parameter_unknown",
        "resource_missing",
        "rules_version_mismatch",
        "catalog_unavailable",
        "rules_unavailable",
      ),
    },
  },
} satisfies Record<string, OperationDoc>;
