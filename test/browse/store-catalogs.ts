import type { SourceCatalog, SourceProduct } from "../../src/catalog/schema.ts";

/**
 * Catalogs shaped like real stores' and shopper queries labelled on them (issue 37), made
 * deterministically here (no downloads): four stores of several hundred products each, a bakery,
 * a cosmetics brand, a kids' clothing store and a bike shop, with descriptions that mention other
 * products (so a word in a description is weak evidence), `#CakeDecorating`-style tags, options
 * like Flavor, Size, Shade and Colour, British and American spellings side by side, and plural
 * product types (`Cakes`, `Tyres`).
 *
 * Every product carries the facts it was made from (`Facts`: kind, flavour or colour, diet...),
 * and each query's judgments are written on those facts, never on an engine's answers: grade 2
 * is what the shopper asked for, grade 1 something close (the right kind in another flavour),
 * 0 the rest. Queries with nothing to find (`nothing: true`) should answer nothing. Used by
 * test/bench/search-quality.ts (nDCG@10, P@3 and MRR, beside Orama and MiniSearch) and
 * search-stores.test.ts (the engine's floor, through the API).
 */

/** What a product was made from: what the judgments read. */
export interface Facts {
  kind: string;
  /** Flavour, scent, colour: the attribute a shopper names beside the kind. */
  attr?: string;
  /** Diets, materials, ages, sizes: any other fact. */
  also: string[];
}

export interface StoreProduct {
  product: SourceProduct;
  facts: Facts;
}

export type QueryKind =
  | "one word"
  | "two words"
  | "attribute"
  | "plural"
  | "typo"
  | "prefix"
  | "spelling"
  | "description"
  | "nothing";

export interface LabelledQuery {
  q: string;
  kind: QueryKind;
  /** Grade of a product (0, 1 or 2) from its facts. */
  grade: (f: Facts) => number;
}

export interface Store {
  name: string;
  catalog: SourceCatalog;
  facts: Map<string, Facts>;
  queries: LabelledQuery[];
}

/** mulberry32: the same numbers for the same seed on every machine. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const slug = (text: string) =>
  text
    .toLowerCase()
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");

/** Builds one store's products: ids, handles, variants from options, and the facts beside them. */
class StoreBuilder {
  readonly #vendor: string;
  readonly #base: number;
  readonly #rand: () => number;
  readonly #handles = new Set<string>();
  readonly items: StoreProduct[] = [];

  constructor(vendor: string, base: number) {
    this.#vendor = vendor;
    this.#base = base;
    this.#rand = random(base);
  }

  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.#rand() * list.length)] as T;
  }

  chance(p: number): boolean {
    return this.#rand() < p;
  }

  add(
    title: string,
    type: string,
    facts: Facts,
    opts: { tags?: string[]; options?: [string, string[]][]; description?: string; price?: number } = {},
  ): void {
    let handle = slug(title);
    for (let n = 2; this.#handles.has(handle); n++) handle = `${slug(title)}-${n}`;
    this.#handles.add(handle);
    const n = this.items.length;
    const options = (opts.options ?? []).map(([name, values]) => ({ name, values }));
    const combos: Record<string, string>[] = options.reduce<Record<string, string>[]>(
      (all, o) => all.flatMap((c) => o.values.map((v) => ({ ...c, [o.name]: v }))),
      [{}],
    );
    const price = opts.price ?? 8 + Math.floor(this.#rand() * 60);
    const product: SourceProduct = {
      id: `gid://shopify/Product/${this.#base * 10_000 + n}`,
      handle,
      title,
      vendor: this.#vendor,
      product_type: type,
      tags: opts.tags ?? [],
      available: true,
      options,
      variants: combos.map((c, i) => ({
        id: String(this.#base * 1_000_000 + n * 100 + i),
        options: c,
        price: `${price + i}.00`,
        available: true,
        sku: `${slug(this.#vendor).slice(0, 3).toUpperCase()}-${n}-${i}`,
      })),
      ...(opts.description ? { description_html: `<p>${opts.description}</p>` } : {}),
    };
    this.items.push({ product, facts });
  }

  store(name: string, queries: LabelledQuery[]): Store {
    const catalog: SourceCatalog = {
      currency: "USD",
      store: { name },
      products: this.items.map((i) => i.product),
      collections: [{ handle: "frontpage", title: "Home", products: this.items.map((i) => i.product.handle) }],
    };
    return { name, catalog, facts: new Map(this.items.map((i) => [i.product.handle, i.facts])), queries };
  }
}

const is =
  (kind: string, attr?: string) =>
  (f: Facts): boolean =>
    f.kind === kind && (attr === undefined || f.attr === attr);
const has = (fact: string) => (f: Facts) => f.also.includes(fact);
/** 2 when `best`, 1 when `close`, else 0. */
const graded =
  (best: (f: Facts) => boolean, close: (f: Facts) => boolean = () => false) =>
  (f: Facts) =>
    best(f) ? 2 : close(f) ? 1 : 0;
const nothing = () => 0;

function bakery(): Store {
  const b = new StoreBuilder("Crumb & Co", 31);
  const flavours = [
    "Chocolate",
    "Vanilla",
    "Red Velvet",
    "Lemon",
    "Carrot",
    "Salted Caramel",
    "Strawberry",
    "Coffee",
    "Coconut",
    "Raspberry",
    "Pistachio",
    "Ginger",
  ];
  const mention = () =>
    b.pick([
      "Made with Belgian chocolate and fresh cream.",
      "Pairs beautifully with a cup of coffee.",
      "A favourite for birthdays and office parties.",
      "Finished with a vanilla bean buttercream.",
      "Baked fresh every morning in small batches.",
      "Try it with our lemon curd.",
      "Keeps for three days in an airtight container.",
    ]);
  const diet = () => [...(b.chance(0.25) ? ["gluten free"] : []), ...(b.chance(0.2) ? ["vegan"] : [])];
  const dietTags = (d: string[]) => d.map((x) => (x === "vegan" ? "#Vegan" : "#GlutenFree"));
  for (const style of ["Layer Cake", "Bundt Cake", "Sponge Cake", "Loaf Cake"])
    for (const flavour of flavours) {
      const d = diet();
      b.add(
        `${flavour} ${style}`,
        "Cakes",
        { kind: "cake", attr: flavour.toLowerCase(), also: d },
        {
          tags: ["#Birthday", ...dietTags(d)],
          options: [["Size", ["6 inch", "8 inch", "10 inch"]]],
          description: `A ${style.toLowerCase()} with ${flavour.toLowerCase()} sponge. ${mention()} ${mention()}`,
        },
      );
    }
  for (const flavour of flavours) {
    const d = diet();
    b.add(
      `${flavour} Cupcakes`,
      "Cupcakes",
      { kind: "cupcake", attr: flavour.toLowerCase(), also: d },
      {
        tags: ["#Party", ...dietTags(d)],
        options: [["Size", ["Box of 6", "Box of 12"]]],
        description: `Soft ${flavour.toLowerCase()} cupcakes with a swirl of frosting. ${mention()}`,
      },
    );
  }
  for (const style of ["Cookies", "Sandwich Cookies", "Shortbread Biscuits"])
    for (const flavour of flavours.slice(0, 9)) {
      const d = diet();
      b.add(
        `${flavour} ${style}`,
        "Cookies",
        { kind: "cookie", attr: flavour.toLowerCase(), also: d },
        {
          tags: dietTags(d),
          options: [["Size", ["Half Dozen", "Dozen"]]],
          description: `Crisp at the edge, chewy in the middle. ${mention()}`,
        },
      );
    }
  for (const style of ["Brownies", "Blondies"])
    for (const flavour of ["Chocolate", "Salted Caramel", "Raspberry", "Pistachio", "Coffee", "Coconut"]) {
      const d = diet();
      b.add(
        `${flavour} ${style}`,
        "Brownies",
        { kind: style === "Brownies" ? "brownie" : "blondie", attr: flavour.toLowerCase(), also: d },
        {
          tags: dietTags(d),
          description: `Fudgy squares, cut by hand. ${mention()}`,
        },
      );
    }
  for (const flavour of flavours)
    b.add(
      `${flavour} Macarons`,
      "Macarons",
      { kind: "macaron", attr: flavour.toLowerCase(), also: ["gluten free"] },
      {
        tags: ["#GlutenFree", "#GiftIdeas"],
        options: [["Size", ["Box of 6", "Box of 12", "Box of 24"]]],
        description: `Almond shells with a ${flavour.toLowerCase()} ganache. ${mention()}`,
      },
    );
  for (const bread of ["Sourdough Loaf", "Baguette", "Brioche", "Focaccia", "Rye Bread", "Bagels"])
    for (const twist of ["Classic", "Seeded", "Rosemary", "Olive"])
      b.add(
        `${twist} ${bread}`,
        "Breads",
        { kind: slug(bread).split("-")[0] as string, attr: twist.toLowerCase(), also: [] },
        {
          description: `Slow-fermented ${bread.toLowerCase()} with a ${twist.toLowerCase()} finish. ${mention()}`,
        },
      );
  for (const pastry of ["Croissant", "Pain au Chocolat", "Danish Pastry", "Cinnamon Roll", "Doughnut"])
    for (const twist of ["Classic", "Almond", "Raspberry", "Vanilla Custard"])
      b.add(
        `${twist} ${pastry}`,
        "Pastries",
        { kind: slug(pastry), attr: twist.toLowerCase(), also: [] },
        {
          options: [["Size", ["Single", "Box of 4"]]],
          description: `Laminated by hand over three days. ${mention()}`,
        },
      );
  const colours = ["Red", "Blue", "Pink", "Gold", "Silver", "Green", "Rainbow", "Black"];
  for (const tool of ["Sprinkles", "Fondant Icing", "Food Colouring Gel", "Edible Glitter", "Cake Topper"])
    for (const colour of colours)
      b.add(
        `${colour} ${tool}`,
        "Decorating Supplies",
        { kind: slug(tool), attr: colour.toLowerCase(), also: ["decorating"] },
        {
          tags: ["#CakeDecorating", "#Baking"],
          description: `Everything you need to finish a celebration cake. ${mention()}`,
        },
      );
  for (const tool of [
    "Piping Bag Set",
    "Icing Tips Set",
    "Cake Stand",
    "Turntable",
    "Offset Spatula",
    "Cake Tin",
    "Cupcake Cases",
  ])
    b.add(
      tool,
      "Decorating Supplies",
      { kind: slug(tool), also: ["decorating", "tool"] },
      {
        tags: ["#CakeDecorating", "#BakingTools"],
        options: tool === "Cupcake Cases" ? [["Colour", colours.slice(0, 5)]] : [],
        description: `A baker's essential for cakes, cupcakes and cookies. ${mention()}`,
      },
    );
  for (const mix of ["Cake Mix", "Cookie Mix", "Brownie Mix", "Pancake Mix"])
    for (const flavour of flavours.slice(0, 6))
      b.add(
        `${flavour} ${mix}`,
        "Baking Mixes",
        { kind: slug(mix), attr: flavour.toLowerCase(), also: ["mix"] },
        {
          tags: ["#BakeAtHome"],
          description: `Just add eggs, butter and milk. ${mention()}`,
        },
      );
  for (const box of [
    "Birthday Treat Box",
    "Afternoon Tea Box",
    "Cookie Gift Box",
    "Macaron Gift Box",
    "Brownie Letterbox Gift",
  ])
    b.add(
      box,
      "Gift Boxes",
      { kind: "gift box", also: [slug(box).split("-")[0] as string] },
      {
        tags: ["#GiftIdeas"],
        options: [["Flavor", flavours.slice(0, 4)]],
        description: `A box of our bestsellers, hand packed and posted. ${mention()}`,
      },
    );

  const cakeKinds = ["cake"];
  return b.store("Crumb & Co", [
    {
      q: "chocolate cake",
      kind: "attribute",
      grade: graded(is("cake", "chocolate"), (f) => cakeKinds.includes(f.kind)),
    },
    { q: "red velvet cupcakes", kind: "attribute", grade: graded(is("cupcake", "red velvet"), is("cupcake")) },
    { q: "lemon cake", kind: "attribute", grade: graded(is("cake", "lemon"), is("cake")) },
    { q: "cupcakes", kind: "one word", grade: graded(is("cupcake")) },
    { q: "macarons", kind: "one word", grade: graded(is("macaron")) },
    { q: "sourdough", kind: "one word", grade: graded(is("sourdough")) },
    { q: "sprinkles", kind: "one word", grade: graded(is("sprinkles")) },
    { q: "cupcake", kind: "plural", grade: graded(is("cupcake")) },
    { q: "brownie", kind: "plural", grade: graded(is("brownie"), is("blondie")) },
    { q: "cookie", kind: "plural", grade: graded(is("cookie")) },
    { q: "bagel", kind: "plural", grade: graded(is("bagels")) },
    { q: "croissants", kind: "plural", grade: graded(is("croissant")) },
    {
      q: "gluten free brownies",
      kind: "two words",
      grade: graded((f) => is("brownie")(f) && has("gluten free")(f), is("brownie")),
    },
    { q: "vegan cookies", kind: "two words", grade: graded((f) => is("cookie")(f) && has("vegan")(f), is("cookie")) },
    { q: "cake decorating", kind: "two words", grade: graded(has("decorating")) },
    { q: "pistachio macarons", kind: "attribute", grade: graded(is("macaron", "pistachio"), is("macaron")) },
    { q: "strawberry cake mix", kind: "attribute", grade: graded(is("cake-mix", "strawberry"), is("cake-mix")) },
    { q: "gold sprinkles", kind: "attribute", grade: graded(is("sprinkles", "gold"), is("sprinkles")) },
    { q: "rosemary focaccia", kind: "attribute", grade: graded(is("focaccia", "rosemary"), is("focaccia")) },
    { q: "choclate cake", kind: "typo", grade: graded(is("cake", "chocolate"), is("cake")) },
    { q: "croissnat", kind: "typo", grade: graded(is("croissant")) },
    { q: "brownis", kind: "typo", grade: graded(is("brownie"), is("blondie")) },
    { q: "pistacio", kind: "typo", grade: graded((f) => f.attr === "pistachio") },
    { q: "cupc", kind: "prefix", grade: graded((f) => f.kind === "cupcake" || f.kind === "cupcake-cases") },
    { q: "sourd", kind: "prefix", grade: graded(is("sourdough")) },
    { q: "red vel", kind: "prefix", grade: graded((f) => f.attr === "red velvet") },
    { q: "food coloring", kind: "spelling", grade: graded(is("food-colouring-gel")) },
    { q: "donuts", kind: "spelling", grade: graded(is("doughnut")) },
    { q: "flavor gift box", kind: "spelling", grade: graded(is("gift box")) },
    { q: "offset spatula", kind: "two words", grade: graded(is("offset-spatula")) },
    { q: "turntable", kind: "one word", grade: graded(is("turntable")) },
    {
      q: "laminated",
      kind: "description",
      grade: graded((f) =>
        ["croissant", "pain-au-chocolat", "danish-pastry", "cinnamon-roll", "doughnut"].includes(f.kind),
      ),
    },
    { q: "almond shells", kind: "description", grade: graded(is("macaron")) },
    { q: "bicycle", kind: "nothing", grade: nothing },
    { q: "sushi platter", kind: "nothing", grade: nothing },
    { q: "laptop stand", kind: "nothing", grade: nothing },
  ]);
}

function cosmetics(): Store {
  const b = new StoreBuilder("Lumen Skin", 47);
  const mention = () =>
    b.pick([
      "Follow with our hyaluronic serum for extra hydration.",
      "Suitable for sensitive skin.",
      "Dermatologist tested and fragrance free.",
      "Use morning and evening after cleansing.",
      "Pairs with the vitamin C serum for a brighter look.",
      "Packed in recyclable glass.",
    ]);
  const skins = ["dry skin", "oily skin", "combination skin", "sensitive skin"];
  const kinds: [string, string, string[]][] = [
    [
      "Serum",
      "Serums",
      ["Vitamin C", "Vitamin E", "Hyaluronic Acid", "Niacinamide", "Retinol", "Peptide", "Squalane", "Bakuchiol"],
    ],
    ["Moisturiser", "Moisturisers", ["Daily", "Rich", "Gel", "Night", "Tinted", "Barrier", "Oil Free", "Ceramide"]],
    ["Cleanser", "Cleansers", ["Foaming", "Cream", "Oil", "Balm", "Gel", "Micellar", "Exfoliating", "Gentle"]],
    [
      "Face Mask",
      "Face Masks",
      ["Clay", "Sheet", "Overnight", "Charcoal", "Honey", "Vitamin C", "Hydrating", "Peel Off"],
    ],
    ["Eye Cream", "Eye Creams", ["Caffeine", "Retinol", "Peptide", "Brightening", "Cooling", "Vitamin E"]],
    ["Toner", "Toners", ["Rose", "Glycolic", "Hydrating", "Witch Hazel", "Rice", "Niacinamide"]],
    ["Sunscreen", "Sunscreens", ["SPF 30", "SPF 50", "Mineral SPF 30", "Tinted SPF 50", "Body SPF 50"]],
  ];
  for (const [kind, type, variants] of kinds)
    for (const v of variants)
      for (const line of ["", "Travel ", "Sensitive "]) {
        const skin = b.pick(skins);
        b.add(
          `${v} ${line}${kind}`.replace(/\s+/g, " "),
          type,
          { kind: slug(kind), attr: slug(v), also: [skin, ...(line === "Travel " ? ["travel"] : [])] },
          {
            tags: ["#CrueltyFree", ...(b.chance(0.5) ? ["#Vegan"] : []), skin],
            options: [["Size", line === "Travel " ? ["15ml"] : ["30ml", "50ml"]]],
            description: `A ${v.toLowerCase()} ${kind.toLowerCase()} for ${skin}. ${mention()} ${mention()}`,
          },
        );
      }
  const shades = ["Nude", "Rose", "Berry", "Coral", "Red", "Plum", "Mocha", "Peach"];
  for (const [kind, type] of [
    ["Lipstick", "Lipsticks"],
    ["Lip Balm", "Lip Balms"],
    ["Lip Gloss", "Lip Glosses"],
    ["Blush", "Blushes"],
    ["Nail Polish", "Nail Polishes"],
  ] as const)
    for (const shade of shades)
      b.add(
        `${shade} ${kind}`,
        type,
        { kind: slug(kind), attr: shade.toLowerCase(), also: ["makeup"] },
        {
          tags: ["#CrueltyFree", "#Makeup"],
          options: [["Shade", [shade]]],
          description: `A buildable ${shade.toLowerCase()} colour that lasts all day. ${mention()}`,
        },
      );
  for (const tool of ["Jade Roller", "Gua Sha", "Makeup Brush Set", "Cotton Pads", "Headband", "Makeup Bag"])
    for (const colour of ["Pink", "Green", "Black", "Cream"])
      b.add(
        `${colour} ${tool}`,
        "Accessories",
        { kind: slug(tool), attr: colour.toLowerCase(), also: ["tool"] },
        {
          tags: ["#SelfCare"],
          description: `Made to last, in ${colour.toLowerCase()}. ${mention()}`,
        },
      );
  for (const set of ["Glow Kit", "Travel Set", "Starter Routine", "Gift Set", "Minis Collection"])
    b.add(
      `Skincare ${set}`,
      "Sets",
      { kind: "set", also: [] },
      {
        tags: ["#GiftIdeas"],
        description: `A serum, a moisturiser and a cleanser, boxed. ${mention()}`,
      },
    );
  return b.store("Lumen Skin", [
    {
      q: "vitamin c serum",
      kind: "attribute",
      grade: graded(is("serum", "vitamin-c"), (f) => f.attr === "vitamin-c" || f.kind === "serum"),
    },
    { q: "serum", kind: "one word", grade: graded(is("serum")) },
    { q: "serums", kind: "plural", grade: graded(is("serum")) },
    { q: "retinol", kind: "one word", grade: graded((f) => f.attr === "retinol") },
    { q: "night cream", kind: "two words", grade: graded(is("moisturiser", "night"), is("moisturiser")) },
    { q: "moisturizer", kind: "spelling", grade: graded(is("moisturiser")) },
    {
      q: "moisturizer for dry skin",
      kind: "spelling",
      grade: graded((f) => is("moisturiser")(f) && has("dry skin")(f), is("moisturiser")),
    },
    { q: "oil free moisturiser", kind: "attribute", grade: graded(is("moisturiser", "oil-free"), is("moisturiser")) },
    { q: "serum e", kind: "attribute", grade: graded(is("serum", "vitamin-e"), (f) => f.attr === "vitamin-e") },
    {
      q: "spf 50",
      kind: "attribute",
      grade: graded((f) => f.kind === "sunscreen" && /50/.test(f.attr ?? ""), is("sunscreen")),
    },
    { q: "sunscreen", kind: "one word", grade: graded(is("sunscreen")) },
    { q: "red lipstick", kind: "attribute", grade: graded(is("lipstick", "red"), is("lipstick")) },
    { q: "lip balm", kind: "two words", grade: graded(is("lip-balm")) },
    { q: "lipsticks", kind: "plural", grade: graded(is("lipstick")) },
    { q: "face mask", kind: "two words", grade: graded(is("face-mask")) },
    { q: "clay mask", kind: "attribute", grade: graded(is("face-mask", "clay"), is("face-mask")) },
    { q: "hyaluronic", kind: "one word", grade: graded((f) => f.attr === "hyaluronic-acid") },
    { q: "hyaluronc acid", kind: "typo", grade: graded((f) => f.attr === "hyaluronic-acid") },
    { q: "niacinamde", kind: "typo", grade: graded((f) => f.attr === "niacinamide") },
    { q: "cleanser", kind: "one word", grade: graded(is("cleanser")) },
    { q: "clenser", kind: "typo", grade: graded(is("cleanser")) },
    { q: "eye creams", kind: "plural", grade: graded(is("eye-cream")) },
    { q: "gua sha", kind: "two words", grade: graded(is("gua-sha")) },
    { q: "jade", kind: "one word", grade: graded(is("jade-roller")) },
    { q: "nail pol", kind: "prefix", grade: graded(is("nail-polish")) },
    { q: "toner", kind: "one word", grade: graded(is("toner")) },
    {
      q: "travel size serum",
      kind: "two words",
      grade: graded((f) => is("serum")(f) && has("travel")(f), is("serum")),
    },
    { q: "plum colour", kind: "spelling", grade: graded((f) => f.attr === "plum") },
    { q: "gift set", kind: "two words", grade: graded(is("set")) },
    { q: "shampoo", kind: "nothing", grade: nothing },
    { q: "mens beard oil", kind: "nothing", grade: nothing },
    { q: "hair dryer", kind: "nothing", grade: nothing },
  ]);
}

function kids(): Store {
  const b = new StoreBuilder("Little Sprout", 59);
  const colours = ["Grey", "Navy", "Pink", "Yellow", "Green", "Red", "Oatmeal", "Blue"];
  const ages = ["0-3M", "3-6M", "6-12M", "1-2Y", "2-3Y", "3-4Y", "4-5Y"];
  const mention = () =>
    b.pick([
      "Made from soft organic cotton.",
      "Pairs with our striped leggings.",
      "Machine washable at 30 degrees.",
      "Nickel-free poppers for easy nappy changes.",
      "Grows with your little one thanks to fold-over cuffs.",
      "A favourite gift for baby showers.",
    ]);
  const kinds: [string, string, string[]][] = [
    ["Dress", "Dresses", ["Pinafore", "Smock", "Party", "Tiered", "Jersey"]],
    ["T-Shirt", "T-Shirts", ["Striped", "Dino Print", "Rainbow", "Pocket", "Long Sleeve"]],
    ["Hoodie", "Hoodies", ["Zip", "Bear Ear", "Fleece", "Raglan"]],
    ["Leggings", "Leggings", ["Striped", "Ribbed", "Footed", "Spotty"]],
    ["Pyjamas", "Pyjamas", ["Star", "Moon", "Cloud", "Fox"]],
    ["Jumper", "Jumpers", ["Cable Knit", "Fair Isle", "Chunky", "Cardigan"]],
    ["Romper", "Rompers", ["Frill", "Dungaree", "Bubble"]],
    ["Sleepsuit", "Sleepsuits", ["Zip", "Popper", "Footless"]],
  ];
  for (const [kind, type, styles] of kinds)
    for (const style of styles)
      for (const colour of colours.filter(() => b.chance(0.7))) {
        const organic = b.chance(0.5);
        b.add(
          `${style} ${kind} - ${colour}`,
          type,
          { kind: slug(kind), attr: colour.toLowerCase(), also: organic ? ["organic"] : [] },
          {
            tags: [...(organic ? ["Organic Cotton"] : []), kind === "Dress" || style === "Frill" ? "Girls" : "Unisex"],
            options: [
              ["Size", ages],
              ["Colour", [colour]],
            ],
            description: `Our ${style.toLowerCase()} ${kind.toLowerCase()} in ${colour.toLowerCase()}. ${mention()} ${mention()}`,
          },
        );
      }
  for (const toy of ["Teddy Bear", "Stacking Rings", "Rattle", "Wooden Blocks", "Soft Book", "Play Mat", "Teether"])
    for (const colour of ["Grey", "Pink", "Blue"])
      b.add(
        `${colour} ${toy}`,
        "Toys",
        { kind: slug(toy), attr: colour.toLowerCase(), also: ["toy"] },
        {
          tags: ["Gifts", "Newborn"],
          description: `A first toy in ${colour.toLowerCase()}. ${mention()}`,
        },
      );
  for (const acc of ["Bib", "Beanie", "Sun Hat", "Socks", "Booties", "Mittens"])
    for (const colour of ["Grey", "Yellow", "Navy"])
      b.add(
        `${colour} ${acc}`,
        "Accessories",
        { kind: slug(acc), attr: colour.toLowerCase(), also: [] },
        {
          options: [["Size", ages.slice(0, 4)]],
          description: `Little extras in ${colour.toLowerCase()}. ${mention()}`,
        },
      );
  return b.store("Little Sprout", [
    { q: "dress", kind: "one word", grade: graded(is("dress")) },
    { q: "dresses", kind: "plural", grade: graded(is("dress")) },
    { q: "pink dress", kind: "attribute", grade: graded(is("dress", "pink"), is("dress")) },
    { q: "grey hoodie", kind: "attribute", grade: graded(is("hoodie", "grey"), is("hoodie")) },
    { q: "gray hoodie", kind: "spelling", grade: graded(is("hoodie", "grey"), is("hoodie")) },
    { q: "pajamas", kind: "spelling", grade: graded(is("pyjamas")) },
    { q: "navy pajamas", kind: "spelling", grade: graded(is("pyjamas", "navy"), is("pyjamas")) },
    // No synonyms in this store: "sweater" needs them to reach the jumpers (every engine misses it).
    { q: "sweater", kind: "one word", grade: graded(is("jumper")) },
    { q: "tshirt", kind: "one word", grade: graded(is("t-shirt")) },
    { q: "t shirts", kind: "plural", grade: graded(is("t-shirt")) },
    { q: "striped leggings", kind: "attribute", grade: graded((f) => f.kind === "leggings" && true, is("leggings")) },
    {
      q: "organic cotton romper",
      kind: "two words",
      grade: graded((f) => is("romper")(f) && has("organic")(f), is("romper")),
    },
    {
      q: "organic romper",
      kind: "two words",
      grade: graded((f) => is("romper")(f) && has("organic")(f), is("romper")),
    },
    { q: "teddy", kind: "one word", grade: graded(is("teddy-bear")) },
    { q: "teddy bears", kind: "plural", grade: graded(is("teddy-bear")) },
    { q: "sleepsuit", kind: "one word", grade: graded(is("sleepsuit")) },
    { q: "sleepsuits", kind: "plural", grade: graded(is("sleepsuit")) },
    { q: "slepsuit", kind: "typo", grade: graded(is("sleepsuit")) },
    { q: "cardigan", kind: "one word", grade: graded((f) => f.kind === "jumper") },
    { q: "jumpr", kind: "typo", grade: graded(is("jumper")) },
    { q: "jumpers", kind: "plural", grade: graded(is("jumper")) },
    { q: "dungaree", kind: "one word", grade: graded(is("romper")) },
    { q: "bib", kind: "one word", grade: graded(is("bib")) },
    { q: "bibs", kind: "plural", grade: graded(is("bib")) },
    { q: "sun hat", kind: "two words", grade: graded(is("sun-hat")) },
    { q: "yellow sun hat", kind: "attribute", grade: graded(is("sun-hat", "yellow"), is("sun-hat")) },
    { q: "wooden blocks", kind: "two words", grade: graded(is("wooden-blocks")) },
    { q: "play m", kind: "prefix", grade: graded(is("play-mat")) },
    { q: "rompe", kind: "prefix", grade: graded(is("romper")) },
    { q: "poppers", kind: "description", grade: graded(is("sleepsuit")) },
    { q: "school shoes", kind: "nothing", grade: nothing },
    { q: "car seat", kind: "nothing", grade: nothing },
  ]);
}

function bikes(): Store {
  const b = new StoreBuilder("Spoke & Chain", 73);
  const mention = () =>
    b.pick([
      "Fits most road and gravel bikes.",
      "Pair it with our tubeless tyre sealant.",
      "Tested on the cobbles of the Peak District.",
      "Lightweight aluminium construction.",
      "Comes with a two-year warranty.",
      "Ride further in comfort.",
    ]);
  for (const kind of ["Road Bike", "Gravel Bike", "Mountain Bike", "Hybrid Bike", "Kids Bike", "Electric Bike"])
    for (const model of ["Sprint", "Ridge", "Tempo", "Atlas", "Comet", "Nova", "Summit", "Drift", "Pulse", "Vector"])
      b.add(
        `${model} ${kind}`,
        "Bikes",
        { kind: slug(kind), attr: model.toLowerCase(), also: ["bike"] },
        {
          tags: [kind.split(" ")[0] as string, "Bikes"],
          options: [
            ["Size", ["S", "M", "L", "XL"]],
            ["Colour", [b.pick(["Black", "Grey", "Red", "Blue"])]],
          ],
          description: `A ${kind.toLowerCase()} with a ${b.pick(["carbon", "aluminium", "steel"])} frame. ${mention()}`,
          price: 500,
        },
      );
  for (const [kind, type, variants] of [
    ["Tyre", "Tyres", ["Road 25mm", "Road 28mm", "Gravel 40mm", "MTB 2.4", "Tubeless 32mm", "Winter 35mm"]],
    ["Inner Tube", "Inner Tubes", ["Road 700c", "MTB 29er", "Presta", "Schrader"]],
    ["Helmet", "Helmets", ["Aero", "Trail", "Commuter", "Kids", "MIPS Road"]],
    ["Bike Light", "Lights", ["Front 800 Lumen", "Rear USB", "Light Set", "Helmet Mount"]],
    ["Saddle", "Saddles", ["Road", "Comfort", "Gel", "Womens"]],
    ["Pedals", "Pedals", ["Clipless", "Flat", "Hybrid"]],
    ["Jersey", "Jerseys", ["Short Sleeve", "Long Sleeve", "Thermal", "Womens"]],
    ["Gloves", "Gloves", ["Summer", "Winter", "Full Finger"]],
    ["Bib Shorts", "Shorts", ["Pro", "Endurance", "Womens"]],
    ["Bottle Cage", "Accessories", ["Carbon", "Alloy", "Side Entry"]],
    ["Bike Lock", "Locks", ["D-Lock", "Chain", "Folding", "Cable"]],
    ["Pump", "Pumps", ["Floor", "Mini", "CO2"]],
    ["Chain", "Drivetrain", ["11 Speed", "12 Speed", "Single Speed"]],
  ] as const)
    for (const v of variants)
      for (const colour of kind === "Jersey" || kind === "Helmet" || kind === "Gloves"
        ? ["Black", "Red", "Grey", "Blue", "Yellow"]
        : ["Black"]) {
        const title =
          colour === "Black" && !(kind === "Jersey" || kind === "Helmet" || kind === "Gloves")
            ? `${v} ${kind}`
            : `${v} ${kind} - ${colour}`;
        b.add(
          title,
          type,
          { kind: slug(kind), attr: colour.toLowerCase(), also: [slug(v)] },
          {
            tags: [type],
            options: kind === "Jersey" || kind === "Gloves" || kind === "Bib Shorts" ? [["Size", ["S", "M", "L"]]] : [],
            description: `${v} ${kind.toLowerCase()}. ${mention()} ${mention()}`,
          },
        );
      }
  return b.store("Spoke & Chain", [
    { q: "road bike", kind: "two words", grade: graded(is("road-bike"), (f) => f.also.includes("bike")) },
    { q: "gravel bikes", kind: "plural", grade: graded(is("gravel-bike"), (f) => f.also.includes("bike")) },
    { q: "ebike", kind: "one word", grade: graded(is("electric-bike")) },
    { q: "electric bike", kind: "two words", grade: graded(is("electric-bike"), (f) => f.also.includes("bike")) },
    { q: "tires", kind: "spelling", grade: graded(is("tyre")) },
    { q: "tire", kind: "spelling", grade: graded(is("tyre")) },
    { q: "tyres", kind: "one word", grade: graded(is("tyre")) },
    {
      q: "gravel tyre",
      kind: "attribute",
      grade: graded((f) => is("tyre")(f) && f.also.some((a) => a.startsWith("gravel")), is("tyre")),
    },
    {
      q: "tubeless tire",
      kind: "spelling",
      grade: graded((f) => is("tyre")(f) && f.also.some((a) => a.startsWith("tubeless")), is("tyre")),
    },
    { q: "helmet", kind: "one word", grade: graded(is("helmet")) },
    { q: "red helmet", kind: "attribute", grade: graded(is("helmet", "red"), is("helmet")) },
    {
      q: "kids helmet",
      kind: "two words",
      grade: graded((f) => is("helmet")(f) && f.also.includes("kids"), is("helmet")),
    },
    { q: "helemt", kind: "typo", grade: graded(is("helmet")) },
    { q: "lights", kind: "plural", grade: graded(is("bike-light")) },
    { q: "bike light", kind: "two words", grade: graded(is("bike-light")) },
    {
      q: "rear light",
      kind: "attribute",
      grade: graded((f) => is("bike-light")(f) && f.also.includes("rear-usb"), is("bike-light")),
    },
    { q: "saddle", kind: "one word", grade: graded(is("saddle")) },
    { q: "sadle", kind: "typo", grade: graded(is("saddle")) },
    { q: "pedal", kind: "plural", grade: graded(is("pedals")) },
    {
      q: "clipless pedals",
      kind: "attribute",
      grade: graded((f) => is("pedals")(f) && f.also.includes("clipless"), is("pedals")),
    },
    {
      q: "winter gloves",
      kind: "attribute",
      grade: graded((f) => is("gloves")(f) && f.also.includes("winter"), is("gloves")),
    },
    { q: "glove", kind: "plural", grade: graded(is("gloves")) },
    { q: "jerseys", kind: "plural", grade: graded(is("jersey")) },
    {
      q: "thermal jersey",
      kind: "attribute",
      grade: graded((f) => is("jersey")(f) && f.also.includes("thermal"), is("jersey")),
    },
    { q: "bib shorts", kind: "two words", grade: graded(is("bib-shorts")) },
    { q: "inner tubes", kind: "plural", grade: graded(is("inner-tube")) },
    {
      q: "presta tube",
      kind: "attribute",
      grade: graded((f) => is("inner-tube")(f) && f.also.includes("presta"), is("inner-tube")),
    },
    {
      q: "d lock",
      kind: "two words",
      grade: graded((f) => is("bike-lock")(f) && f.also.includes("d-lock"), is("bike-lock")),
    },
    { q: "bike lock", kind: "two words", grade: graded(is("bike-lock")) },
    { q: "pum", kind: "prefix", grade: graded(is("pump")) },
    { q: "mountain b", kind: "prefix", grade: graded(is("mountain-bike")) },
    { q: "mountian bike", kind: "typo", grade: graded(is("mountain-bike"), (f) => f.also.includes("bike")) },
    { q: "yoga mat", kind: "nothing", grade: nothing },
    { q: "running shoes", kind: "nothing", grade: nothing },
  ]);
}

/** The four stores, built afresh (the same every time). */
export function storeCatalogs(): Store[] {
  return [bakery(), cosmetics(), kids(), bikes()];
}

/** nDCG@10, P@3 and MRR of one answer. */
export interface Scores {
  ndcg: number;
  p3: number;
  mrr: number;
}

/**
 * The three measures of one answer, from the grade of every product of the store: nDCG@10 with
 * gains 2^grade - 1; P@3 the share of the first three that are relevant (grade >= 1) out of
 * min(3, relevant products); MRR 1 / rank of the first relevant one in the first 10 (0: none).
 */
export function measure(answer: readonly string[], grades: ReadonlyMap<string, number>): Scores {
  const gain = (g: number) => 2 ** g - 1;
  const top = answer.slice(0, 10).map((h) => grades.get(h) ?? 0);
  const dcg = top.reduce((s, g, i) => s + gain(g) / Math.log2(i + 2), 0);
  const ideal = [...grades.values()]
    .sort((a, b) => b - a)
    .slice(0, 10)
    .reduce((s, g, i) => s + gain(g) / Math.log2(i + 2), 0);
  const relevant = [...grades.values()].filter((g) => g > 0).length;
  const first = top.findIndex((g) => g > 0);
  return {
    ndcg: ideal === 0 ? 0 : dcg / ideal,
    p3: relevant === 0 ? 0 : top.slice(0, 3).filter((g) => g > 0).length / Math.min(3, relevant),
    mrr: first < 0 ? 0 : 1 / (first + 1),
  };
}
