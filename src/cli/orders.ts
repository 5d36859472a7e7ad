// npm run orders -- <list|show|check|events> [options]   (--help for usage)
//
// Reads orders through the worker's operator surface (/api/v1/operator/orders), like `npm run
// token`: the local `npm run dev` by default, or a deployed worker with --remote.
import { defineCli, runCli, UsageError } from "./args.ts";
import { OperatorError } from "./operator-client.ts";
import { type OrdersCommand, OrdersClient, runOrdersCommand } from "./orders-client.ts";

const cli = defineCli({
  command: "npm run orders",
  args: "<list|show|check|events>",
  summary: `Lists and shows orders, reconciles them with stock, and lists the order events not yet delivered, through the worker's operator surface.

  list   [--limit N] [--since ISO] [--all]   newest first (--all follows every page)
  show   ORDER_ID                           one order with its lines
  check                                     orders, holds and stock movements compared; exit 1 on any difference
  events [--limit N] [--all]                order events not yet delivered to ORDER_WEBHOOK_URL, newest first`,
  positionals: { max: 2 },
  options: {
    remote: {
      type: "boolean",
      help: "the deployed worker at --url (or STOREFRONT_URL); needs OPERATOR_SECRET in the environment",
    },
    url: {
      type: "string",
      value: "URL",
      help: "the worker's address (default: http://localhost:$PORT, PORT default 8787)",
    },
    limit: { type: "integer", value: "N", min: 1, max: 250, default: 50, help: "list, events: per page" },
    since: { type: "string", value: "ISO", help: "list: only orders created at or after this instant" },
    all: { type: "boolean", help: "list, events: every page, not just the first" },
  },
  notes: `Without --remote it talks to the running npm run dev (start it first), with OPERATOR_SECRET
from the environment or npm run dev's development value.`,
});

function parse(): { command: OrdersCommand; url: string; secret: string } {
  const { values, positionals } = cli.parse();
  const [action, id] = positionals;
  let command: OrdersCommand;
  if (action === "list") {
    if (id !== undefined) throw new UsageError("list takes no argument.");
    if (values.since !== undefined && Number.isNaN(Date.parse(values.since)))
      throw new UsageError(
        `--since must be an ISO 8601 instant, e.g. 2026-11-27T00:00:00Z; got ${JSON.stringify(values.since)}.`,
      );
    command = {
      action: "list",
      limit: values.limit,
      all: values.all,
      ...(values.since ? { since: new Date(values.since).toISOString() } : {}),
    };
  } else if (action === "show") {
    if (!id) throw new UsageError("show needs an order id (ord_…; see npm run orders -- list).");
    command = { action: "show", id };
  } else if (action === "check") {
    if (id !== undefined) throw new UsageError("check takes no argument.");
    command = { action: "check" };
  } else if (action === "events") {
    if (id !== undefined) throw new UsageError("events takes no argument.");
    command = { action: "events", limit: values.limit, all: values.all };
  } else if (action === undefined) {
    throw new UsageError("Missing command: one of list, show, check, events.");
  } else {
    throw new UsageError(`Unknown command ${JSON.stringify(action)}: use one of list, show, check, events.`);
  }
  if (values.remote) {
    const url = values.url ?? process.env.STOREFRONT_URL;
    const secret = process.env.OPERATOR_SECRET;
    if (!url) throw new UsageError("--remote needs --url https://<your worker> (or STOREFRONT_URL).");
    if (!url.startsWith("https://"))
      throw new UsageError("--remote sends the operator secret: --url must be https://.");
    if (!secret) throw new UsageError("--remote needs OPERATOR_SECRET in the environment.");
    return { command, url, secret };
  }
  return {
    command,
    url: values.url ?? `http://localhost:${process.env.PORT ?? "8787"}`,
    secret: process.env.OPERATOR_SECRET ?? "dev-operator-secret",
  };
}

await runCli(
  cli,
  async () => {
    const { command, url, secret } = parse();
    let result: { lines: string[]; ok: boolean };
    try {
      result = await runOrdersCommand(command, new OrdersClient(url, secret));
    } catch (error) {
      if (error instanceof TypeError)
        throw new Error(`Nothing answers at ${url}: start it with npm run dev, or pass --url.`);
      throw error;
    }
    for (const line of result.lines) process.stdout.write(`${line}\n`);
    if (!result.ok) process.exitCode = 1;
  },
  (error) =>
    error instanceof OperatorError
      ? { message: `The operator surface answered ${error.status}: ${error.message}`, exitCode: 1 }
      : undefined,
);
