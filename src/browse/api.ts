import * as z from "zod";
import { MoneySchema } from "../money.ts";
import { CatalogVersionParamSchema, LimitSchema } from "../catalog/api.ts";
import { MAX_FILTER_VALUES, MAX_OPTION_FILTERS, MAX_Q_CHARS, MAX_Q_WORDS, SORTS } from "./query.ts";
import { HandleSchema } from "../catalog/schema.ts";

/**
 * The browse parameters and the facets answer as the OpenAPI document shows them (contract
 * section 7). The query itself is parsed by browse-query.ts, since filters repeat and option
 * filters are named by the catalog; these schemas describe exactly what it accepts.
 */

const repeatable = (description: string) => z.array(z.string().min(1).max(255)).optional().meta({ description });

const FILTERS = {
  q: z
    .string()
    .min(1)
    .max(MAX_Q_CHARS)
    .optional()
    .meta({
      description: `Search text, 1-${MAX_Q_CHARS} characters, at most ${MAX_Q_WORDS} words. Words (runs of letters and digits) are matched case- and accent-insensitively (\`cafe\` finds "Café") against the title, vendor, product type, tags, option values, variant SKUs and the description text; every word must match, the last one also as a prefix (\`cott\` finds cotton). **Typos:** a word of 5 or more characters also matches words one edit away, 8 or more two edits (Damerau: an insertion, deletion, substitution or swap of two neighbouring letters is one edit; a word of digits is never corrected): on the seed, \`hoodei\` finds the three hoodies and \`sweatshrit\` the Coastline Crewneck Sweatshirt. **Exact:** words in double quotes match only themselves, without typos or prefix (\`"hoodei"\` finds nothing), and so does every word of a q that is one SKU-shaped token (no space; a letter and a digit, or words joined by \`-\`, \`_\`, \`.\`, \`/\`): \`NW-ECT-BLK-M\` finds the Essential Crew Tee - Black, \`NW-ECT-BL\` nothing. Quoted words are matched one by one, not as a phrase in order. **Synonyms and stop words** are the catalog's (\`search.synonyms\`, \`search.stop_words\` in the catalog file, applied at publish): with \`[["hoodie", "hoody"]]\`, \`hoody\` finds the hoodies; a stop word is left out of q unless q has nothing else. With q the default sort is \`relevance\` (see \`sort\`).`,
      example: "tee",
    }),
  available: z
    .enum(["true", "false"])
    .optional()
    .meta({ description: "Only products that can (true) or cannot (false) be bought." }),
  vendor: repeatable(
    "Exact vendor, case-insensitive. Repeat to match any of several (`vendor=a&vendor=b`); different filters combine with AND.",
  ),
  product_type: repeatable("Exact product type, case-insensitive; repeatable like vendor."),
  tag: repeatable("Exact tag, case-insensitive; repeat to match any (`tag=men&tag=unisex`)."),
  price_min: z
    .string()
    .regex(/^\d{1,9}(\.\d{1,4})?$/)
    .optional()
    .meta({
      description:
        "Decimal amount in the catalog's currency, inclusive, on the item's `price` (its lowest variant price). At most the currency's minor-unit digits (USD 2, JPY none, KWD 3), else 400 parameter_invalid.",
      example: "20",
    }),
  price_max: z
    .string()
    .regex(/^\d{1,9}(\.\d{1,4})?$/)
    .optional()
    .meta({ description: "Decimal amount, inclusive; not below price_min.", example: "60.50" }),
};

const PAGE = {
  sort: z.enum(SORTS).optional().meta({
    description:
      "`catalog` (default without q: catalog order, or the collection's own order), `relevance` (default with q; 400 without q: fewest typos first, then the highest BM25F score, a sum over q's words of the word's rarity (idf) times its weight in the product, where the fields weigh title 6, vendor, product type, tags and SKUs 3, option values 2, description 1, a longer title or description weighing each word less; on the seed `q=wool` gives Wool Blanket Scarf (title), Merino Long Sleeve (tag), Waffle Knit Beanie (description)), `price_asc`, `price_desc` (on `price`), `title_asc`, `title_desc` (titles compared in lower case without accents), `newest` (the catalog's created_at; products without one last). Ties always fall back to catalog order (in a collection, the collection's order), so every order is total and cursor paging is stable.",
  }),
  // The shared limit, so the document shows an integer 1–250, not a string.
  limit: LimitSchema,
  starting_after: HandleSchema.optional().meta({
    description:
      "Handle of the item the page starts after, in this query's order; it must be among this query's matches (else 400 parameter_invalid).",
  }),
  ending_before: HandleSchema.optional().meta({
    description: "Handle of the item the page ends before, in this query's order; it must be among the matches.",
  }),
  include: z.enum(["image"]).optional().meta({ description: "`image`: add each product's featured image." }),
  catalog_version: CatalogVersionParamSchema,
};

/**
 * `option.<name>` for any option name of the catalog: a family of query parameters, described as
 * one form-exploded object whose property names follow the pattern, so a generated client accepts
 * `option.material` or `option.frame-style` as readily as `option.size`.
 */
export const OptionFiltersSchema = z
  .record(
    z.string().regex(/^option\.[^\s.]{1,255}$/),
    z.union([z.string().min(1).max(255), z.array(z.string().min(1).max(255))]),
  )
  .meta({
    description: `\`option.<name>=<value>\`, for ANY option name of the catalog, by its API name (\`option.size=M\`, \`option.color=Black\`, \`option.material=Oak\`, \`option.frame-style=Round\`): the product has an *available* variant with that value (case-insensitive), which is what a shopper filtering by size means. Option names compare case-insensitively too: \`option.Color\` is \`option.color\`. Repeat a name to match any of its values; two option names combine with AND, each satisfied by any available variant. At most ${MAX_OPTION_FILTERS} option names; a name no product has is 400 parameter_unknown. At most ${MAX_FILTER_VALUES} filter values in all. One parameter per option name: this object's properties are sent as top-level query parameters (\`style: form\`, \`explode: true\`).`,
    example: { "option.size": ["M", "L"], "option.color": "Black" },
  });

export const BrowseQuerySchema = z.strictObject({ ...FILTERS, ...PAGE }).meta({
  id: "BrowseQuery",
  description:
    "Search, filters, sort and paging. Unknown parameters are rejected (400 parameter_unknown); equivalent queries share one cache entry.",
});

export const FacetsQuerySchema = z.strictObject(FILTERS).meta({
  id: "FacetsQuery",
  description:
    "The same filters and q as the list; sort, limit, starting_after, ending_before, catalog_version and include are 400 parameter_unknown.",
});

const FacetValueSchema = z.object({
  value: z.string().meta({
    description: "As the catalog first spells it (filters match it case-insensitively); `true`/`false` for available.",
  }),
  count: z.int().min(0).meta({
    description:
      "Matches if this value were chosen (disjunctive: every other active filter applies, this facet's own does not).",
  }),
  selected: z.boolean().meta({
    description:
      "Whether the request filters on this value. Selected values are always listed, with a count of 0 when nothing matches; a selected value no product has is spelled as the request spelled it (given twice in two spellings, the one first in code point order).",
  }),
});

const ValuesFacetSchema = z.object({
  name: z.string().meta({
    description:
      "`vendor`, `product_type`, `tag`, `available`, or `option.<name>` for every option name of the catalog (in order of first appearance).",
  }),
  values: z.array(FacetValueSchema).meta({
    description:
      "By count (most first), then value; at most 100, selected ones always among them. Option values come from available variants only; an empty product type is not a value.",
  }),
});

const PriceFacetSchema = z.object({
  name: z.literal("price"),
  min: MoneySchema.nullable().meta({
    description: "Lowest `price` among the matches of every filter but price_min/price_max; null when none.",
  }),
  max: MoneySchema.nullable(),
});

export const FacetsSchema = z
  .object({
    object: z.literal("facets"),
    count: z.int().min(0).meta({ description: "Matches of the whole query, as the list's `count`." }),
    facets: z.array(z.union([ValuesFacetSchema, PriceFacetSchema])),
  })
  .meta({
    id: "Facets",
    description:
      "Disjunctive facet counts of a query, as Shopify or Algolia count them: what choosing another value would give.",
  });
export type Facets = z.infer<typeof FacetsSchema>;
