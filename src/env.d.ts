// Tells `import { exports } from "cloudflare:workers"` what the main module exports.
declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import("./index.ts");
    durableNamespaces: "Cart";
  }
}
