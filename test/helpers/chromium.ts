// The one place that knows how to start Debian's Chromium for tests and benchmarks on this kind of
// machine: headless, and with the background networking that a closed network refuses turned off.
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = process.env.SPLITPOINT_CHROMIUM ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}
