import * as z from "zod/mini";
import { MoneySchema } from "../money.ts";
import { FILTER_PARAMETERS, MAX_FILTER_VALUES, MAX_OPTION_FILTERS, PAGE_PARAMETERS } from "./parameters.ts";

/**
 * The browse query and the facets answer as the OpenAPI document shows them. The parameters are
 * parameters.ts's, which the parser (query.ts) reads too: filters repeat and option filters are
 * named by the catalog, so the query is not parsed as one zod object.
 */

/**
 * `option.<name>` for any option name of the catalog: a family of query parameters, described as
 * one `deepObject` parameter `option` whose keys are the option names, so a generated client sends
 * `{option: {size: "M"}}` as `option[size]=M` (openapi-fetch's default for an object), which the
 * parser reads exactly as `option.size=M`.
 */
const OptionValueSchema = z.string().check(z.minLength(1), z.maxLength(255));

export const OptionFiltersSchema = z
  .record(
    z.string().check(z.regex(/^[^\s.[\]]{1,255}$/)),
    // A list is several values of one name (issue 42, point 17: a typed client could send only one).
    z.union([OptionValueSchema, z.array(OptionValueSchema).check(z.minLength(1))]),
  )
  // An empty object would be sent as a bare `option=`, a parameter no catalog has (Schemathesis).
  .register(z.globalRegistry, {
    minProperties: 1,
    description:
      `Option filters, for ANY option name of the catalog, by its API name, in either form: ` +
      `\`option[size]=M\` (this parameter as a \`deepObject\`, what generated clients send for ` +
      `\`{option: {size: "M"}}\`) or \`option.size=M\`; the two are one filter (one answer, one ` +
      `cache entry). Names as in \`option[color]=Black\`, \`option[material]=Oak\`, ` +
      `\`option[frame-style]=Round\`: the product has an *available* variant with that value ` +
      `(case-insensitive; available as live stock says now, not only as published), which is ` +
      `what a shopper filtering by size means. Option names compare ` +
      `case-insensitively too: \`option[Color]\` is \`option[color]\`. Repeat a name to match any ` +
      `of its values (\`option[size]=M&option[size]=L\`, forms mixed or not; a list in a typed ` +
      `client: see the guide); two option names ` +
      `combine with AND, each satisfied by any available variant. At most ${MAX_OPTION_FILTERS} ` +
      `option names; a name no product has is 400 parameter_unknown. At most ` +
      `${MAX_FILTER_VALUES} filter values in all.`,
  });

export const BrowseQuerySchema = z
  .strictObject({ ...FILTER_PARAMETERS, ...PAGE_PARAMETERS })
  .register(z.globalRegistry, {
    id: "BrowseQuery",
    description:
      "Search, filters, sort and paging. Unknown parameters are rejected (400 " +
      "parameter_unknown); equivalent queries share one cache entry.",
  });

export const FacetsQuerySchema = z.strictObject(FILTER_PARAMETERS).register(z.globalRegistry, {
  id: "FacetsQuery",
  description:
    "The same filters and q as the list; sort, limit, starting_after, ending_before, " +
    "catalog_version and include are 400 parameter_unknown.",
});

const FacetValueSchema = z.object({
  value: z.string().register(z.globalRegistry, {
    description: "As the catalog first spells it (filters match it case-insensitively); `true`/`false` for available.",
  }),
  count: z.int().check(z.gte(0)).register(z.globalRegistry, {
    description:
      "Matches if this value were chosen (disjunctive: every other active filter applies, this facet's own does not).",
  }),
  selected: z.boolean().register(z.globalRegistry, {
    description:
      "Whether the request filters on this value. Selected values are always listed, with a " +
      "count of 0 when nothing matches; a selected value no product has is spelled as the " +
      "request spelled it (given twice in two spellings, the one first in code point order).",
  }),
});

const ValuesFacetSchema = z.object({
  name: z.string().register(z.globalRegistry, {
    description:
      "`vendor`, `product_type`, `tag`, `available`, or `option.<name>` for every option name " +
      "of the catalog (in order of first appearance).",
  }),
  type: z
    .literal("values")
    .register(z.globalRegistry, { description: "A facet of values (every facet but price): narrow on it." }),
  values: z.array(FacetValueSchema).register(z.globalRegistry, {
    description:
      "By count (most first), then value; at most 100, selected ones always among them. Option " +
      "values come from available variants only (live stock's availability; a value no variant " +
      "had in stock at publish is counted from the next publish); an empty product type is not a value.",
  }),
});

const PriceFacetSchema = z.object({
  name: z.literal("price"),
  type: z
    .literal("range")
    .register(z.globalRegistry, { description: "The price range facet: `min` and `max` instead of values." }),
  min: z.nullable(MoneySchema).register(z.globalRegistry, {
    description: "Lowest `price` among the matches of every filter but price_min/price_max; null when none.",
  }),
  max: z.nullable(MoneySchema),
});

export const FacetsSchema = z
  .object({
    object: z.literal("facets"),
    count: z
      .int()
      .check(z.gte(0))
      .register(z.globalRegistry, { description: "Matches of the whole query, as the list's `count`." }),
    facets: z
      .array(
        z
          .discriminatedUnion("type", [ValuesFacetSchema, PriceFacetSchema])
          // OpenAPI's discriminator keyword, for generators that narrow on it rather than on `const`.
          .register(z.globalRegistry, { discriminator: { propertyName: "type" } }),
      )
      .register(z.globalRegistry, {
        description:
          'Each facet says its shape in `type`: `"values"` (`values: [{value, count, selected}]`) ' +
          'or `"range"` (the price: `min`, `max`), so a typed client narrows on it.',
      }),
  })
  .register(z.globalRegistry, {
    id: "Facets",
    description:
      "Disjunctive facet counts of a query, as Shopify or Algolia count them: what choosing another value would give.",
  });
export type Facets = z.infer<typeof FacetsSchema>;
