import type { TestProject } from "vitest/node";
import { provideDevServer } from "../helpers/dev-server.ts";

/** The browser suite's dev server, on the first free of its ports (its page servers use 8816-8819). */
export default (project: TestProject) =>
  provideDevServer(project, [8813, 8814, 8815], { url: "browserApiUrl", log: "browserApiLog" });
