import { describe, expect, it } from "vitest";
import { descriptionText, prepareContent, sanitizeDescription } from "../../src/publish/sanitize.ts";

/**
 * The description sanitiser: an allowlist of
 * formatting tags and attributes. These run inside workerd, which also shows sanitize-html works
 * there (the test pool gives workers nodejs_compat; the served worker never imports it).
 */

const HOSTILE = [
  `<p>Mug<script>alert('xss')</script></p>`,
  `<img src="x" onerror="alert(1)">`,
  `<a href="javascript:alert(document.cookie)">Care</a>`,
  `<a href="JaVaScRiPt:alert(1)">upper</a>`,
  `<a href="  javascript:alert(2)">spaces</a>`,
  `<a href="java&#x09;script:alert(3)">entity tab</a>`,
  `<style>body { display: none }</style>`,
  `<iframe src="https://evil.example/frame"></iframe>`,
  `<p style="position:fixed" class="x" id="y" onclick="steal()">styled</p>`,
  `<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+">`,
  `<a href="data:text/html,<script>alert(1)</script>">data</a>`,
  `<a href="vbscript:msgbox(1)">vb</a>`,
  `<svg><script>alert(1)</script><circle onload="alert(1)"/></svg>`,
  `<math><mi xlink:href="javascript:alert(1)">m</mi></math>`,
  `<form action="https://evil.example"><input name="card"><button formaction="javascript:alert(1)">Pay</button></form>`,
  `<object data="x.swf"></object><embed src="x.swf"><base href="https://evil.example/"><meta http-equiv="refresh" content="0;url=javascript:alert(1)"><link rel="stylesheet" href="x.css">`,
  `<scr<script>ipt>alert(1)</script>`,
  `<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>`,
].join("\n");

describe("sanitising a description at publish", () => {
  const { html, text } = prepareContent(HOSTILE);

  it("lets no script, style, iframe, form, object, svg or event handler through", () => {
    for (const forbidden of [
      /<script/i,
      /<style/i,
      /<iframe/i,
      /<form/i,
      /<input/i,
      /<button/i,
      /<object/i,
      /<embed/i,
      /<base/i,
      /<meta/i,
      /<link/i,
      /<svg/i,
      /<math/i,
      /<noscript/i,
      /\son\w+=/i,
      /\sstyle=/i,
      /\sclass=/i,
      /\sid=/i,
    ]) {
      expect(html).not.toMatch(forbidden);
    }
  });

  it("keeps no javascript:, vbscript: or data: URL in any attribute", () => {
    const urls = [...html.matchAll(/\s(?:href|src)="([^"]*)"/g)].map((m) => m[1] ?? "");
    for (const url of urls) expect(url).toMatch(/^(https?:|mailto:|tel:|\/\/|[^:]*$)/i);
    expect(html).not.toMatch(/javascript|vbscript|data:/i);
  });

  it("keeps the harmless text and formatting", () => {
    expect(html).toContain("<p>Mug</p>");
    expect(html).toContain("<a>Care</a>");
    expect(html).toContain("<p>styled</p>");
    expect(text).toContain("Mug");
    // Script and style bodies are dropped with their elements; `<scr<script>ipt>` leaves inert, escaped text.
    expect(text).not.toMatch(/alert\('xss'\)|document\.cookie|display: none|steal\(\)/);
    expect(html).toContain("ipt&gt;alert(1)");
  });

  it("keeps the allowed formatting, safe links and images as written", () => {
    const safe =
      "<h2>Linen shirt</h2><p>Cut from <strong>European</strong> <em>flax</em>.</p><ul><li>One</li><li>Two</li></ul>" +
      '<p><a href="https://shop.example/care" title="Care">care guide</a> <a href="mailto:help@shop.example">mail</a></p>' +
      '<img src="https://cdn.shopify.com/a.jpg" alt="Front" width="600" height="800" /><table><tbody><tr><td colspan="2">x</td></tr></tbody></table>';
    expect(sanitizeDescription(safe)).toBe(safe);
  });

  it("drops attributes outside the allowlist but keeps the element", () => {
    expect(sanitizeDescription('<a href="https://x.example" target="_blank" rel="opener" data-track="1">x</a>')).toBe(
      '<a href="https://x.example">x</a>',
    );
  });
});

describe("the plain text of a description", () => {
  it("is the text with block boundaries as spaces and whitespace collapsed", () => {
    expect(
      descriptionText("<h2>Linen</h2><p>Soft &amp; light,\n  <b>breezy</b>.</p><ul><li>One</li><li>Two</li></ul>"),
    ).toBe("Linen Soft & light, breezy. One Two");
  });

  it("decodes what the sanitiser escaped, so the text reads as written, but with no < or >", () => {
    const { text } = prepareContent("<p>1 &lt; 2 &amp;&amp; 3 &gt; 2, &quot;quoted&quot; &nbsp;non-breaking</p>");
    expect(text).toBe('1 \u2039 2 && 3 \u203a 2, "quoted" non-breaking');
  });

  it("is empty for an empty or script-only description", () => {
    expect(prepareContent("")).toEqual({ html: "", text: "" });
    expect(prepareContent("<script>alert(1)</script>  ")).toEqual({ html: "", text: "" });
  });
});
