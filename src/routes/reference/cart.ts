import type { OperationDoc } from "../../openapi/spec.ts";
import {
  AddCartLineRequestSchema,
  CartLinePathParamsSchema,
  CartQuerySchema,
  IdempotencyKeySchema,
  MAX_CART_ATTRIBUTE_BYTES,
  UpdateCartLineRequestSchema,
  UpdateCartRequestSchema,
} from "../../cart/api.ts";
import { CART_WRITE_ERRORS, errors, JSON_BODY_ERRORS, QUERY_ERRORS, BEARER_ERRORS } from "../../openapi/errors.ts";
import { CART_WRITES, cartOk, WRITE_HEADERS } from "../../openapi/responses.ts";
import { SEED_EXAMPLES } from "../../openapi/seed-examples.ts";
import { COST_IN_EVERY_ANSWER, PATCH_PRICING } from "./cart-cost.ts";

/**
 * The real limits of a note and attributes (issue 42, points 10 and 11): the body cap bounds one
 * request before the per-field limits do, and the cart's budget bounds them all together.
 */
const ATTRIBUTE_LIMITS =
  `**Limits, all of them reachable**: every request body is at most 16 KiB (16,384 bytes, ` +
  `contract 1; 413 \`body_too_large\` past it), so one request carries at most that much JSON: a ` +
  `note of 5,000 characters fits whenever it is sent as UTF-8 and its characters take at most 3 ` +
  `bytes (every script of the Basic Multilingual Plane: Latin, Cyrillic, Greek, CJK...), but not ` +
  `5,000 emoji (4 bytes each: about 4,090 fit); a key of 100 and a value of 1,000 characters fit ` +
  `in any script; 50 pairs fit while their keys and values stay under about 16,000 bytes ` +
  `together. Send non-ASCII text as UTF-8, not \`\\u\` escapes (6 or 12 bytes a character). ` +
  `Across requests, a cart's note, its attributes and every line's attributes hold at most ` +
  `${MAX_CART_ATTRIBUTE_BYTES.toLocaleString("en-US")} bytes of UTF-8 together (keys and values ` +
  `counted as text, not as JSON): a write that would take them past it is 400 ` +
  `\`attributes_too_large\` (\`param\` \`note\` or \`attributes\`) and changes nothing; more units ` +
  `on an existing line, or an add without attributes, never count.`;

const IDEMPOTENCY = [{ name: "Idempotency-Key", schema: IdempotencyKeySchema }] as const;

/** The OpenAPI description of src/routes/cart.ts's operations, by operationId (never in the Worker bundle). */
export const CART_DOCS = {
  getCart: {
    summary: "Get the cart",
    description:
      "The token holder's cart; an empty one when none exists or it expired. Lines are " +
      `re-priced against the current catalog.\n\n${COST_IN_EVERY_ANSWER}`,
    tag: "Cart",
    auth: "bearer",
    query: CartQuerySchema,
    responses: {
      200: cartOk("The cart."),
      ...errors(...BEARER_ERRORS, ...QUERY_ERRORS, "catalog_unavailable"),
    },
  },
  updateCart: {
    summary: "Set the cart's note, attributes, buyer, shipping option and discount codes",
    description:
      "Sets the cart's `note` (plain text, at most 5,000 characters) and/or `attributes` (at most " +
      "50 pairs; a key 1–100 characters, a value at most 1,000; characters are Unicode code " +
      "points). `attributes` replaces the whole set; `null` clears either field; a field left " +
      "out is left as it is. Both are stored and served exactly as written (no trimming, no " +
      "HTML: escape them when you show them), and the checkout and the order keep them. A " +
      "refusal names the field or the key at fault in `param` (`note`, `attributes`, " +
      `\`attributes.Gift wrap\`). ${ATTRIBUTE_LIMITS}\n\n${PATCH_PRICING}\n\n${COST_IN_EVERY_ANSWER}\n\n${CART_WRITES}`,
    tag: "Cart",
    auth: "bearer",
    query: CartQuerySchema,
    requestHeaders: IDEMPOTENCY,
    body: {
      schema: UpdateCartRequestSchema,
      examples: {
        both: {
          summary: "A note and attributes",
          value: { note: "Please gift wrap.", attributes: { "Gift wrap": "yes" } },
        },
        clear: { summary: "Clear both", value: { note: null, attributes: null } },
        destination: {
          summary: "Where it goes, the express rate and a code",
          value: {
            buyer: { email: "ada@example.com", country: "US", region: "CA", postal_code: "94107" },
            shipping_option: "express",
            discount_codes: ["SUMMER10"],
          },
        },
        cheapest: {
          summary: "Back to the cheapest rate, no codes",
          value: { shipping_option: null, discount_codes: [] },
        },
      },
    },
    responses: {
      200: cartOk("The cart with its note, attributes, buyer, shipping option and codes, and its cost.", WRITE_HEADERS),
      ...errors(
        ...CART_WRITE_ERRORS,
        ...QUERY_ERRORS,
        ...JSON_BODY_ERRORS,
        "attributes_too_large",
        "parameter_missing",
      ),
    },
  },
  emptyCart: {
    summary: "Empty the cart",
    description:
      "Removes every line, the note, the attributes, the buyer, the shipping option and the codes, and " +
      `answers the emptied cart. ${CART_WRITES}`,
    tag: "Cart",
    auth: "bearer",
    query: CartQuerySchema,
    requestHeaders: IDEMPOTENCY,
    responses: {
      200: cartOk("The emptied cart.", WRITE_HEADERS),
      ...errors(...CART_WRITE_ERRORS, ...QUERY_ERRORS),
    },
  },
  addCartLine: {
    summary: "Add a variant to the cart",
    description:
      `200 with the cart for an available variant; 404 \`sold_out\` (message \`Sold out\`) for ` +
      `a sold-out one, 404 \`resource_missing\` for an unknown one. Adding a variant already ` +
      `in the cart with the same \`attributes\` (line properties such as an engraving; in any ` +
      `key order) adds to its line; with other attributes it is another line, as at Shopify. ` +
      `Line attributes have the limits of the cart's (50 pairs, keys 1–100 and values up to ` +
      `1,000 characters; \`param\` names the key at fault) and are served as written; a new line's ` +
      `attributes count toward the cart's 65,536 bytes (400 \`attributes_too_large\`, below). 503 ` +
      `\`catalog_unavailable\` while no catalog has been published. Live stock (section 9.3): for a ` +
      `variant whose stock the catalog tracks, the add reads the variant's Stock object itself, never ` +
      `a cached copy: nothing left is 404 \`sold_out\`; more than is left (counting what the cart ` +
      `already holds of the variant, on every line; units held by open checkouts are gone) is 409 ` +
      `\`insufficient_stock\` with \`param: "quantity"\` and \`available_quantity\`, and changes ` +
      `nothing. A cart does not reserve stock: a checkout does. ${ATTRIBUTE_LIMITS}\n\n${COST_IN_EVERY_ANSWER}\n\n${CART_WRITES}`,
    tag: "Cart",
    auth: "bearer",
    query: CartQuerySchema,
    requestHeaders: IDEMPOTENCY,
    body: {
      schema: AddCartLineRequestSchema,
      examples: {
        available: { summary: "An available variant: 200", value: SEED_EXAMPLES.addAvailable },
        soldOut: { summary: "A sold-out variant (Example T-Shirt): 404 Sold out", value: SEED_EXAMPLES.addSoldOut },
        engraved: {
          summary: "With line attributes: another line than the plain variant",
          value: { ...SEED_EXAMPLES.addAvailable, attributes: { Engraving: "A.B." } },
        },
      },
    },
    responses: {
      200: cartOk("The cart with the variant added.", WRITE_HEADERS),
      ...errors(
        ...CART_WRITE_ERRORS,
        ...QUERY_ERRORS,
        ...JSON_BODY_ERRORS,
        "parameter_missing",
        "quantity_exceeded",
        "cart_full",
        "attributes_too_large",
        "resource_missing",
        "sold_out",
        "insufficient_stock",
      ),
    },
  },
  updateCartLine: {
    summary: "Change a line's quantity",
    description:
      `Sets the quantity; 0 removes the line. Another cart's line id answers 404 like an ` +
      `unknown one. Growing a line of a tracked variant reads live stock as an add does (404 ` +
      `\`sold_out\`, 409 \`insufficient_stock\` with \`available_quantity\`); shrinking always works. ` +
      `${CART_WRITES}`,
    tag: "Cart",
    auth: "bearer",
    params: CartLinePathParamsSchema,
    query: CartQuerySchema,
    requestHeaders: IDEMPOTENCY,
    body: {
      schema: UpdateCartLineRequestSchema,
      examples: { two: { summary: "Two units", value: { quantity: 2 } } },
    },
    responses: {
      200: cartOk("The cart with the line changed.", WRITE_HEADERS),
      ...errors(
        ...CART_WRITE_ERRORS,
        ...QUERY_ERRORS,
        ...JSON_BODY_ERRORS,
        "parameter_missing",
        "quantity_exceeded",
        "resource_missing",
        "sold_out",
        "insufficient_stock",
      ),
    },
  },
  removeCartLine: {
    summary: "Remove a line",
    description: `Another cart's line id answers 404 like an unknown one. ${CART_WRITES}`,
    tag: "Cart",
    auth: "bearer",
    params: CartLinePathParamsSchema,
    query: CartQuerySchema,
    requestHeaders: IDEMPOTENCY,
    responses: {
      200: cartOk("The cart without the line.", WRITE_HEADERS),
      ...errors(...CART_WRITE_ERRORS, ...QUERY_ERRORS, "resource_missing"),
    },
  },
} satisfies Record<string, OperationDoc>;
