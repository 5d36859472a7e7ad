/**
 * The OpenAPI documentation of the schemas of src/browse/: their component ids, descriptions and
 * examples, attached to the schemas themselves (see src/openapi/schema-docs.ts). Node side only.
 */
import { documentSchema } from "../../../openapi/schema-docs.ts";
import {
  BrowseQuerySchema,
  FacetValueSchema,
  FacetsQuerySchema,
  FacetsSchema,
  OptionFiltersSchema,
  PriceFacetSchema,
  ValuesFacetSchema,
} from "../../../browse/api.ts";
import {
  FILTER_PARAMETERS,
  MAX_FILTER_VALUES,
  MAX_OPTION_FILTERS,
  MAX_Q_CHARS,
  MAX_Q_WORDS,
  PAGE_PARAMETERS,
} from "../../../browse/parameters.ts";
import { SECOND_CHANCE_BELOW } from "../../../browse/text.ts";

// src/browse/api.ts

documentSchema(OptionFiltersSchema, {
  // An empty object would be sent as a bare `option=`, a parameter no catalog has (Schemathesis).
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

documentSchema(BrowseQuerySchema, {
  id: "BrowseQuery",
  description:
    "Search, filters, sort and paging. Unknown parameters are rejected (400 " +
    "parameter_unknown); equivalent queries share one cache entry.",
});

documentSchema(FacetsQuerySchema, {
  id: "FacetsQuery",
  description:
    "The same filters and q as the list; sort, limit, starting_after, ending_before, " +
    "catalog_version and include are 400 parameter_unknown.",
});

documentSchema(FacetValueSchema.shape.value, {
  description: "As the catalog first spells it (filters match it case-insensitively); `true`/`false` for available.",
});

documentSchema(FacetValueSchema.shape.count, {
  description:
    "Matches if this value were chosen (disjunctive: every other active filter applies, this facet's own does not).",
});

documentSchema(FacetValueSchema.shape.selected, {
  description:
    "Whether the request filters on this value. Selected values are always listed, with a " +
    "count of 0 when nothing matches; a selected value no product has is spelled as the " +
    "request spelled it (given twice in two spellings, the one first in code point order).",
});

documentSchema(ValuesFacetSchema.shape.name, {
  description:
    "`vendor`, `product_type`, `tag`, `available`, or `option.<name>` for every option name " +
    "of the catalog (in order of first appearance).",
});

documentSchema(ValuesFacetSchema.shape.type, {
  description: "A facet of values (every facet but price): narrow on it.",
});

documentSchema(ValuesFacetSchema.shape.values, {
  description:
    "By count (most first), then value; at most 100, selected ones always among them. Option " +
    "values come from available variants only (live stock's availability; a value no variant " +
    "had in stock at publish is counted from the next publish); an empty product type is not a value.",
});

documentSchema(PriceFacetSchema.shape.type, {
  description: "The price range facet: `min` and `max` instead of values.",
});

documentSchema(PriceFacetSchema.shape.min, {
  description: "Lowest `price` among the matches of every filter but price_min/price_max; null when none.",
});

documentSchema(FacetsSchema, {
  id: "Facets",
  description:
    "Disjunctive facet counts of a query, as Shopify or Algolia count them: what choosing another value would give.",
});

documentSchema(FacetsSchema.shape.count, { description: "Matches of the whole query, as the list's `count`." });

documentSchema(FacetsSchema.shape.facets, {
  description:
    'Each facet says its shape in `type`: `"values"` (`values: [{value, count, selected}]`) ' +
    'or `"range"` (the price: `min`, `max`), so a typed client narrows on it.',
});

// OpenAPI's discriminator keyword, for generators that narrow on it rather than on `const`.
documentSchema(FacetsSchema.shape.facets.def.element, { discriminator: { propertyName: "type" } });

// src/browse/parameters.ts

documentSchema(FILTER_PARAMETERS.vendor, {
  description:
    "Exact vendor, case-insensitive. Repeat to match any of several (`vendor=a&vendor=b`); " +
    "different filters combine with AND.",
});

documentSchema(FILTER_PARAMETERS.product_type, {
  description: "Exact product type, case-insensitive; repeatable like vendor.",
});

documentSchema(FILTER_PARAMETERS.tag, {
  description: "Exact tag, case-insensitive; repeat to match any (`tag=men&tag=unisex`).",
});

documentSchema(PAGE_PARAMETERS.starting_after.def.innerType, {
  description:
    "Handle of the item the page starts after, in this query's order; it must be among this " +
    "query's matches (else 400 parameter_invalid).",
});

documentSchema(PAGE_PARAMETERS.ending_before.def.innerType, {
  description: "Handle of the item the page ends before, in this query's order; it must be among the matches.",
});

documentSchema(PAGE_PARAMETERS.include, {
  description:
    "`image`: add each product's featured image. The same grammar as a product's include " +
    "(the pattern): comma-separated names, spaces allowed around a name, a name given twice " +
    "counting once, so `image, image` is `image`; anything else (an unknown name, an empty " +
    "one) is 400 parameter_invalid.",
  example: "image",
});

documentSchema(FILTER_PARAMETERS.q, {
  description:
    `Search text, 1-${MAX_Q_CHARS} characters, at most ${MAX_Q_WORDS} words. Words (runs of ` +
    `letters and digits) are matched case- and accent-insensitively (\`cafe\` finds "Café") ` +
    `against the title, vendor, product type, tags, option values, variant SKUs and the ` +
    `description text; every word must match, the last one also as a prefix (\`cott\` finds ` +
    `cotton) unless it is one character and not all of q (\`tee m\` needs the word ` +
    `\`m\`). **Other forms**, both ways: plural and singular (-s, -es, -ies/-y: \`jeans\` ` +
    `finds the Selvedge Slim Jean) and British and American spellings (\`grey\`/\`gray\`, ` +
    `\`colour\`/\`color\`, \`-ise\`/\`-ize\`, \`-re\`/\`-er\`); camel-case tags count cut ` +
    `(\`#GlutenFree\` holds \`gluten\`, \`free\`). **Typos:** a word of 5 or more ` +
    `characters also matches words one edit away, 8 or more two edits (Damerau: an ` +
    `insertion, deletion, substitution or swap of two neighbouring letters is one edit; a ` +
    `word of digits is never corrected): on the seed, \`hoodei\` finds the three hoodies and ` +
    `\`sweatshrit\` the Coastline Crewneck Sweatshirt. **Exact:** words in double quotes ` +
    `match only themselves, without typos, other forms or prefix (\`"hoodei"\` finds ` +
    `nothing), and so does every word of a q that is one SKU-shaped token (no space; a ` +
    `letter and a digit, or words joined by \`-\`, \`_\`, \`.\`, \`/\`): \`NW-ECT-BLK-M\` ` +
    `finds the Essential Crew Tee - Black, \`NW-ECT-BL\` nothing. Quoted words are matched ` +
    `one by one, not as a phrase in order. **Hyphenated words** (joined by \`-\` with no ` +
    `space, outside SKUs) also count written together: on the seed, \`tshirt\` finds ` +
    `Example T-Shirt and the four tees (product type "T-Shirts") first, then the Linen Camp ` +
    `Shirt (\`shirt\` is one edit away); \`buttondown\` finds the Oxford Button-Down; and a ` +
    `q of letters joined by hyphens scores as written together, so \`t-shirt\` answers what ` +
    `\`tshirt\` does. **Second chance:** a q of 2-3 words (none quoted) matching fewer than ` +
    `${SECOND_CHANCE_BELOW} products of the scope also answers those matching all its words ` +
    `but one, marked \`"match": "partial"\` (with \`strict_count\` in the list); of two ` +
    `words, both (a one-character one aside) must be words of the catalog, so ` +
    `\`chocolate bicycle\` answers nothing. **Synonyms and stop words** are the catalog's ` +
    `(\`search.synonyms\`, \`search.stop_words\` in the catalog file, applied at publish): ` +
    `with \`[["hoodie", "hoody"]]\`, \`hoody\` finds the hoodies; a stop word is left out of ` +
    `q unless q has nothing else. With q the default sort is \`relevance\` (see \`sort\`).`,
  example: "tee",
});

documentSchema(FILTER_PARAMETERS.available, {
  description: "Only products that can (true) or cannot (false) be bought: `true` or `false`.",
});

documentSchema(FILTER_PARAMETERS.price_min, {
  description:
    "Decimal amount in the catalog's currency, inclusive, on the item's `price` (its lowest " +
    "variant price). At most the currency's minor-unit digits (USD 2, JPY none, KWD 3), else " +
    "400 parameter_invalid.",
  example: "20",
});

documentSchema(FILTER_PARAMETERS.price_max, {
  description: "Decimal amount, inclusive; not below price_min.",
  example: "60.50",
});

documentSchema(PAGE_PARAMETERS.sort, {
  description:
    "`catalog` (default without q: catalog order, or the collection's own order), " +
    "`relevance` (default with q; 400 without q): every product matching all of q's words " +
    "first (then the second chance's, those having q's last word first), each ranked by a " +
    "sum over q's words of the word's rarity (idf: the typed word's, else its commonest " +
    "match's) times its best match in the product: the field's weight (title 6; vendor, " +
    "product type, tags and SKUs 3; option values 2; description 1; a longer title or " +
    "description weighing each word less) times how it matched (exact 100%, another form " +
    "90%, a completion 60%, one typo 30%, two 20%), so a title one typo away beats a " +
    "description-only exact match; on the seed `q=wool` gives Wool Blanket Scarf (title), " +
    "Merino Long Sleeve (tag), Waffle Knit Beanie (description)), `price_asc`, `price_desc` " +
    "(on `price`), `title_asc`, `title_desc` " +
    "(titles compared in lower case without accents), `newest` (the catalog's created_at; " +
    "products without one last). Ties always fall back to catalog order (in a collection, " +
    "the collection's order), so every order is total and cursor paging is stable.",
});
