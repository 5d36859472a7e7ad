import type { TestProject } from "vitest/node";
import { startDevServer } from "../helpers/dev-server.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** Where the browser suite's own `npm run dev` server listens. */
    browserApiUrl: string;
    /** The file that server's output (its request log lines) goes to. */
    browserApiLog: string;
  }
}

/** The browser suite's dev server ports, first free one used (its page servers use 8816-8819). */
const PORTS = [8813, 8814, 8815];

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startDevServer(PORTS);
  project.provide("browserApiUrl", server.baseUrl);
  project.provide("browserApiLog", server.logFile);
  return server.stop;
}
