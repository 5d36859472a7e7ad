/**
 * ISO 3166-1 alpha-2: the 249 officially assigned codes, plus `XK` (Kosovo), the user-assigned
 * code Stripe and Shopify ship to. A shipping zone, a tax rate and a buyer name countries by
 * these; `ZZ` or `UK` (Britain is `GB`) is refused rather than silently matching nothing.
 */
const COUNTRIES = new Set(
  (
    "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW " +
    "BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI " +
    "FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN " +
    "IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME " +
    "MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF " +
    "PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV " +
    "SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS XK " +
    "YE YT ZA ZM ZW"
  ).split(" "),
);

/** Whether `code` is an ISO 3166-1 alpha-2 country (capitals), or XK. */
export function isCountry(code: string): boolean {
  return COUNTRIES.has(code);
}

/** How a country is written: two capitals, a code of ISO 3166-1 alpha-2. */
export const COUNTRY_MESSAGE = "an ISO 3166-1 alpha-2 country code in capitals, such as US, GB or DE";

/**
 * An ISO 3166-2 subdivision without its country prefix (`CA` for US-CA, `ON` for CA-ON, `75` for
 * FR-75): one to three capitals or digits. The list of subdivisions is not kept (about 5,000
 * codes), so a well-formed code that does not exist matches no rate, like any other region.
 */
export const REGION_PATTERN = /^[A-Z0-9]{1,3}$/;
export const REGION_MESSAGE = "an ISO 3166-2 subdivision code without the country, such as CA or ON";
