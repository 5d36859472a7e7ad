import { type Browser, chromium } from "playwright-core";

/** Debian's Chromium: `.ci/run` installs it with apt; no browser is downloaded. */
export const CHROMIUM_PATH = "/usr/bin/chromium";

const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
];

/** Launches headless Chromium with the flags this machine and CI need. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: FLAGS });
}
