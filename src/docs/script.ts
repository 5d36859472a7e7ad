/**
 * The reference page's script, served as `/docs/app.js`. Plain browser JavaScript (no build step,
 * no framework, no CDN): it reads `/api/v1/openapi.json` and draws every operation with a “try it”
 * form, plus the catalog walk-through. Every call goes to this same origin. Kept as a string so the
 * worker bundles it; it must not contain backticks or dollar-brace sequences.
 */
export const DOCS_SCRIPT = String.raw`
const API = "/api/v1";
const tokenInput = document.getElementById("token");
const isLocal = ["localhost", "127.0.0.1", "[::1]"].includes(location.hostname);
if (isLocal) tokenInput.value = "sf_dev_LocalToken_A1";

document.getElementById("token-toggle").addEventListener("click", (event) => {
  const shown = tokenInput.type === "text";
  tokenInput.type = shown ? "password" : "text";
  event.currentTarget.textContent = shown ? "Show" : "Hide";
  event.currentTarget.setAttribute("aria-pressed", String(!shown));
});

/** Builds an element: el("p", { class: "x" }, ["text", child]). */
function el(tag, attrs, children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of [].concat(children || [])) {
    if (child === undefined || child === null) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

/** Inline markdown of the document's descriptions: only code spans and bold, text stays text. */
function prose(text) {
  const out = [];
  const parts = String(text || "").split(/(\x60[^\x60]*\x60|\*\*[^*]+\*\*)/);
  for (const part of parts) {
    if (part.startsWith("\x60") && part.endsWith("\x60") && part.length > 1) out.push(el("code", {}, part.slice(1, -1)));
    else if (part.startsWith("**") && part.endsWith("**") && part.length > 3) out.push(el("strong", {}, part.slice(2, -2)));
    else if (part) out.push(part);
  }
  return out;
}

function reason(status) {
  const names = { 200: "OK", 204: "No Content", 302: "Found", 304: "Not Modified", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 405: "Method Not Allowed", 409: "Conflict", 413: "Content Too Large", 415: "Unsupported Media Type", 422: "Unprocessable Content", 429: "Too Many Requests", 500: "Internal Server Error", 501: "Not Implemented", 503: "Service Unavailable" };
  return names[status] || "";
}

/** Sends one request to this server and says what came back, never throwing. */
async function call(method, path, options) {
  const headers = {};
  const opts = options || {};
  if (opts.auth && tokenInput.value) headers.Authorization = "Bearer " + tokenInput.value;
  if (opts.body !== undefined) headers["Content-Type"] = "application/json";
  for (const [name, value] of Object.entries(opts.headers || {})) if (value) headers[name] = value;
  try {
    const res = await fetch(path, { method, headers, body: opts.body });
    const text = await res.text();
    let json = null;
    try { json = text ? JSON.parse(text) : null; } catch { json = null; }
    return { status: res.status, headers: res.headers, json, text };
  } catch (error) {
    return { status: 0, headers: new Headers(), json: null, text: String(error) };
  }
}

/** The one-line verdict of a response: "200 OK" or "404 Sold out" (the error's message). */
function verdict(result) {
  if (result.status === 0) return "Network error";
  const error = result.json && result.json.error;
  if (error && error.code === "sold_out") return result.status + " " + error.message;
  return result.status + " " + reason(result.status);
}

function resultView(result, label, collapsed) {
  const ok = result.status >= 200 && result.status < 400;
  const shown = ["content-type", "etag", "cache-control", "x-catalog-version", "x-request-id", "allow", "retry-after", "idempotent-replayed", "www-authenticate"];
  const bodyView = el("pre", { class: "body", "aria-label": "Response body", tabindex: "0" }, result.json ? JSON.stringify(result.json, null, 2) : result.text.slice(0, 4000));
  const headerLines = shown.filter((h) => result.headers.get(h) !== null).map((h) => h + ": " + result.headers.get(h)).join("\n");
  return el("div", { class: "result", "data-status": result.status }, [
    el("p", { class: "status " + (ok ? "ok" : "fail"), role: "status" }, [label ? label + ": " : "", el("strong", { class: "verdict" }, verdict(result))]),
    headerLines ? el("pre", { class: "headers", "aria-label": "Response headers" }, headerLines) : null,
    collapsed ? el("details", {}, [el("summary", {}, "Response body"), bodyView]) : bodyView,
  ]);
}

// ---- Catalog walk-through -------------------------------------------------------------------

const productList = document.getElementById("product-list");
const panel = document.getElementById("product-panel");

async function loadProducts() {
  const result = await call("GET", API + "/products?limit=250");
  productList.replaceChildren();
  productList.setAttribute("aria-busy", "false");
  if (result.status !== 200) {
    productList.append(el("li", {}, resultView(result, "GET /products")));
    return;
  }
  for (const product of result.json.data) {
    const button = el("button", { type: "button", class: "product", "data-handle": product.handle, onclick: () => showProduct(product, button) }, [
      el("span", { class: "title" }, product.title),
      el("span", { class: "price" }, product.price.amount + " " + product.price.currency),
      product.available ? null : el("span", { class: "badge" }, "Sold out"),
    ]);
    productList.append(el("li", {}, button));
  }
}

async function showProduct(product, button) {
  const handle = product.handle;
  for (const other of productList.querySelectorAll("button[aria-current]")) other.removeAttribute("aria-current");
  if (button) button.setAttribute("aria-current", "true");
  panel.replaceChildren(el("p", { class: "help" }, "Loading " + handle + "…"));
  const detailPath = API + "/products/" + encodeURIComponent(handle);
  const [detail, variants] = await Promise.all([call("GET", detailPath), call("GET", detailPath + "/variants?limit=250")]);
  const heading = el("h3", { id: "product-title", tabindex: "-1" }, product.title);
  const parts = [heading, resultView(detail, "GET " + detailPath, true)];
  if (variants.status === 200) parts.push(variantPicker(variants.json.data));
  else parts.push(resultView(variants, "GET " + detailPath + "/variants"));
  panel.replaceChildren(...parts);
}

/** Size and color selects (or the single Default Title), then “Add to cart”. */
function variantPicker(variants) {
  const names = [];
  for (const v of variants) for (const name of Object.keys(v.options)) if (!names.includes(name)) names.push(name);
  const selects = {};
  const fields = names.map((name) => {
    const values = [];
    for (const v of variants) if (!values.includes(v.options[name])) values.push(v.options[name]);
    selects[name] = el("select", { id: "option-" + name, name, onchange: update }, values.map((value) => el("option", { value }, value)));
    return el("p", { class: "field" }, [el("label", { for: "option-" + name }, name), selects[name]]);
  });
  const quantity = el("input", { id: "quantity", type: "number", min: "1", max: "999", value: "1", inputmode: "numeric" });
  const chosen = el("p", { class: "chosen", id: "chosen-variant" });
  const output = el("div", { id: "cart-result", "aria-live": "polite" });
  const add = el("button", { type: "button", id: "add-to-cart", class: "primary", onclick: addToCart }, "Add to cart");
  const read = el("button", { type: "button", id: "read-cart", onclick: readCart }, "Read the cart");
  let current = null;

  function update() {
    current = variants.find((v) => names.every((name) => v.options[name] === selects[name].value)) || null;
    const parts = current
      ? ["Variant ", el("code", {}, current.id), " · " + current.title + " · " + current.price.amount + " " + current.price.currency + " · ", el("strong", {}, current.available ? "available" : "sold out")]
      : ["No variant has this combination."];
    chosen.replaceChildren(...parts);
  }
  async function addToCart() {
    if (!current) return;
    const body = JSON.stringify({ variant_id: current.id, quantity: Number(quantity.value) });
    output.replaceChildren(resultView(await call("POST", API + "/cart/lines", { auth: true, body }), "POST /api/v1/cart/lines"));
  }
  async function readCart() {
    output.replaceChildren(resultView(await call("GET", API + "/cart", { auth: true }), "GET /api/v1/cart"));
  }
  update();
  return el("form", { class: "picker", onsubmit: (event) => event.preventDefault() }, [
    el("fieldset", {}, [el("legend", {}, "Variant"), ...fields, el("p", { class: "field" }, [el("label", { for: "quantity" }, "quantity"), quantity]), chosen]),
    el("p", { class: "actions" }, [add, " ", read]),
    output,
  ]);
}

// ---- Operations, from the OpenAPI document --------------------------------------------------

function refName(schema) {
  return schema && typeof schema.$ref === "string" ? schema.$ref.split("/").pop() : null;
}

function schemaView(doc, schema, label) {
  if (!schema) return null;
  const name = refName(schema);
  const resolved = name ? doc.components.schemas[name] : schema;
  return el("details", { class: "schema" }, [el("summary", {}, label + (name ? ": " + name : "")), el("pre", {}, JSON.stringify(resolved, null, 2))]);
}

function operationView(doc, path, method, op) {
  const id = "op-" + op.operationId;
  const params = op.parameters || [];
  const inputs = {};
  const paramRows = params.map((p) => {
    const inputId = id + "-" + p.in + "-" + p.name;
    inputs[p.in + ":" + p.name] = el("input", { id: inputId, name: p.name, required: p.required, placeholder: p.schema && p.schema.example ? String(p.schema.example) : "" });
    return el("tr", {}, [
      el("td", {}, el("label", { for: inputId }, [el("code", {}, p.name), p.required ? " (required)" : ""])),
      el("td", {}, p.in),
      el("td", {}, prose(p.description || "")),
      el("td", {}, inputs[p.in + ":" + p.name]),
    ]);
  });
  const media = op.requestBody && op.requestBody.content["application/json"];
  const firstExample = media && media.examples ? Object.values(media.examples)[0].value : media ? {} : null;
  const bodyInput = media ? el("textarea", { id: id + "-body", rows: "5", spellcheck: "false" }, JSON.stringify(firstExample, null, 2)) : null;
  const examples = media && media.examples ? Object.values(media.examples) : [];
  const examplePicker = examples.length > 1
    ? el("select", { id: id + "-example", onchange: (event) => { bodyInput.value = JSON.stringify(examples[Number(event.currentTarget.value)].value, null, 2); } },
        examples.map((example, index) => el("option", { value: String(index) }, example.summary)))
    : null;
  const output = el("div", { class: "output", "aria-live": "polite" });
  const needsToken = (op.security || []).some((s) => s.bearerAuth || s.operatorAuth);

  async function send(event) {
    event.preventDefault();
    let url = path;
    const query = new URLSearchParams();
    const headers = {};
    for (const p of params) {
      const value = inputs[p.in + ":" + p.name].value;
      if (p.in === "path") url = url.replace("{" + p.name + "}", encodeURIComponent(value));
      else if (p.in === "query" && value !== "") query.set(p.name, value);
      else if (p.in === "header") headers[p.name] = value;
    }
    const qs = query.toString();
    const result = await call(method.toUpperCase(), url + (qs ? "?" + qs : ""), { auth: needsToken, headers, body: bodyInput ? bodyInput.value : undefined });
    output.replaceChildren(resultView(result, method.toUpperCase() + " " + url));
  }

  const responses = Object.entries(op.responses).map(([status, response]) => {
    const content = response.content ? Object.values(response.content)[0] : null;
    return el("li", {}, [el("code", {}, status), " ", ...prose(response.description), content ? schemaView(doc, content.schema, "Body") : null]);
  });
  return el("section", { class: "card operation", id, "aria-labelledby": id + "-title" }, [
    el("h3", { id: id + "-title" }, [el("span", { class: "method " + method }, method.toUpperCase()), " ", el("code", {}, path)]),
    el("p", { class: "summary" }, [op.summary, needsToken ? el("span", { class: "badge lock" }, "token") : null]),
    op.description ? el("p", {}, prose(op.description)) : null,
    paramRows.length ? el("table", {}, [el("thead", {}, el("tr", {}, ["Parameter", "In", "Description", "Value"].map((h) => el("th", { scope: "col" }, h)))), el("tbody", {}, paramRows)]) : null,
    media ? schemaView(doc, media.schema, "Request body") : null,
    el("details", { class: "responses" }, [el("summary", {}, "Responses"), el("ul", {}, responses)]),
    el("form", { class: "try", onsubmit: send, "aria-label": "Try " + op.summary }, [
      examplePicker ? el("p", { class: "field" }, [el("label", { for: id + "-example" }, "Example"), examplePicker]) : null,
      bodyInput ? el("p", { class: "field" }, [el("label", { for: id + "-body" }, "Body (JSON)"), bodyInput]) : null,
      el("button", { type: "submit", class: "primary" }, "Try it"),
      output,
    ]),
  ]);
}

async function loadDocument() {
  const nav = document.getElementById("nav");
  const result = await call("GET", API + "/openapi.json");
  if (result.status !== 200) {
    nav.replaceChildren(resultView(result, "GET /api/v1/openapi.json"));
    return;
  }
  const doc = result.json;
  document.getElementById("api-version").textContent = "v" + doc.info.version;
  const container = document.getElementById("operations");
  const groups = new Map();
  for (const tag of doc.tags || []) groups.set(tag.name, { tag, items: [] });
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const name = (op.tags && op.tags[0]) || "Other";
      if (!groups.has(name)) groups.set(name, { tag: { name, description: "" }, items: [] });
      groups.get(name).items.push({ path, method, op });
    }
  }
  const navLists = [
    el("p", {}, el("a", { href: "#explore" }, "Try the catalog")),
    el("p", {}, el("a", { href: "#authentication" }, "Authentication")),
    el("p", {}, el("a", { href: "/api/v1/openapi.json" }, "openapi.json")),
  ];
  for (const { tag, items } of groups.values()) {
    if (items.length === 0) continue;
    const headingId = "tag-" + tag.name.toLowerCase();
    container.append(el("h2", { id: headingId }, tag.name), el("p", { class: "help" }, prose(tag.description)));
    for (const { path, method, op } of items) container.append(operationView(doc, path, method, op));
    navLists.push(el("h2", {}, el("a", { href: "#" + headingId }, tag.name)));
    navLists.push(el("ul", {}, items.map(({ path, method, op }) =>
      el("li", {}, el("a", { href: "#op-" + op.operationId }, [el("span", { class: "method " + method }, method.toUpperCase()), " " + path])))));
  }
  nav.replaceChildren(...navLists);
}

loadProducts();
loadDocument();
`;
