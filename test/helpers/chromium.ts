// The one place that knows how to start Debian's Chromium for tests and benchmarks on this kind of
// machine: headless, and with the background networking that a closed network refuses turned off.
// SPLITPOINT_CHROMIUM overrides the executable (any Chromium or Chrome build).
import { accessSync, constants, statSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';
export const CHROMIUM_PATH = process.env.SPLITPOINT_CHROMIUM || DEFAULT_CHROMIUM_PATH;

/** The Debian package that provides DEFAULT_CHROMIUM_PATH, and the command that installs it. */
export const CHROMIUM_PACKAGE = 'chromium';
export const CHROMIUM_INSTALL_COMMAND = `sudo apt-get install -y --no-install-recommends ${CHROMIUM_PACKAGE}`;

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The browser the webview tests, the end-to-end tests and the bench need is not there. */
export class ChromiumMissingError extends Error {
  override name = 'ChromiumMissingError';
  constructor(
    readonly path: string,
    fromEnv: boolean,
  ) {
    super(
      fromEnv
        ? `SPLITPOINT_CHROMIUM=${path} is not an executable file. Point SPLITPOINT_CHROMIUM at a Chromium or Chrome executable, ` +
            `or unset it to use Debian's ${CHROMIUM_PACKAGE} at ${DEFAULT_CHROMIUM_PATH}.`
        : `Chromium is not installed (no executable at ${path}); the webview tests, the end-to-end tests and the bench need it. ` +
            `Install the Debian package '${CHROMIUM_PACKAGE}': ${CHROMIUM_INSTALL_COMMAND} ` +
            `(or run: bash scripts/setup-test-env.sh), or set SPLITPOINT_CHROMIUM to another Chromium or Chrome executable.`,
    );
  }
}

/** Throws ChromiumMissingError unless `path` is an executable file. */
export function assertChromiumInstalled(path = CHROMIUM_PATH, fromEnv = Boolean(process.env.SPLITPOINT_CHROMIUM)): void {
  try {
    if (!statSync(path).isFile()) throw new Error('not a file');
    accessSync(path, constants.X_OK);
  } catch {
    throw new ChromiumMissingError(path, fromEnv);
  }
}

/** Starts headless Chromium; a missing executable is a ChromiumMissingError, before anything starts. */
export function launchChromium(): Promise<Browser> {
  try {
    assertChromiumInstalled();
  } catch (e) {
    return Promise.reject(e);
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
}
