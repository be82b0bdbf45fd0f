// Headless Chromium for the end-to-end tests, driven one step at a time over stdin and stdout.
//
//   node drive.mjs CHROMIUM USER_DATA_DIR
//
// Each line in is a JSON step, each line out its answer, {"value": ...} or {"error": "..."}:
//   {"do": "goto", "url": "..."}                    the page's status and final URL
//   {"do": "click", "selector": "..."}              clicks, then waits for the page it leads to
//   {"do": "fill", "selector": "...", "value": "..."}  types the value into a form's field
//   {"do": "text", "selector": "body"}              the element's text as shown
//   {"do": "screenshot", "path": "....png"}         the whole page, as a PNG
//   {"do": "eval", "expression": "..."}             a JS expression evaluated in the page
//   {"do": "viewport", "width": 390, "height": 844}  the page's size from then on (a phone's)
// A step that fails answers its error and what the page shows; the browser stays open for the next.

import { createInterface } from 'node:readline';

import { chromium } from 'playwright-core';

// Without the background-networking flags Chromium reaches for Google's hosts at start, which a
// closed network refuses; the sandbox needs user namespaces that containers and CI lack.
const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];
const STEP_MS = 60_000; // a step on a loaded machine: the host answers in well under a second when idle

const [executablePath, userDataDir] = process.argv.slice(2);
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath,
  args: ARGS,
  headless: true,
  viewport: { width: 1280, height: 800 },
  timeout: 60_000,
});
context.setDefaultTimeout(STEP_MS);
const page = context.pages()[0] ?? (await context.newPage());
// What a page logs and throws, and requests to any origin but its own: the test reads them.
const seen = { console: [], errors: [], requests: [] };
page.on('console', (message) => seen.console.push(`${message.type()}: ${message.text()}`));
page.on('pageerror', (error) => seen.errors.push(String(error.message ?? error)));
page.on('request', (request) => seen.requests.push(request.url()));

const steps = {
  async goto({ url }) {
    const response = await page.goto(url, { waitUntil: 'load' });
    return { status: response?.status() ?? null, url: page.url() };
  },
  async click({ selector }) {
    const [response] = await Promise.all([
      page.waitForNavigation({ waitUntil: 'load' }).catch(() => null),
      page.locator(selector).first().click(),
    ]);
    return { status: response?.status() ?? null, url: page.url() };
  },
  async fill({ selector, value }) {
    await page.locator(selector).first().fill(value);
    return value;
  },
  async text({ selector = 'body' }) {
    return await page.locator(selector).first().innerText();
  },
  async screenshot({ path }) {
    await page.screenshot({ path, fullPage: true });
    return path;
  },
  async eval({ expression }) {
    return await page.evaluate(expression);
  },
  async viewport({ width, height }) {
    await page.setViewportSize({ width, height });
    return { width, height };
  },
  async seen() {
    return seen;
  },
};

const answer = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
answer({ value: 'ready' });
for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  try {
    const step = JSON.parse(line);
    const run = steps[step.do];
    if (!run) throw new Error(`no step '${step.do}'; the steps are ${Object.keys(steps).join(', ')}`);
    answer({ value: await run(step) });
  } catch (error) {
    const shown = await page.evaluate(() => document.body?.innerText ?? '').catch(() => '');
    answer({ error: `${String(error.message ?? error)}\nthe page at ${page.url()} shows:\n${shown.slice(0, 3000)}` });
  }
}
await context.close();
