/**
 * The reference page's markup. The operation list is drawn by `/docs/app.js` from
 * `/api/v1/openapi.json`, so the page cannot document an operation the API does not have; this
 * markup holds only the frame and the catalog walk-through the seed's reference had (list, pick a
 * size and color, add to cart, see 200 or 404 Sold out).
 */
export const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Storefront API reference</title>
<link rel="stylesheet" href="/docs/styles.css">
<script type="module" src="/docs/app.js"></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
  <h1>Storefront API <span class="version" id="api-version"></span></h1>
  <form class="token" id="token-form" autocomplete="off">
    <label for="token">Bearer token</label>
    <input id="token" name="token" type="password" spellcheck="false" aria-describedby="token-help" placeholder="sf_…">
    <button type="button" id="token-toggle" aria-pressed="false">Show</button>
    <p id="token-help" class="help">Sent as <code>Authorization: Bearer …</code> by every “try it” that needs one. Kept in this page only.</p>
  </form>
</header>
<div class="layout">
  <nav aria-label="Operations" id="nav"><p class="help">Loading the OpenAPI document…</p></nav>
  <main id="main" tabindex="-1">
    <section aria-labelledby="explore-title" class="card" id="explore">
      <h2 id="explore-title">Try the catalog</h2>
      <p>Pick a product, choose its size and color, and add it to the cart with the token above. An available variant answers <strong>200</strong>, a sold-out one <strong>404 Sold out</strong>.</p>
      <div class="explore">
        <div>
          <h3 id="products-title">Products</h3>
          <ul id="product-list" class="products" aria-labelledby="products-title" aria-busy="true"></ul>
        </div>
        <div id="product-panel" aria-live="polite">
          <p class="help">No product chosen yet.</p>
        </div>
      </div>
    </section>
    <section aria-labelledby="authentication-title" class="card" id="authentication">
      <h2 id="authentication-title">Authentication</h2>
      <p>Catalog reads are anonymous. The cart and checkout need <code>Authorization: Bearer &lt;token&gt;</code>; the scheme word is case-insensitive, the token is not, and a token in the query string is never accepted. There are no API keys and no login: <code>POST /api/v1/auth/login</code> always answers 501.</p>
      <p>Tokens are issued and revoked by the operator (<code>npm run token</code>). A revoked token stops working on the very next cart request. A missing, unknown or revoked token answers <strong>401</strong> <code>authentication_error</code> with <code>WWW-Authenticate: Bearer realm="storefront"</code>.</p>
      <p>Under <code>npm run dev</code> two tokens exist, <code>sf_dev_LocalToken_A1</code> and <code>sf_dev_LocalToken_B2</code> (this page fills in the first when it is served from localhost). A deployed worker refuses every <code>sf_dev_</code> token.</p>
    </section>
    <div id="operations"></div>
  </main>
</div>
</body>
</html>
`;
