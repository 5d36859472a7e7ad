import { describe, expect, it } from "vitest";
import { fromMinor, isCurrency, minorDigits, toMinor } from "../src/money.ts";
import { isCountry } from "../src/rules/countries.ts";

describe("money", () => {
  it("reads one-decimal source prices as whole minor units", () => {
    expect(toMinor("100.0")).toBe(10000);
    expect(toMinor("19.99")).toBe(1999);
    expect(toMinor("7")).toBe(700);
  });

  it("writes two decimals whatever the source used", () => {
    expect(fromMinor(10000)).toEqual({ amount: "100.00", currency: "USD" });
    expect(fromMinor(5)).toEqual({ amount: "0.05", currency: "USD" });
  });

  it("refuses more decimals than the currency has, so no rounding ever happens", () => {
    expect(() => toMinor("1.999")).toThrow(RangeError);
  });

  it("sums prices exactly where floating point would not", () => {
    expect(fromMinor(toMinor("0.10") + toMinor("0.20")).amount).toBe("0.30");
  });
});

/**
 * The Worker keeps its code lists compact (src/money.ts groups currencies by first letter,
 * src/rules/countries.ts a bitmap of countries); these are the same lists written out, code by
 * code, and every code of three (two) capitals is checked against them both ways.
 */
const CURRENCIES_BY_DIGITS: Record<number, string> = {
  2: "AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BOV BRL BSD BTN BWP BYN BZD CAD CDF CHE CHF CHW CNY COP COU CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD HKD HNL HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD USN UYU UZS VED VES WST XCD XCG YER ZAR ZMW ZWG ZWL",
  0: "BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF",
  3: "BHD IQD JOD KWD LYD OMR TND",
  4: "CLF UYW",
};
const COUNTRIES =
  "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW " +
  "BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI " +
  "FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN " +
  "IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME " +
  "MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF " +
  "PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV " +
  "SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS XK " +
  "YE YT ZA ZM ZW";

function allCodes(length: number): string[] {
  let codes = [""];
  for (let i = 0; i < length; i++)
    codes = codes.flatMap((code) => Array.from({ length: 26 }, (_, n) => code + String.fromCharCode(65 + n)));
  return codes;
}

describe("ISO code lists", () => {
  it("knows exactly the ISO 4217 currencies of its list, each with its minor digits", () => {
    const expected = new Map<string, number>();
    for (const [digits, codes] of Object.entries(CURRENCIES_BY_DIGITS))
      for (const code of codes.split(" ")) expected.set(code, Number(digits));
    expect(expected.size).toBe(168);
    for (const code of allCodes(3)) {
      expect(isCurrency(code), code).toBe(expected.has(code));
      if (expected.has(code)) expect(minorDigits(code), code).toBe(expected.get(code));
    }
  });

  it("knows exactly the ISO 3166-1 alpha-2 countries and XK", () => {
    const expected = new Set(COUNTRIES.split(" "));
    expect(expected.size).toBe(250);
    for (const code of allCodes(2)) expect(isCountry(code), code).toBe(expected.has(code));
    for (const code of ["us", "U", "USA", "", "U1"]) expect(isCountry(code), code).toBe(false);
  });
});
