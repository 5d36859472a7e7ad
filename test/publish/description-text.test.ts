import sanitizeHtml from "sanitize-html";
import { describe, expect, it } from "vitest";
import { generateCatalog } from "../../src/publish/generate.ts";
import { descriptionText, sanitizeDescription } from "../../src/publish/sanitize.ts";
import { DROPPED } from "./dropped-elements.ts";

/**
 * descriptionText used to be a second sanitize-html call with no tag allowed (then unescaped);
 * it now reads the same parser directly, to spare publish that call's garbage. This is
 * the old text pass, kept here as the oracle: the stored description_text must not change.
 */
const BREAKS =
  /<\/?(?:p|br|hr|h[1-6]|blockquote|pre|div|ul|ol|li|dl|dt|dd|figure|figcaption|table|caption|thead|tbody|tfoot|tr|th|td|img)\b/gi;
function oldText(html: string): string {
  const stripped = sanitizeHtml(html.replace(BREAKS, " $&"), {
    allowedTags: [],
    allowedAttributes: {},
    nonTextTags: DROPPED,
  });
  const unescaped = stripped
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&");
  // The text holds no < or >; each becomes \u2039 or \u203a.
  return unescaped.replace(/\s+/g, " ").trim().replace(/</g, "\u2039").replace(/>/g, "\u203a");
}

const TRICKY = [
  "<p>Soft &amp; light &lt;b&gt;not a tag&lt;/b&gt; &quot;quoted&quot; &amp;lt; &amp;amp; &nbsp;x&#x3C;y&#62;</p>",
  "a < b and c > d & e",
  "<ul><li>One<ul><li>Nested</li></ul></li><li>Two</li></ul><table><tr><th>A</th><td>B</td></tr></table>",
  "<pre>  keep\n  lines  </pre><h1>T</h1><hr><br>after",
  "<p>x<script>alert(1)</script>y<style>p{}</style>z<noscript><p>n</p></noscript>w</p>",
  "<select><option>1</option><option>2</option></select>kept<svg><text>s</text><g><text>t</text></g></svg>end",
  "<!-- comment --><p>c<![CDATA[data]]>d</p><img src=x alt=pic>tail",
  "<p>unclosed <b>bold <i>italic",
  "<template><p>t</p></template><textarea>ta</textarea><title>ti</title>visible",
  '<a href="https://x.example?a=1&amp;b=2">link &amp; text</a>',
  "emoji 👕 and accents é ü — “quotes”",
];

describe("description text", () => {
  it("is word for word what the sanitize-html text pass gave, for tricky and for raw HTML", () => {
    for (const html of TRICKY) {
      expect(descriptionText(html), html).toBe(oldText(html));
      const safe = sanitizeDescription(html);
      expect(descriptionText(safe), safe).toBe(oldText(safe));
    }
  });

  it("is word for word what the sanitize-html text pass gave, for 2,000 generated descriptions", () => {
    const catalog = generateCatalog({ products: 2000, seed: 7 });
    let compared = 0;
    for (const product of catalog.products) {
      if (!product.description_html) continue;
      const safe = sanitizeDescription(product.description_html);
      expect(descriptionText(safe), safe).toBe(oldText(safe));
      compared++;
    }
    expect(compared).toBeGreaterThan(1000);
  });
});
