import { createServer } from "node:net";

function isFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/**
 * The first port of `candidates` nothing listens on. Several people may run `npm test` on one
 * machine at once; each run then takes the next port of the suite's own range instead of failing.
 */
export async function firstFreePort(host: string, candidates: readonly number[]): Promise<number> {
  for (const port of candidates) if (await isFree(host, port)) return port;
  throw new Error(`Every port of ${candidates.join(", ")} on ${host} is taken.`);
}
