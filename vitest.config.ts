import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { kCurrentWorker } from "miniflare";
import { defineConfig } from "vitest/config";
import { quietConsole, quietRun } from "./test/helpers/quiet.ts";

quietRun();

/** The orders database's migrations, applied to each test file's D1 by test/helpers/orders-setup.ts. */
const ORDERS_MIGRATIONS = await readD1Migrations("src/checkout/migrations");

/**
 * Three projects, one `npm test`:
 * - `workerd`: unit and integration tests inside workerd, with real KV and Durable Objects.
 * - `house`: checks of the source tree itself (which room may import which), in Node.
 * - `e2e`: Node tests over real HTTP against `npm run dev`, started once by the global setup.
 * The browser suite has its own config (`npm run test:browser`).
 * A passing run prints a summary: request-log lines are dropped (`REQUEST_LOG=1` shows them), the
 * figures go to test-results/*.json, and tests are listed one by one only when slower than 5 s
 * (test/helpers/quiet.ts).
 */
export default defineConfig({
  test: {
    onConsoleLog: quietConsole,
    slowTestThreshold: 5_000,
    projects: [
      {
        // FUZZ_RUNS (the hardening suites' run counts) reaches workerd as import.meta.env.FUZZ_RUNS.
        envPrefix: ["VITE_", "FUZZ_"],
        plugins: [
          // A function of `inject`: the Stripe stand-in's address (test/stripe/global-setup.ts) becomes a binding.
          cloudflareTest(({ inject }) => ({
            wrangler: { configPath: "./wrangler.toml" },
            // The dev entry (src/dev.ts), as `npm run dev` serves it: the deployed Worker plus the
            // local test payment page, which the tests drive too.
            main: "./src/dev.ts",
            miniflare: {
              // POST /operator/catalog/changes reaches the catalog writer as a deployment does, over
              // a service binding: here to src/dev.ts's own CatalogWriter export, so the tests need
              // no second Worker (wrangler.toml names the deployed one, storefront-catalog-writer).
              serviceBindings: { CATALOG_WRITER: { name: kCurrentWorker, entrypoint: "CatalogWriter" } },
              // And its release clock (writer/wrangler.toml's CATALOG_RELEASES), likewise exported by src/dev.ts.
              durableObjects: { CATALOG_RELEASES: { className: "CatalogReleaseClock", useSQLite: true } },
              bindings: {
                // Every Stripe call of the test worker goes to the local stand-in (test/stripe/stand-in.ts).
                STRIPE_API_BASE: inject("stripeStandIn"),
                STRIPE_SECRET_KEY: "sk_test_standin0123456789",
                STRIPE_TIMEOUT_MS: "1500",
                ENVIRONMENT: "development",
                CATALOG_POINTER_TTL_MS: "0",
                // A change batch waits 1.5 s (not 20) for the catalog lock before 503 catalog_busy.
                CATALOG_LOCK_WAIT_MS: "1500",
                ALLOWED_ORIGINS: "http://localhost:*,https://shop.example",
                OPERATOR_SECRET: "test-operator-secret",
                // The contract's fixed development value (contract 9.1), as npm run dev passes it.
                CART_TOKEN_SECRET: "dev-cart-token-secret-0123456789abcdef",
                CHECKOUT_WEBHOOK_SECRET: "dev-checkout-webhook-secret",
                STRIPE_WEBHOOK_SECRET: "whsec_test_0123456789abcdefghijklmnopqrstuv",
                // Order events out: every order is delivered to the test receiver (test/events/global-setup.ts),
                // retried after 1 s, 2 s, 4 s… so a test sees a few retries in seconds.
                ORDER_WEBHOOK_URL: `${inject("orderReceiver")}/hook`,
                ORDER_WEBHOOK_SECRET: "dev-order-webhook-secret",
                ORDER_WEBHOOK_RETRY_SECONDS: "1",
                ORDERS_MIGRATIONS,
              },
            },
          })),
        ],
        test: {
          name: "workerd",
          globalSetup: ["test/stripe/global-setup.ts", "test/events/global-setup.ts"],
          setupFiles: ["test/helpers/orders-setup.ts"],
          include: ["test/**/*.test.ts"],
          exclude: ["**/node_modules/**", "test/e2e/**", "test/browser/**", "test/house/**"],
        },
      },
      {
        // Checks of the source tree itself (the layering rule), in Node: no server needed.
        test: { name: "house", environment: "node", include: ["test/house/**/*.test.ts"] },
      },
      {
        test: {
          name: "e2e",
          environment: "node",
          include: ["test/e2e/**/*.test.ts"],
          globalSetup: ["test/e2e/global-setup.ts"],
          testTimeout: 30_000,
          hookTimeout: 200_000,
        },
      },
    ],
  },
});
