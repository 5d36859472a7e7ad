import { connect } from "node:net";

/**
 * HTTP/1.1 over a bare socket, for what `fetch` cannot send: two `Authorization` headers as two
 * header lines (fetch would merge them into one), or a chunked body written by hand.
 */
/** A response as read off the socket: status, header lines in order (repeats kept), body text. */
export interface RawAnswer {
  status: number;
  headers: [string, string][];
  body: string;
}

function dechunk(data: Buffer): Buffer {
  const out: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = data.indexOf("\r\n", offset);
    if (lineEnd < 0) break;
    const size = Number.parseInt(data.subarray(offset, lineEnd).toString("latin1"), 16);
    if (!Number.isFinite(size) || size === 0) break;
    out.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(out);
}

/** Sends `head` (request line and header lines, without the blank line) and `body`; reads to close. */
export function rawRequest(baseUrl: string, head: string[], body: Buffer | string = ""): Promise<RawAnswer> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port) });
    const chunks: Buffer[] = [];
    socket.setTimeout(30_000, () => socket.destroy(new Error("raw request timed out")));
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("end", () => {
      const data = Buffer.concat(chunks);
      const split = data.indexOf("\r\n\r\n");
      const headText = data.subarray(0, split).toString("latin1");
      const lines: string[] = headText.split("\r\n");
      const statusLine = lines.shift() ?? "";
      const headers = lines.map((l: string): [string, string] => [
        l.slice(0, l.indexOf(":")).trim().toLowerCase(),
        l.slice(l.indexOf(":") + 1).trim(),
      ]);
      const rest = data.subarray(split + 4);
      const chunked = headers.some(
        ([k, v]: [string, string]) => k === "transfer-encoding" && v.toLowerCase().includes("chunked"),
      );
      resolve({
        status: Number(statusLine.split(" ")[1]),
        headers,
        body: (chunked ? dechunk(rest) : rest).toString("utf8"),
      });
    });
    socket.on("connect", () => {
      socket.write(`${[...head, `Host: ${url.host}`, "Connection: close"].join("\r\n")}\r\n\r\n`);
      socket.end(body);
    });
  });
}
