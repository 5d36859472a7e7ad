import type { Currency } from "../money.ts";
import { checkRules } from "./checks.ts";
import { type ParsedRules, RulesDocumentSchema, shapeIssues } from "./schema.ts";

/**
 * Checks a rules document against the catalog's currency and compiles it. Every mistake is
 * named by its path (shape first; the cross-field rules once the shape is right), so the CLI and
 * `PUT /operator/rules` can say exactly what to fix. `{}` parses to rules with nothing in them.
 */
export function parseRules(json: unknown, currency: Currency): ParsedRules {
  const shape = RulesDocumentSchema.safeParse(json);
  if (!shape.success) return { ok: false, issues: shapeIssues(json, shape.error.issues) };
  return checkRules(shape.data, currency);
}
