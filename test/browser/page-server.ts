import { createServer, type Server } from "node:http";
import { firstFreePort } from "../helpers/ports.ts";

/** A tiny static server: one storefront page, on an origin other than the API's. */
export interface PageServer {
  origin: string;
  close: () => Promise<void>;
}

/**
 * The storefront a shop would host elsewhere: plain fetch calls to the API with a Bearer token,
 * so every cart call is a cross-origin request with a real CORS preflight (Authorization and a
 * JSON Content-Type are not "simple" headers).
 */
export const STOREFRONT_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Storefront on another origin</title></head>
<body><h1>Storefront</h1><pre id="log"></pre>
<script>
async function callApi(base, token, method, path, body) {
  try {
    const headers = { Authorization: "Bearer " + token };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const result = { ok: true, status: res.status, body: await res.json(), requestId: res.headers.get("X-Request-Id") };
    document.getElementById("log").textContent += method + " " + path + " " + res.status + "\\n";
    return result;
  } catch (error) {
    document.getElementById("log").textContent += method + " " + path + " refused\\n";
    return { ok: false, error: String(error) };
  }
}
async function readCatalog(base) {
  try {
    const res = await fetch(base + "/api/v1/products?limit=1");
    return { ok: true, status: res.status };
  } catch (error) {
    return { ok: false, error: String(error) };
  }
}
</script></body></html>`;

/** Serves `html` (STOREFRONT_HTML by default) on `host`, e.g. 127.0.0.1 (allowed in dev) or 127.0.0.2 (not), on the first free of `ports`. */
export async function startPageServer(
  host: string,
  ports: readonly number[],
  html: string = STOREFRONT_HTML,
): Promise<PageServer> {
  const port = await firstFreePort(host, ports);
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end(html);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () =>
      resolve({
        origin: `http://${host}:${port}`,
        close: () => new Promise<void>((done) => server.close(() => done())),
      }),
    );
  });
}
