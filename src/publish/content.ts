import type { ImageRecord } from "../catalog/layout.ts";
import type { SourceImage, SourceProduct } from "../catalog/schema.ts";
import { prepareContent } from "./sanitize.ts";

/**
 * A product's content as publish stores it: the sanitised description and its text, images and
 * SEO fields resolved once here, so the worker only splices stored JSON (see CONTENT_FIELDS in
 * catalog/layout.ts for the line format).
 */

/** Longest SEO description derived from a description's text (Shopify's own limit for the field). */
export const SEO_DESCRIPTION_MAX = 320;

/**
 * The text cut to at most SEO_DESCRIPTION_MAX characters (code points) at the last word boundary
 * that fits with a trailing `…`; a text that fits is kept whole, and a single word longer than
 * the limit is cut mid-word.
 */
export function truncateAtWord(text: string, max = SEO_DESCRIPTION_MAX): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  const head = chars.slice(0, max - 1).join("");
  // A word that ends exactly at the cut is kept whole.
  if (/\s/.test(chars[max - 1] ?? "")) return `${head.trimEnd()}…`;
  const boundary = head.search(/\s\S*$/);
  return `${(boundary > 0 ? head.slice(0, boundary) : head).trimEnd()}…`;
}

export function imageRecord(image: SourceImage): ImageRecord {
  return { url: image.url, alt: image.alt || null, width: image.width ?? null, height: image.height ?? null };
}

/** The first image, which lists show with `?include=image`; null when the product has none. */
export function featuredImage(product: SourceProduct): ImageRecord | null {
  const first = product.images?.[0];
  return first ? imageRecord(first) : null;
}

/**
 * The content line of one product (`<handle>\t<description>\t<images>\t<seo>`), or null when the
 * product has no content at all, in which case the worker answers the defaults itself (empty
 * description, no images, the title as SEO title).
 */
export function contentLine(product: SourceProduct): string | null {
  const seoTitle = product.seo?.title?.trim() || null;
  const seoDescription = product.seo?.description?.trim() || null;
  if (!product.description_html && !product.images?.length && !seoTitle && !seoDescription) return null;
  const { html, text } = product.description_html ? prepareContent(product.description_html) : { html: "", text: "" };
  const images = (product.images ?? []).map(imageRecord);
  const seo = { title: seoTitle ?? product.title, description: seoDescription ?? (text ? truncateAtWord(text) : null) };
  return [
    product.handle,
    `"description_html":${JSON.stringify(html)},"description_text":${JSON.stringify(text)}`,
    `"images":${JSON.stringify(images)}`,
    `"seo":${JSON.stringify(seo)}`,
  ].join("\t");
}

/** A rough size of a product's content line, before sanitising, for sizing the content shards. */
export function contentEstimate(product: SourceProduct): number {
  const html = product.description_html?.length ?? 0;
  const images = product.images?.reduce((sum, i) => sum + i.url.length + (i.alt?.length ?? 0) + 60, 0) ?? 0;
  return (
    product.handle.length +
    2 * html +
    images +
    (product.seo?.title?.length ?? 0) +
    (product.seo?.description?.length ?? 0) +
    120
  );
}
