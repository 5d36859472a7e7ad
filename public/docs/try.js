// The catalog walk-through of /docs/try: list the products, pick one, choose its size and color,
// add it to the cart and see what the API answered (200, or 404 Sold out), then check out, pay on
// the checkout's hand-off page (under npm run dev, the local test payment page) and read the
// checkout again to see its order. Plain browser JavaScript, no framework; every call goes to
// this same origin. The cart is this browser's own: its shopper token comes from POST /carts, as
// a storefront's would, and is kept in localStorage.
(() => {
  var API = "/api/v1";
  var TOKEN_KEY = "storefront-try.cart-token";
  var tokenInput = document.getElementById("token");
  var tokenStatus = document.getElementById("token-status");

  function keepToken(token) {
    tokenInput.value = token;
    try {
      localStorage.setItem(TOKEN_KEY, token);
    } catch (_e) {
      // Storage refused (a private window): the token lives in this page only.
    }
  }

  /** The kept shopper token, or a new one (and a new, empty cart) from POST /carts. */
  async function ensureCart() {
    var kept = null;
    try {
      kept = localStorage.getItem(TOKEN_KEY);
    } catch (_e) {
      kept = null;
    }
    if (kept) {
      tokenInput.value = kept;
      tokenStatus.textContent = "Your cart from an earlier visit (its token is kept in this browser).";
      return;
    }
    var result = await call("POST", `${API}/carts`);
    if (result.status === 201 && result.json) {
      keepToken(result.json.token);
      tokenStatus.textContent = `A new cart from POST ${API}/carts, kept in this browser until ${result.json.expires_at}.`;
    } else {
      tokenStatus.textContent = `POST ${API}/carts answered ${result.status}: paste a token instead.`;
    }
  }

  document.getElementById("new-cart").addEventListener("click", async () => {
    try {
      localStorage.removeItem(TOKEN_KEY);
    } catch (_e) {
      // Nothing kept.
    }
    await ensureCart();
  });
  tokenInput.addEventListener("change", () => {
    if (tokenInput.value) keepToken(tokenInput.value);
  });

  document.getElementById("token-toggle").addEventListener("click", (event) => {
    var shown = tokenInput.type === "text";
    tokenInput.type = shown ? "password" : "text";
    event.currentTarget.textContent = shown ? "Show" : "Hide";
    event.currentTarget.setAttribute("aria-pressed", String(!shown));
  });

  /** Builds an element: el("p", { class: "x" }, ["text", child]). Text is always text, never markup. */
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.entries(attrs || {}).forEach((entry) => {
      var name = entry[0],
        value = entry[1];
      if (value === undefined || value === null || value === false) return;
      if (name.indexOf("on") === 0) node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? "" : String(value));
    });
    [].concat(children === undefined ? [] : children).forEach((child) => {
      if (child === undefined || child === null) return;
      node.append(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }

  var REASONS = {
    200: "OK",
    304: "Not Modified",
    400: "Bad Request",
    401: "Unauthorized",
    404: "Not Found",
    405: "Method Not Allowed",
    409: "Conflict",
    413: "Content Too Large",
    415: "Unsupported Media Type",
    422: "Unprocessable Content",
    429: "Too Many Requests",
    500: "Internal Server Error",
    501: "Not Implemented",
    503: "Service Unavailable",
  };

  /** Sends one request to this server and says what came back, never throwing. */
  async function call(method, path, options) {
    var opts = options || {};
    var headers = {};
    if (opts.auth && tokenInput.value) headers.Authorization = `Bearer ${tokenInput.value}`;
    if (opts.body !== undefined) headers["Content-Type"] = "application/json";
    try {
      const res = await fetch(path, { method: method, headers: headers, body: opts.body });
      // Past half its life a shopper token comes back renewed: keep the new one.
      const renewed = res.headers.get("cart-token");
      if (opts.auth && renewed) keepToken(renewed);
      const text = await res.text();
      let json = null;
      try {
        json = text ? JSON.parse(text) : null;
      } catch (_e) {
        json = null;
      }
      return { status: res.status, headers: res.headers, json: json, text: text };
    } catch (error) {
      return { status: 0, headers: new Headers(), json: null, text: String(error) };
    }
  }

  /** The one-line verdict of a response: "200 OK" or "404 Sold out" (the error's message). */
  function verdict(result) {
    if (result.status === 0) return "Network error";
    var error = result.json?.error;
    if (error && error.code === "sold_out") return `${result.status} ${error.message}`;
    return `${result.status} ${REASONS[result.status] || ""}`;
  }

  var SHOWN_HEADERS = [
    "content-type",
    "etag",
    "cache-control",
    "x-catalog-version",
    "x-request-id",
    "retry-after",
    "idempotent-replayed",
    "www-authenticate",
    "ratelimit-policy",
    "ratelimit",
  ];

  function resultView(result, label, collapsed) {
    var ok = result.status >= 200 && result.status < 400;
    var body = el(
      "pre",
      { class: "body", "aria-label": "Response body", tabindex: "0" },
      result.json ? JSON.stringify(result.json, null, 2) : result.text.slice(0, 4000),
    );
    var headerLines = SHOWN_HEADERS.filter((h) => result.headers.get(h) !== null)
      .map((h) => `${h}: ${result.headers.get(h)}`)
      .join("\n");
    return el("div", { class: "result", "data-status": result.status }, [
      el("p", { class: `status ${ok ? "ok" : "fail"}`, role: "status" }, [
        el("code", {}, label),
        " ",
        el("strong", { class: "verdict" }, verdict(result)),
      ]),
      headerLines
        ? el("details", {}, [
            el("summary", {}, "Response headers"),
            el("pre", { class: "headers", "aria-label": "Response headers" }, headerLines),
          ])
        : null,
      collapsed ? el("details", {}, [el("summary", {}, "Response body"), body]) : body,
    ]);
  }

  var productList = document.getElementById("product-list");
  var panel = document.getElementById("product-panel");

  async function loadProducts() {
    var result = await call("GET", `${API}/products?limit=250`);
    productList.replaceChildren();
    productList.setAttribute("aria-busy", "false");
    if (result.status !== 200) {
      productList.append(el("li", {}, resultView(result, `GET ${API}/products`)));
      return;
    }
    result.json.data.forEach((product) => {
      var button = el(
        "button",
        {
          type: "button",
          class: "product",
          "data-handle": product.handle,
          onclick: () => {
            showProduct(product, button);
          },
        },
        [
          el("span", { class: "title" }, product.title),
          el("span", { class: "price" }, `${product.price.amount} ${product.price.currency}`),
          product.available ? null : el("span", { class: "badge" }, "Sold out"),
        ],
      );
      productList.append(el("li", {}, button));
    });
  }

  async function showProduct(product, button) {
    productList.querySelectorAll("button[aria-current]").forEach((other) => {
      other.removeAttribute("aria-current");
    });
    if (button) button.setAttribute("aria-current", "true");
    panel.replaceChildren(el("p", { class: "help" }, `Loading ${product.handle}…`));
    var detailPath = `${API}/products/${encodeURIComponent(product.handle)}`;
    // Every field of the product, content included; catalog data is plain text (or sanitised
    // HTML), so this page only ever sets it as text (el() makes text nodes), never as markup.
    var contentPath = `${detailPath}?include=description,images,seo,variants`;
    var answers = await Promise.all([call("GET", contentPath), call("GET", `${detailPath}/variants?limit=250`)]);
    var parts = [
      el("h2", { id: "product-title", tabindex: "-1" }, product.title),
      resultView(answers[0], `GET ${contentPath}`, true),
    ];
    if (answers[1].status === 200) parts.push(variantPicker(answers[1].json.data));
    else parts.push(resultView(answers[1], `GET ${detailPath}/variants`));
    panel.replaceChildren.apply(panel, parts);
  }

  /** Size and color selects (or the single Default Title), a quantity, then “Add to cart”. */
  function variantPicker(variants) {
    var names = [];
    variants.forEach((v) => {
      Object.keys(v.options).forEach((n) => {
        if (names.indexOf(n) === -1) names.push(n);
      });
    });
    var selects = {};
    var fields = names.map((name) => {
      var values = [];
      variants.forEach((v) => {
        if (values.indexOf(v.options[name]) === -1) values.push(v.options[name]);
      });
      selects[name] = el(
        "select",
        { id: `option-${name}`, name: name, onchange: update },
        values.map((value) => el("option", { value: value }, value)),
      );
      return el("p", { class: "field" }, [el("label", { for: `option-${name}` }, name), selects[name]]);
    });
    var quantity = el("input", {
      id: "quantity",
      type: "number",
      min: "1",
      max: "999",
      value: "1",
      inputmode: "numeric",
    });
    var chosen = el("p", { class: "chosen", id: "chosen-variant" });
    var output = el("div", { id: "cart-result", "aria-live": "polite" });
    var current = null;

    function update() {
      current = variants.find((v) => names.every((n) => v.options[n] === selects[n].value)) || null;
      chosen.replaceChildren.apply(
        chosen,
        current
          ? [
              "Variant ",
              el("code", {}, current.id),
              ` · ${current.title} · ${current.price.amount} ${current.price.currency} · `,
              el("strong", {}, current.available ? "available" : "sold out"),
            ]
          : ["No variant has this combination."],
      );
    }
    async function addToCart() {
      if (!current) return;
      var body = JSON.stringify({ variant_id: current.id, quantity: Number(quantity.value) });
      var result = await call("POST", `${API}/cart/lines`, { auth: true, body: body });
      output.replaceChildren(resultView(result, `POST ${API}/cart/lines`));
      showCost(result);
    }
    async function readCart() {
      var result = await call("GET", `${API}/cart`, { auth: true });
      output.replaceChildren(resultView(result, `GET ${API}/cart`));
      showCost(result);
    }
    var checkoutId = null;
    async function checkOut() {
      var result = await call("POST", `${API}/checkouts`, { auth: true, body: "{}" });
      var parts = [resultView(result, `POST ${API}/checkouts`)];
      if (result.status === 201) {
        checkoutId = result.json.id;
        const next = [];
        // Only a same-origin or https hand-off is offered as a link (never javascript: or data:).
        const url = result.json.url;
        const safe = url && (url.indexOf(`${location.origin}/`) === 0 || url.indexOf("https://") === 0);
        if (safe) {
          next.push(
            el("a", { id: "pay-link", class: "button primary", href: url, target: "_blank", rel: "noopener" }, "Pay"),
            " ",
          );
        } else {
          next.push("No hand-off is configured: the store completes this checkout itself. ");
        }
        next.push(el("button", { type: "button", id: "read-checkout", onclick: readCheckout }, "Read the checkout"));
        parts.push(el("p", { class: "actions" }, next));
      }
      output.replaceChildren.apply(output, parts);
    }
    async function readCheckout() {
      if (!checkoutId) return;
      var path = `${API}/checkouts/${encodeURIComponent(checkoutId)}`;
      var result = await call("GET", path, { auth: true });
      var parts = [resultView(result, `GET ${path}`)];
      if (result.status === 200 && result.json.order_id) {
        parts.unshift(
          el("p", { class: "status ok", id: "order-placed" }, [
            "Order ",
            el("code", {}, result.json.order_id),
            " placed.",
          ]),
        );
      }
      var actions = output.querySelector(".actions");
      // Only an open checkout can still be paid.
      var payLink = actions?.querySelector("#pay-link");
      if (payLink && result.status === 200 && result.json.status !== "open") payLink.remove();
      output.replaceChildren.apply(output, actions ? parts.concat([actions]) : parts);
    }
    update();
    return el(
      "form",
      {
        class: "picker",
        onsubmit: (event) => {
          event.preventDefault();
        },
      },
      [
        el(
          "fieldset",
          {},
          [el("legend", {}, "Variant")].concat(fields, [
            el("p", { class: "field" }, [el("label", { for: "quantity" }, "quantity"), quantity]),
            chosen,
          ]),
        ),
        el("p", { class: "actions" }, [
          el("button", { type: "button", id: "add-to-cart", class: "primary", onclick: addToCart }, "Add to cart"),
          el("button", { type: "button", id: "read-cart", onclick: readCart }, "Read the cart"),
          el("button", { type: "button", id: "check-out", onclick: checkOut }, "Check out"),
        ]),
        output,
      ],
    );
  }

  // The cart's cost (contract 10.2): a destination, a shipping option and a code go to PATCH /cart;
  // every cart answer's cost, options and code answers are shown as they came.
  var costResult = document.getElementById("cost-result");
  var shippingBox = document.getElementById("shipping-options");
  var codeAnswers = document.getElementById("code-answers");
  var money = (m) => `${m.amount} ${m.currency}`;

  function setCell(id, parts) {
    var cell = document.getElementById(id);
    cell.replaceChildren.apply(cell, [].concat(parts));
  }

  /** Shows the cost of a cart answer (any 200 whose body is a cart); anything else changes nothing. */
  function showCost(result) {
    var cart = result.status === 200 && result.json && result.json.object === "cart" ? result.json : null;
    if (!cart) return;
    var cost = cart.cost;
    setCell("cost-subtotal", money(cost.subtotal));
    setCell(
      "cost-discounts",
      cart.discounts.length === 0
        ? "none"
        : [`−${money(cost.discount_total)} `].concat(
            cart.discounts.map((d) => el("span", { class: "discount" }, `${d.title}${d.code ? ` (${d.code})` : ""}`)),
          ),
    );
    setCell(
      "cost-shipping",
      cost.shipping === null
        ? cart.buyer === null
          ? "no destination yet"
          : "none to charge"
        : `${money(cost.shipping)} · ${cart.shipping_option ? cart.shipping_option.title : ""}`,
    );
    setCell(
      "cost-tax",
      cost.tax_calculated_at === "payment"
        ? "calculated at payment"
        : cost.tax === null
          ? "none"
          : `${money(cost.tax)}${cost.tax_included ? " (included in the prices)" : ""}`,
    );
    setCell("cost-total", el("strong", {}, money(cost.total)));
    var options = cart.shipping_options.map((o) => {
      var id = `ship-${o.id}`;
      return el("p", { class: "option" }, [
        el("input", {
          type: "radio",
          name: "shipping-option",
          id: id,
          value: o.id,
          checked: cart.shipping_option !== null && cart.shipping_option.id === o.id,
          onchange: () => {
            patchCart({ shipping_option: o.id });
          },
        }),
        el("label", { for: id }, `${o.title} · ${money(o.price)}`),
      ]);
    });
    shippingBox.replaceChildren.apply(
      shippingBox,
      [el("legend", {}, "Shipping")].concat(
        options.length > 0
          ? options
          : [
              el(
                "p",
                { class: "help" },
                cart.buyer === null ? "No destination yet." : "No shipping option for this cart.",
              ),
            ],
      ),
    );
    codeAnswers.replaceChildren.apply(
      codeAnswers,
      cart.discount_codes.map((c) =>
        el("li", { class: c.applicable ? "ok" : "fail", "data-reason": c.reason || "" }, [
          el("code", {}, c.code),
          ` ${c.message}`,
        ]),
      ),
    );
  }

  async function patchCart(fields) {
    var result = await call("PATCH", `${API}/cart`, { auth: true, body: JSON.stringify(fields) });
    costResult.replaceChildren(resultView(result, `PATCH ${API}/cart`, true));
    showCost(result);
  }

  document.getElementById("destination-form").addEventListener("submit", (event) => {
    event.preventDefault();
    var country = document.getElementById("country").value.trim().toUpperCase();
    var region = document.getElementById("region").value.trim().toUpperCase();
    patchCart({ buyer: country ? Object.assign({ country: country }, region ? { region: region } : {}) : null });
  });
  document.getElementById("code-form").addEventListener("submit", (event) => {
    event.preventDefault();
    var code = document.getElementById("discount-code").value.trim();
    patchCart({ discount_codes: code ? [code] : [] });
  });

  ensureCart().then(async () => {
    showCost(await call("GET", `${API}/cart`, { auth: true }));
  });
  loadProducts();
})();
