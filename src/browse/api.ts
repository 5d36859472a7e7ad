import * as z from "zod/mini";
import { MoneySchema } from "../money.ts";
import { FILTER_PARAMETERS, PAGE_PARAMETERS } from "./parameters.ts";

/**
 * The browse query and the facets answer as the OpenAPI document shows them. The parameters are
 * parameters.ts's, which the parser (query.ts) reads too: filters repeat and option filters are
 * named by the catalog, so the query is not parsed as one zod object.
 */

/**
 * `option.<name>` for any option name of the catalog: a family of query parameters, described as
 * one `deepObject` parameter `option` whose keys are the option names, so a generated client sends
 * `{option: {size: "M"}}` as `option[size]=M` (openapi-fetch's default for an object), which the
 * parser reads exactly as `option.size=M`.
 */
const OptionValueSchema = z.string().check(z.minLength(1), z.maxLength(255));

export const OptionFiltersSchema = z.record(
  z.string().check(z.regex(/^[^\s.[\]]{1,255}$/)),
  // A list is several values of one name (issue 42, point 17: a typed client could send only one).
  z.union([OptionValueSchema, z.array(OptionValueSchema).check(z.minLength(1))]),
);

export const BrowseQuerySchema = z.strictObject({ ...FILTER_PARAMETERS, ...PAGE_PARAMETERS });

export const FacetsQuerySchema = z.strictObject(FILTER_PARAMETERS);

export const FacetValueSchema = z.object({
  value: z.string(),
  count: z.int().check(z.gte(0)),
  selected: z.boolean(),
});

export const ValuesFacetSchema = z.object({
  name: z.string(),
  type: z.literal("values"),
  values: z.array(FacetValueSchema),
});

export const PriceFacetSchema = z.object({
  name: z.literal("price"),
  type: z.literal("range"),
  min: z.nullable(MoneySchema),
  max: z.nullable(MoneySchema),
});

export const FacetsSchema = z.object({
  object: z.literal("facets"),
  count: z.int().check(z.gte(0)),
  facets: z.array(z.discriminatedUnion("type", [ValuesFacetSchema, PriceFacetSchema])),
});
export type Facets = z.infer<typeof FacetsSchema>;
