import { readFileSync } from "node:fs";
import { JsonText, Lines } from "../publish/json-text.ts";
import { InputError } from "./args.ts";

/** Reads and parses a JSON file; a missing or broken file is an {@link InputError} naming the file, line and column. */
export function readJsonFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new InputError(
      code === "ENOENT"
        ? "no such file"
        : code === "EISDIR"
          ? "is a directory, not a JSON file"
          : `cannot be read (${code ?? "error"})`,
      { file },
    );
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
