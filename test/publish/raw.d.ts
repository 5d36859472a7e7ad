/** Fixture files imported as text (`import csv from "./fixtures/x.csv?raw"`), read by Vite as written: BOM and CRLF kept. */
declare module "*?raw" {
  const text: string;
  export default text;
}
