import { Parser } from "htmlparser2";
import sanitizeHtml from "sanitize-html";

/**
 * Product descriptions arrive as whatever HTML a store wrote (Shopify's `Body (HTML)`, an
 * importer's `description_html`). They are cleaned here, on the Node side at publish, so KV only
 * ever holds HTML a storefront can drop into a page: the build step calls `prepareContent` for
 * every product, and nothing else writes a description.
 *
 * `sanitize-html` because it is an allowlist sanitiser (anything not named below is dropped,
 * which fails safe when browsers grow new elements or attributes), is widely used and
 * maintained, and parses with htmlparser2 the way a browser tokenises, so `<scr<script>ipt>`
 * style tricks do not survive. It runs in Node and, with the test pool's nodejs_compat, in
 * workerd; it is never part of the worker bundle.
 */

/** Formatting a product description needs; no forms, media players, frames or scripts. */
const ALLOWED_TAGS = [
  "p",
  "br",
  "hr",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "blockquote",
  "pre",
  "code",
  "strong",
  "b",
  "em",
  "i",
  "u",
  "s",
  "small",
  "sub",
  "sup",
  "mark",
  "span",
  "div",
  "ul",
  "ol",
  "li",
  "dl",
  "dt",
  "dd",
  "a",
  "img",
  "figure",
  "figcaption",
  "table",
  "caption",
  "thead",
  "tbody",
  "tfoot",
  "tr",
  "th",
  "td",
];

/**
 * No `style`, `class`, `id` or `on*` attribute anywhere: a store's classes mean nothing on another
 * site, inline style can hide or overlay content, and event handlers run script.
 */
const ALLOWED_ATTRIBUTES: Record<string, string[]> = {
  a: ["href", "title"],
  img: ["src", "alt", "title", "width", "height"],
  ol: ["start"],
  th: ["colspan", "rowspan", "scope"],
  td: ["colspan", "rowspan"],
};

/** Elements whose content is dropped with them (their text is code or chrome, not prose). */
const DROPPED_WITH_CONTENT = [
  "script",
  "style",
  "textarea",
  "option",
  "select",
  "noscript",
  "iframe",
  "frame",
  "object",
  "embed",
  "template",
  "svg",
  "math",
  "title",
  "head",
];

const HTML_OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: ALLOWED_TAGS,
  allowedAttributes: ALLOWED_ATTRIBUTES,
  // Links may point to the web, mail or a phone; images only to the web. Never javascript:,
  // data:, vbscript: or any other scheme (relative and protocol-relative URLs are kept).
  allowedSchemes: ["http", "https", "mailto", "tel"],
  allowedSchemesByTag: { img: ["http", "https"] },
  allowedSchemesAppliedToAttributes: ["href", "src", "cite"],
  allowProtocolRelative: true,
  disallowedTagsMode: "discard",
  nonTextTags: DROPPED_WITH_CONTENT,
  // `<a href="javascript:...">` loses its href but keeps its text; an `<img>` without a src is noise.
  exclusiveFilter: (frame) => frame.tag === "img" && !frame.attribs.src,
};

/** Elements whose content is dropped with them, as a set for the text pass. */
const DROPPED = new Set(DROPPED_WITH_CONTENT);

/** Tags after which text continues on a new line or cell: they become a space in plain text. */
const BREAKS =
  /<\/?(?:p|br|hr|h[1-6]|blockquote|pre|div|ul|ol|li|dl|dt|dd|figure|figcaption|table|caption|thead|tbody|tfoot|tr|th|td|img)\b/gi;

/** The allowlisted HTML of a description. */
export function sanitizeDescription(html: string): string {
  return sanitizeHtml(html, HTML_OPTIONS).trim();
}

/**
 * Plain text of already-sanitised HTML: block boundaries become spaces, whitespace collapsed.
 *
 * The text is what the HTML parser sanitize-html uses (htmlparser2, entities decoded) reports
 * outside the elements dropped with their content: word for word what sanitize-html with no tag
 * allowed, then unescaped, gave. It is read from the parser directly because every sanitize-html
 * call leaves ~3 KB of its own setup alive past the call (measured: 200,000 calls of a one-line
 * description moved 620 MB into V8's old generation), and a second call per product made the heap
 * of a 100,000-product publish grow ~170 MiB higher (Node RSS 1,598 -> 1,431 MiB).
 */
export function descriptionText(safeHtml: string): string {
  let text = "";
  // Inside a dropped element: how many of its elements are open (sanitize-html's skipTextDepth).
  let skipped = 0;
  const parser = new Parser(
    {
      onopentagname(name) {
        if (skipped > 0) skipped++;
        else if (DROPPED.has(name)) skipped = 1;
      },
      onclosetag() {
        if (skipped > 0) skipped--;
      },
      ontext(chunk) {
        if (skipped === 0) text += chunk;
      },
    },
    { decodeEntities: true },
  );
  parser.write(safeHtml.replace(BREAKS, " $&"));
  parser.end();
  return plainText(text);
}

/**
 * Decoded text made safe to be pasted anywhere as text:
 * whitespace collapsed, and every `<` and `>` replaced by `‹` and `›` (U+2039, U+203A). A `<`
 * can only be in decoded text because the source wrote it as an entity (`&lt;img onerror=…&gt;`)
 * or as a bare `<` that was no tag; either way a naive client that sets the text as HTML would
 * turn it back into markup, so description_text holds no angle bracket at all and the look-alikes
 * keep it readable (`1 ‹ 2`, `‹b›not a tag‹/b›`).
 */
export function plainText(decoded: string): string {
  return decoded.replace(/\s+/g, " ").trim().replace(/</g, "\u2039").replace(/>/g, "\u203a");
}

/** A start tag of an element dropped with its content, somewhere in the text: a cheap test before parsing. */
const MAY_SWALLOW = new RegExp(`<(?:${DROPPED_WITH_CONTENT.join("|")})(?![a-z0-9-])`, "i");

/** What an unclosed element cost a description: the element and how many characters of text it took. */
export interface DescriptionLoss {
  element: string;
  characters: number;
}

/**
 * Whether the sanitiser drops the rest of a description because an element dropped with its
 * content (`<svg>`, `<noscript>`, `<math>`, `<template>`, `<script>`...) is never closed: the
 * text from there to the end is then inside it and is dropped with it. A closed `<svg>…</svg>`
 * loses only its own content, which is meant, so it is not reported. Reads the source with the
 * parser sanitize-html uses (htmlparser2, entities decoded); most descriptions hold none of these
 * elements and are not parsed at all.
 */
export function descriptionLoss(html: string): DescriptionLoss | null {
  if (!MAY_SWALLOW.test(html)) return null;
  let depth = 0;
  let element = "";
  let lost = "";
  let ending = false;
  let loss: DescriptionLoss | null = null;
  const parser = new Parser(
    {
      onopentagname(name) {
        if (depth > 0) depth++;
        else if (DROPPED.has(name)) {
          depth = 1;
          element = name;
          lost = "";
        }
      },
      ontext(chunk) {
        if (depth > 0) lost += chunk;
      },
      onclosetag() {
        if (depth === 0) return;
        depth--;
        // Closed by the end of the input: everything after its start tag was its content.
        if (depth === 0 && ending && loss === null) {
          const characters = lost.replace(/\s+/g, " ").trim().length;
          if (characters > 0) loss = { element, characters };
        }
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  ending = true;
  parser.end();
  return loss;
}

/**
 * What publish stores for a product's description: the sanitised HTML and its plain text (for
 * meta tags and search snippets). The build step calls this for every product, so unsanitised
 * HTML cannot reach KV.
 */
export function prepareContent(html: string): { html: string; text: string } {
  const safe = sanitizeDescription(html);
  return { html: safe, text: descriptionText(safe) };
}

/** The warning for a description cut short, as the import report and catalog:publish print it. */
export function describeLoss(loss: DescriptionLoss): string {
  return (
    `the description loses its text after an unclosed <${loss.element}> (${loss.characters} ` +
    `characters dropped by the sanitiser); close the element or remove it`
  );
}

/**
 * The warnings of catalog:publish for a catalog as read from its file (any shape: it runs on
 * what was published, without trusting it): one per product whose description is cut short.
 */
export function descriptionLossWarnings(catalog: unknown): string[] {
  const products = (catalog as { products?: unknown } | null)?.products;
  if (!Array.isArray(products)) return [];
  return products.flatMap((product: unknown, index) => descriptionLossWarning(product, index) ?? []);
}

/** descriptionLossWarnings' line for one product (`index` in the catalog), null when nothing is lost. */
export function descriptionLossWarning(product: unknown, index: number): string | null {
  const html = (product as { description_html?: unknown } | null)?.description_html;
  const handle = (product as { handle?: unknown } | null)?.handle;
  const loss = typeof html === "string" ? descriptionLoss(html) : null;
  return loss
    ? `products[${index}]${typeof handle === "string" ? ` (handle ${JSON.stringify(handle)})` : ""}.description_html: ${describeLoss(loss)}`
    : null;
}
