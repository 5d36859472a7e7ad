import type { TestProject } from "vitest/node";
import { startDevServer } from "../e2e/dev-server.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** Where the browser suite's own `npm run dev` server listens. */
    browserApiUrl: string;
    /** The file that server's output (its request log lines) goes to. */
    browserApiLog: string;
  }
}

/** The browser suite's dev server port (its page servers use 8815 and 8816). */
const PORT = 8814;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startDevServer(PORT);
  project.provide("browserApiUrl", server.baseUrl);
  project.provide("browserApiLog", server.logFile);
  return server.stop;
}
