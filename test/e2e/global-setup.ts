import type { TestProject } from "vitest/node";
import { startDevServer } from "../helpers/dev-server.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** Where the e2e suite's own `npm run dev` server listens. */
    e2eBaseUrl: string;
    /** The file the dev server's output (its request log lines) goes to. */
    e2eLogFile: string;
  }
}

/** The e2e dev server's ports: the first free one is used (the browser suite has 8813-8819). */
const PORTS = [8810, 8811, 8812];

/** Starts one real dev server for the whole e2e project and stops it afterwards. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startDevServer(PORTS);
  project.provide("e2eBaseUrl", server.baseUrl);
  project.provide("e2eLogFile", server.logFile);
  return server.stop;
}
