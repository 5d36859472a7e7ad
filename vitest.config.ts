import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        bindings: {
          ENVIRONMENT: "development",
          ALLOWED_ORIGINS: "http://localhost:*,https://shop.example",
          OPERATOR_SECRET: "test-operator-secret",
        },
      },
    }),
  ],
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/e2e/**", "test/browser/**", "test/bench/**"],
  },
});
