/**
 * Why a catalog read could not answer, in the catalog's own words. The HTTP layer maps each code
 * to the contract's envelope (src/http/errors.ts `fromFailure`); the catalog never knows
 * about statuses or headers.
 */
export type CatalogFailureCode =
  | "resource_missing"
  | "sold_out"
  | "parameter_invalid"
  | "parameter_unknown"
  | "catalog_unavailable"
  | "browse_unavailable";

export class CatalogError extends Error {
  readonly code: CatalogFailureCode;
  /** The request parameter at fault, when there is one. */
  readonly param: string | undefined;

  constructor(code: CatalogFailureCode, message: string, param?: string) {
    super(message);
    this.name = "CatalogError";
    this.code = code;
    this.param = param;
  }
}

/** Nothing is published, or the version a reader holds was deleted under it. */
export function catalogUnavailable(): CatalogError {
  return new CatalogError("catalog_unavailable", "No catalog has been published yet.");
}

/** Browse cannot answer this version (`why`: what is missing, and what the operator does about it); the plain list still can. */
export function browseUnavailable(why: string): CatalogError {
  return new CatalogError(
    "browse_unavailable",
    `Search, filters, sorts and facets are unavailable: ${why}. The plain list (without q, filters or sort) still works.`,
  );
}

export function notFound(message: string, param?: string): CatalogError {
  return new CatalogError("resource_missing", message, param);
}

export function soldOut(param?: string): CatalogError {
  return new CatalogError("sold_out", "Sold out", param);
}

export function invalidParameter(message: string, param?: string): CatalogError {
  return new CatalogError("parameter_invalid", message, param);
}

/** A query parameter this resource does not take (e.g. a selector the product has no option for). */
export function unknownParameter(message: string, param: string): CatalogError {
  return new CatalogError("parameter_unknown", message, param);
}
