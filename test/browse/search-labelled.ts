import type { SearchSettings } from "../../src/catalog/schema.ts";

/**
 * A labelled query set on the seed catalog (seed/catalog.json): what a shopper types, and the
 * product(s) they mean; a query is answered well when one of them is in the first three results.
 * Exact words, misspellings (one or two edits), synonyms (SEED_SEARCH), hyphenated words written
 * together, words found only in a description, a SKU, quoted words, prefixes. Used by search-labelled.test.ts (the engine) and
 * test/bench/search-vs-orama.ts (the engine and Orama side by side).
 */

/** Search settings an operator of the seed store might write (the seed file itself has none). */
export const SEED_SEARCH: SearchSettings = {
  synonyms: [
    ["tee", "t-shirt", "tshirt"],
    ["hoodie", "hooded sweatshirt", "hoody"],
    ["pants", "trousers"],
    ["beanie", "toque"],
    ["bottle", "flask"],
    ["jacket", "coat"],
    ["wallet", "card holder"],
  ],
  stop_words: ["the", "a", "for", "with", "and"],
};

export type Kind = "exact" | "typo" | "synonym" | "joined" | "description" | "sku" | "quoted" | "prefix";

export const LABELLED: { q: string; kind: Kind; expect: string[] }[] = [
  { q: "crew tee", kind: "exact", expect: ["essential-crew-tee-black", "essential-crew-tee-white"] },
  { q: "hoodie", kind: "exact", expect: ["harbor-zip-hoodie-heather-grey", "harbor-pullover-hoodie-forest"] },
  { q: "pullover", kind: "exact", expect: ["harbor-pullover-hoodie-forest"] },
  { q: "merino wool", kind: "exact", expect: ["merino-long-sleeve-charcoal"] },
  { q: "linen shirt", kind: "exact", expect: ["linen-camp-shirt-natural"] },
  { q: "oxford", kind: "exact", expect: ["oxford-button-down-blue"] },
  { q: "button down", kind: "exact", expect: ["oxford-button-down-blue"] },
  { q: "gift card", kind: "exact", expect: ["gift-card-50"] },
  { q: "puffer vest", kind: "exact", expect: ["ridge-puffer-vest-black"] },
  { q: "graphic tee", kind: "exact", expect: ["washed-graphic-tee-sand"] },
  { q: "canvas tote", kind: "exact", expect: ["canvas-market-tote"] },
  { q: "denim", kind: "exact", expect: ["selvedge-slim-jean-indigo"] },
  { q: "socks", kind: "exact", expect: ["crew-sock-three-pack"] },
  { q: "hoodei", kind: "typo", expect: ["harbor-zip-hoodie-heather-grey", "harbor-pullover-hoodie-forest"] },
  { q: "sweatshrit", kind: "typo", expect: ["coastline-crewneck-sweatshirt-oat"] },
  { q: "jakcet", kind: "typo", expect: ["field-chore-jacket-olive"] },
  { q: "selvege jeans", kind: "typo", expect: ["selvedge-slim-jean-indigo"] },
  { q: "marino", kind: "typo", expect: ["merino-long-sleeve-charcoal"] },
  { q: "plaid scraf", kind: "typo", expect: ["wool-blanket-scarf-plaid"] },
  { q: "beanei", kind: "typo", expect: ["waffle-knit-beanie"] },
  { q: "joggers", kind: "typo", expect: ["everyday-jogger-black"] },
  { q: "heavywieght", kind: "typo", expect: ["heavyweight-pocket-tee-navy"] },
  { q: "crewnek sweatshirt", kind: "typo", expect: ["coastline-crewneck-sweatshirt-oat"] },
  {
    q: "tshirt",
    kind: "synonym",
    expect: [
      "essential-crew-tee-black",
      "essential-crew-tee-white",
      "heavyweight-pocket-tee-navy",
      "washed-graphic-tee-sand",
      "example-t-shirt",
    ],
  },
  {
    q: "hoody",
    kind: "synonym",
    expect: ["harbor-zip-hoodie-heather-grey", "harbor-pullover-hoodie-forest", "example-hoodie"],
  },
  { q: "trousers", kind: "synonym", expect: ["selvedge-slim-jean-indigo", "everyday-jogger-black", "example-pants"] },
  { q: "toque", kind: "synonym", expect: ["waffle-knit-beanie"] },
  { q: "flask", kind: "synonym", expect: ["insulated-bottle-750ml"] },
  { q: "chore coat", kind: "synonym", expect: ["field-chore-jacket-olive"] },
  { q: "leather wallet", kind: "synonym", expect: ["leather-card-holder-tan"] },
  // Hyphenated words written together (the index also holds "buttondown" for "Button-Down").
  { q: "buttondown", kind: "joined", expect: ["oxford-button-down-blue"] },
  { q: "sixpanel cap", kind: "joined", expect: ["six-panel-cap-washed-black"] },
  { q: "threepack socks", kind: "joined", expect: ["crew-sock-three-pack"] },
  { q: "kangaroo pockets", kind: "description", expect: ["harbor-zip-hoodie-heather-grey"] },
  { q: "vegetable tanned", kind: "description", expect: ["leather-card-holder-tan"] },
  { q: "ripstop", kind: "description", expect: ["trail-short-khaki"] },
  { q: "camp collar", kind: "description", expect: ["linen-camp-shirt-natural"] },
  { q: "NW-ECT-BLK-M", kind: "sku", expect: ["essential-crew-tee-black"] },
  { q: '"tank"', kind: "quoted", expect: ["ribbed-tank-white"] },
  { q: "six panel ca", kind: "prefix", expect: ["six-panel-cap-washed-black"] },
  { q: "insulated bot", kind: "prefix", expect: ["insulated-bottle-750ml"] },
];
