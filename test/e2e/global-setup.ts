import type { TestProject } from "vitest/node";
import { provideDevServer } from "../helpers/dev-server.ts";

/** The e2e suite's dev server, on the first free of its ports (the browser suite has 8813-8819). */
export default (project: TestProject) =>
  provideDevServer(project, [8810, 8811, 8812], { url: "e2eBaseUrl", log: "e2eLogFile" });
