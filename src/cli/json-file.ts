import { constants } from "node:buffer";
import { readFileSync, statSync } from "node:fs";
import { JsonText, Lines } from "../publish/json-text.ts";
import { InputError } from "./args.ts";

/** Reads and parses a JSON file; a missing or broken file is an {@link InputError} naming the file, line and column. */
export function readJsonFile(file: string): unknown {
  let text: string;
  try {
    // One string holds the whole file: past the runtime's longest string (~512 MiB in V8, about
    // 330,000 generated products) say so before reading, rather than "ERR_STRING_TOO_LONG" after.
    const { size } = statSync(file);
    if (size > constants.MAX_STRING_LENGTH)
      throw new InputError(
        `is ${(size / 2 ** 20).toFixed(0)} MiB, more than one JSON text this tool can read at once ` +
          `(${(constants.MAX_STRING_LENGTH / 2 ** 20).toFixed(0)} MiB): publishing a catalog this large ` +
          `is not supported yet`,
        { file },
      );
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw fileError(error, file);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const found = JsonText.syntaxError(text);
    const lines = new Lines(text);
    if (found) throw new InputError(`invalid JSON: ${found.message}`, { file, ...lines.at(found.offset) });
    const message = error instanceof Error ? error.message : String(error);
    const at = /at position (\d+)/.exec(message);
    throw new InputError(`invalid JSON: ${message.replace(/ in JSON at position.*$/s, "")}`, {
      file,
      ...(at ? lines.at(Number(at[1])) : {}),
    });
  }
}

/** A file that cannot be opened or read, said as an {@link InputError} naming it. */
export function fileError(error: unknown, file: string): InputError {
  if (error instanceof InputError) return error;
  const code = (error as { code?: string }).code;
  return new InputError(
    code === "ENOENT"
      ? "no such file"
      : code === "EISDIR"
        ? "is a directory, not a JSON file"
        : `cannot be read (${code ?? "error"})`,
    { file },
  );
}
