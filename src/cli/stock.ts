// npm run stock -- <set|adjust|untrack|show> [options]   (--help for usage)
//
// Live stock through the worker's operator surface (/api/v1/operator/stock), never straight to
// storage: the Stock Durable Objects are reachable only through the running worker. For --local
// with no dev server answering, this starts `wrangler dev` for the one command, like npm run token.
import { randomUUID } from "node:crypto";
import { defineCli, runCli, UsageError } from "./args.ts";
import { OperatorError } from "./operator-client.ts";
import { operatorTargetFrom, withOperator } from "./operator-target.ts";
import { parseChange, runStockCommand, StockClient, type StockCommand } from "./stock-client.ts";

const cli = defineCli({
  command: "npm run stock",
  args: "<set|adjust|untrack|show> <variant_id>[=<number>] ...",
  summary: `Sets, adjusts and shows live stock levels (no publish needed).

  set     ID=QUANTITY ...   write on-hand levels (0 to 1,000,000,000); a variant the live catalog
                            does not track starts being tracked (policy deny): its level decides
  adjust  ID=DELTA ...      add units (a negative DELTA removes them) to a tracked variant
  untrack ID ...            stop tracking a variant the operator started tracking
  show    ID ...            a variant's level and its movement log (publish, operator, checkout)
  show                      the live version: variants tracked, levels its publish wrote and kept

Changes go in one batch, applied in order, all checked first against the live catalog (an unknown
variant, an adjust of an untracked one, or an untrack of one the catalog tracks changes nothing).
IDs are digits or gid://shopify/ProductVariant/<digits>.`,
  positionals: { min: 1, max: 1001 },
  options: {
    local: { type: "boolean", help: "the running npm run dev server (the default), or one started for this command" },
    remote: {
      type: "boolean",
      help: "the deployed worker at --url (or STOREFRONT_URL); needs OPERATOR_SECRET in the environment",
    },
    key: {
      type: "string",
      value: "KEY",
      help: "set, adjust, untrack: the batch's Idempotency-Key (default: a new one, printed); run again with it after a failure and nothing is applied twice",
    },
    url: {
      type: "string",
      value: "URL",
      help: "the worker's address (--local default: http://localhost:$PORT, PORT default 8787)",
    },
    "persist-to": {
      type: "string",
      value: "DIR",
      help: "--local: the state directory of npm run dev -- --persist-to DIR (default: the running server's)",
    },
  },
  notes: `--local finds the running npm run dev of the state on any port and uses the operator secret it
uses (OPERATOR_SECRET from the environment or .dev.vars, else its development value).
Examples:
  npm run stock -- set 44102938475615=12 44102938475614=0
  npm run stock -- adjust 44102938475615=-2 --remote --url https://shop.example.workers.dev
  npm run stock -- untrack 44102938475609
  npm run stock -- show 44102938475615`,
});

function parseStockCommand(argv?: readonly string[]): {
  command: StockCommand;
  target: Parameters<typeof withOperator>[0];
} {
  const { values, positionals } = cli.parse(argv);
  const [action, ...rest] = positionals;
  if (action !== "set" && action !== "adjust" && action !== "untrack" && action !== "show")
    throw new UsageError(`Unknown command ${JSON.stringify(action)}: use one of set, adjust, untrack, show.`);
  if (values.local && values.remote) throw new UsageError("Give --local or --remote, not both.");
  // `show` alone is the live version's stock status, as the help says (issue 42, point 13).
  if (rest.length === 0 && action !== "show")
    throw new UsageError(`${action} needs at least one variant${action === "untrack" ? " id" : " ID=NUMBER"}.`);
  if (rest.length > 1000) throw new UsageError("At most 1,000 changes in one batch.");
  const command: StockCommand = { action, changes: [], show: [], key: values.key ?? `cli-${randomUUID()}` };
  if (action === "show" || action === "untrack") {
    if (action === "show" && values.key !== undefined)
      throw new UsageError("--key applies to set, adjust and untrack only.");
    for (const id of rest) {
      if (!/^(gid:\/\/shopify\/ProductVariant\/)?\d{1,20}$/.test(id))
        throw new UsageError(`${JSON.stringify(id)} is not a variant id (digits or its gid).`);
      if (action === "show") command.show.push(id);
      else command.changes.push({ variant_id: id, track: false });
    }
  } else {
    for (const text of rest) {
      const change = parseChange(action, text);
      if (!change)
        throw new UsageError(`${JSON.stringify(text)} is not ID=${action === "set" ? "QUANTITY" : "DELTA"}.`);
      command.changes.push(change);
    }
  }
  return { command, target: operatorTargetFrom(values) };
}

await runCli(
  cli,
  async () => {
    const { command, target } = parseStockCommand();
    const lines = await withOperator(target, (url, secret) => runStockCommand(command, new StockClient(url, secret)));
    for (const line of lines) process.stdout.write(`${line}\n`);
  },
  (error) =>
    error instanceof OperatorError
      ? { message: `The operator surface answered ${error.status}: ${error.message}`, exitCode: 1 }
      : undefined,
);
