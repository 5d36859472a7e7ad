import * as z from "zod/mini";
import { CatalogVersionParamSchema, includeSchema, LIST_INCLUDES, LimitSchema } from "../catalog/api.ts";
import { handleWithout } from "../catalog/schema.ts";
import { SECOND_CHANCE_BELOW } from "./text.ts";

/**
 * The browse parameters of `GET /products`, a collection's products and the facets endpoints,
 * described once: the OpenAPI document shows these schemas (api.ts) and the parser (query.ts)
 * takes its parameter names, which of them repeat, which a facets endpoint refuses, and the
 * values it checks from them.
 */

export const SORTS = ["catalog", "relevance", "price_asc", "price_desc", "title_asc", "title_desc", "newest"] as const;
export type Sort = (typeof SORTS)[number];

/** Filters whose values are matched exactly (case-insensitive), OR within one, AND across. */
export const VALUE_FILTERS = ["vendor", "product_type", "tag"] as const;
export type ValueFilter = (typeof VALUE_FILTERS)[number];

export const MAX_Q_CHARS = 100;
export const MAX_Q_WORDS = 10;
/** Filter values (vendor, product_type, tag, option.*) in all, and distinct option names. */
export const MAX_FILTER_VALUES = 40;
export const MAX_OPTION_FILTERS = 5;
export const MAX_VALUE_CHARS = 255;
export const MAX_LIMIT = 250;
export const DEFAULT_BROWSE_LIMIT = 50;

const repeatable = (description: string) =>
  z
    .optional(z.array(z.string().check(z.minLength(1), z.maxLength(MAX_VALUE_CHARS))))
    .register(z.globalRegistry, { description });
/** A decimal amount with up to 4 decimals (the most any ISO 4217 currency has). */
const price = z.string().check(z.regex(/^\d{1,9}(\.\d{1,4})?$/));

/** The filters and q: a page and a facets endpoint take these. */
export const FILTER_PARAMETERS = {
  q: z.optional(z.string().check(z.minLength(1), z.maxLength(MAX_Q_CHARS))).register(z.globalRegistry, {
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
  }),
  // Text in the URL, a boolean to a client: the document types it boolean (openapi/json-schema.ts).
  available: z
    .optional(
      z.pipe(
        z.pipe(
          z.enum(["true", "false"]),
          z.transform((value) => value === "true"),
        ),
        z.boolean(),
      ),
    )
    .register(z.globalRegistry, {
      description: "Only products that can (true) or cannot (false) be bought: `true` or `false`.",
    }),
  // The VALUE_FILTERS.
  vendor: repeatable(
    "Exact vendor, case-insensitive. Repeat to match any of several (`vendor=a&vendor=b`); " +
      "different filters combine with AND.",
  ),
  product_type: repeatable("Exact product type, case-insensitive; repeatable like vendor."),
  tag: repeatable("Exact tag, case-insensitive; repeat to match any (`tag=men&tag=unisex`)."),
  price_min: z.optional(price).register(z.globalRegistry, {
    description:
      "Decimal amount in the catalog's currency, inclusive, on the item's `price` (its lowest " +
      "variant price). At most the currency's minor-unit digits (USD 2, JPY none, KWD 3), else " +
      "400 parameter_invalid.",
    example: "20",
  }),
  price_max: z
    .optional(price)
    .register(z.globalRegistry, { description: "Decimal amount, inclusive; not below price_min.", example: "60.50" }),
};

/** Sort, paging and include: a page takes these, a facets endpoint none of them. */
export const PAGE_PARAMETERS = {
  sort: z.optional(z.enum(SORTS)).register(z.globalRegistry, {
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
  }),
  // The shared limit, so the document shows an integer 1–250, not a string.
  limit: LimitSchema,
  starting_after: z.optional(
    handleWithout({
      description:
        "Handle of the item the page starts after, in this query's order; it must be among this " +
        "query's matches (else 400 parameter_invalid).",
    }),
  ),
  ending_before: z.optional(
    handleWithout({
      description: "Handle of the item the page ends before, in this query's order; it must be among the matches.",
    }),
  ),
  include: includeSchema(
    LIST_INCLUDES,
    "`image`: add each product's featured image. The same grammar as a product's include " +
      "(the pattern): comma-separated names, spaces allowed around a name, a name given twice " +
      "counting once, so `image, image` is `image`; anything else (an unknown name, an empty " +
      "one) is 400 parameter_invalid.",
    "image",
  ),
  catalog_version: CatalogVersionParamSchema,
};

/** Every browse parameter by name (option.<name> aside: api.ts OptionFiltersSchema). */
export const BROWSE_PARAMETERS: Record<string, z.ZodMiniType> = { ...FILTER_PARAMETERS, ...PAGE_PARAMETERS };
