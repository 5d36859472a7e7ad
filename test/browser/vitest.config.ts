import { defineConfig } from "vitest/config";

/**
 * `npm run test:browser`: real headless Chromium (Debian's, driven by playwright-core) against a
 * real `npm run dev` server, from pages served on other origins. Not part of `npm test`: it needs
 * /usr/bin/chromium, which `.ci/run` installs.
 */
export default defineConfig({
  test: {
    name: "browser",
    root: new URL("../..", import.meta.url).pathname,
    environment: "node",
    include: ["test/browser/**/*.test.ts"],
    globalSetup: ["test/browser/global-setup.ts"],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 200_000,
  },
});
