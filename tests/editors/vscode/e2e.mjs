#!/usr/bin/env node
// End-to-end test of the packaged specward extension (client-vscode/specward-0.1.0.vsix) in a
// real VS Code: code-server (npm, bundles VS Code), driven by playwright-core + Debian chromium.
//
//   node e2e.mjs [PYTHON]        (Node 24; run.sh sets PATH and runs setup.sh first)
//
// PYTHON (default: $SPECWARD_E2E_PYTHON or python3) must be able to `import specward.server`.
// Environment: SPECWARD_E2E_VSIX (default client-vscode/specward-0.1.0.vsix),
// SPECWARD_E2E_CHROMIUM (default /usr/bin/chromium), SPECWARD_E2E_KEEP=1 keeps the temp dir,
// SPECWARD_E2E_SCREENSHOT (default <tmpdir>/specward-e2e/vscode-phantom-api.png; set it to
// docs/screenshots/vscode-phantom-api.png to refresh the README's picture).
//
// Works on a copy of examples/fullstack. Checks, each waiting on a condition (<= 90 s):
//   (a) the diagnostics oracle (SPECWARD_TEST_DIAGNOSTICS_FILE) has the phantom-api diagnostic
//   (b) the Problems panel shows it          (c) hovering the URL shows "not in the contract"
//   (d) the quick fix removes it             (e) the status-bar item says "specward", and the
//       status oracle (SPECWARD_TEST_STATUS_FILE) shows the server started (never "nothing")
// In the same window, web/src/features/tags.ts (written into the copy before code-server
// starts) imports `gett`, which web/src/api/request.ts does not export:
//   (i) the oracle has its missing-export diagnostic and the Problems panel shows its message
//   (j) the quick fix "Change to 'get'" (a command, specward.applyFix: the server sends
//       workspace/applyEdit, then records the fix) rewrites the import to `get as gett`, the
//       missing-export leaves the oracle, and .specward/fix-history.jsonl in the copy holds
//       one record whose brokenImport.names is ["gett"]
//   (k) an architecture rule appended to the copy's pyproject.toml (web/src/components must not
//       import web/src/api) and web/src/components/Avatar.tsx, which does: the oracle has its
//       invariant-violation (an error on line 1, the rule id in the message) and the Problems
//       panel lists it
//   (l) a context manifest captured (specward context capture) before code-server starts, of
//       a task on web/src/features/profile.ts: after the quick fix (d) edited that file, the
//       oracle has stale-context on the manifest
//   (m) an LLM stage against a stub provider (an OpenAI-compatible HTTP server on 127.0.0.1
//       started here, its URL in SPECWARD_MODEL/SPECWARD_API_BASE/SPECWARD_API_KEY of the
//       server's environment, one scripted streamed answer): "specward: Generate spec from
//       request…" from the command palette, the request typed in the input box; the server's
//       workspace/applyEdit (annotated needsConfirmation) shows in the Refactor Preview, its
//       change unticked (VS Code's way of asking), the file is not on disk until the change is
//       ticked and "Apply" clicked there, then specs/users-export-notes-csv.md
//       holds the scripted spec and .specward/runs.jsonl records the run with that file
//   (o) the discuss stage on that spec: "specward: Discuss the open questions of this spec" from the
//       command palette; the stub's one question arrives as a message with one button per option
//       (window/showMessageRequest); the test clicks one, ticks and applies the edit in the
//       Refactor Preview as in (m), and specs/users-export-notes-csv.context.md holds the chosen answer
//   (n) the score item: a scored run seeded in the copy's .specward/runs.jsonl before
//       code-server starts shows as "specward 8.8 PASS" in the status bar (specward/lastScore)
// Then, in a second code-server (its own oracles), a project with nothing for specward (a
// pyproject.toml without [tool.specward] and a README: no source file, no contract):
//   (f) the status item says "specward: nothing to check", and no server was started
//   (g) moving in a web/ folder holding a TypeScript file and api/openapi.yaml starts the
//       server (file watcher): the oracle gets the phantom-api diagnostic of that file,
//       opened; the status file shows nothing, then starting
//   (h) the status item says "specward"
// Saves the screenshot (above). Exit 0 on success; on failure exit 1 with
// the failing step and a screenshot in /tmp. code-server is always killed at the end.

import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '../../..');
const STEP_TIMEOUT = 90_000;
const PYTHON_ARG = process.argv[2] || process.env.SPECWARD_E2E_PYTHON || 'python3';
const VSIX = process.env.SPECWARD_E2E_VSIX || path.join(REPO, 'client-vscode/specward-0.1.0.vsix');
const CHROMIUM = process.env.SPECWARD_E2E_CHROMIUM || '/usr/bin/chromium';
// a test run leaves the checkout as it was: the committed picture changes only on request
const SCREENSHOT = process.env.SPECWARD_E2E_SCREENSHOT
  ? path.resolve(process.env.SPECWARD_E2E_SCREENSHOT)
  : path.join(os.tmpdir(), 'specward-e2e', 'vscode-phantom-api.png');
const CODE_SERVER = path.join(HERE, 'node_modules/code-server/out/node/entry.js');

const EXPECTED_MESSAGE = 'GET /api/user/profile/avatar is not in the contract';
const URL_TOKEN = "'/user/profile/avatar'";
const FIX_TITLE = 'Replace with GET /api/user/profile';
const REL_FILE = 'web/src/features/profile.ts';
// (i)-(j): a name that web/src/api/request.ts does not export (it exports `get`)
const IMPORT_REL = 'web/src/features/tags.ts';
const IMPORT_SOURCE = [
  "import { gett } from '../api/request';",
  '',
  '// The articles filed under a tag, newest first.',
  'export const articlesTagged = (tag: string) => gett(`/articles?tag=${encodeURIComponent(tag)}`);',
  '',
].join('\n');
const IMPORT_MESSAGE = "'gett' is not exported by web/src/api/request.ts (did you mean 'get'?)";
const IMPORT_FIX_TITLE = "Change to 'get'";
// (k): an architecture rule appended to the copy's pyproject.toml, and a component that crosses it
const RULE_TOML = [
  '',
  '[[tool.specward.invariants]]',
  'id = "components-skip-the-api"',
  'type = "forbidden"',
  'source = ["web/src/components"]',
  'forbidden = ["web/src/api"]',
  '',
].join('\n');
const RULE_REL = 'web/src/components/Avatar.tsx';
const RULE_SOURCE = [
  "import { get } from '../api/request';",
  '',
  '// the same fetcher as the features, for the avatar component',
  'export const fetchAvatar = get;',
  '',
].join('\n');
const RULE_MESSAGE = '[components-skip-the-api] web/src/components/Avatar.tsx must not import web/src/api';

const MANIFEST_REL = '.specward/context/profile.json';

// (m)-(n): the LLM stage and the last score
const STAGE_REQUEST = 'Let users export their notes as CSV';
const STAGE_REL = 'specs/users-export-notes-csv.md';
const STAGE_SPEC = [
  '# Export notes as CSV', '', '## Background', 'People want their notes in a spreadsheet.', '',
  '## User stories', 'As a user, I want to download my notes as CSV, so that I can open them elsewhere.', '',
  '## Acceptance criteria', '1. GET /api/notes/export answers text/csv with one row per note.', '',
  '## Edge cases', '- No notes: a header row only.', '',
].join('\n');
const STAGE_ANSWER = 'Here is the spec.\n\n````md path=specs/notes-csv.md\n' + STAGE_SPEC + '````\n';
// (o): the discuss stage on the spec of (m): one question, answered with a button of its message
const DISCUSS_QUESTION = 'How are the notes separated in the CSV file?';
const DISCUSS_OPTIONS = ['Comma', 'Semicolon'];
const DISCUSS_ANSWER = 'Open questions:\n\n```json\n' + JSON.stringify({ questions: [
  { id: 'separator', question: DISCUSS_QUESTION, options: DISCUSS_OPTIONS }] }, null, 2) + '\n```\n';
const DISCUSS_REL = 'specs/users-export-notes-csv.context.md';
const SCORE_RECORD = {
  dimensions: { compile: 0.8, compliance: 1.0, coverage: 0.8, review: 0.9 }, files: ['web/src/a.ts'], findings: {},
  model: 'openai/stub-model', prompt_hash: `sha256:${'0'.repeat(64)}`, run_id: '20261201T100000Z-e2e001', score: 8.8,
  stage: 'slice', time: '2026-12-01T10:00:00Z', v: 1, verdict: 'PASS',
};
const SCORE_TEXT = 'specward 8.8 PASS';

/** A stand-in LLM provider (as tests/llm_stub.py): POST /v1/chat/completions answers the
 * next scripted text, streamed as server-sent events when asked. */
function startLLMStub(answers) {
  const requests = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => { body += c; });
    req.on('end', () => {
      let parsed = {};
      try { parsed = JSON.parse(body || '{}'); } catch {}
      requests.push({ path: req.url, headers: req.headers, body: parsed });
      const text = answers.shift();
      if (!req.url.replace(/\/$/, '').endsWith('/chat/completions') || text === undefined) {
        res.writeHead(text === undefined ? 500 : 404, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'no scripted answer', type: 'server_error' } }));
        return;
      }
      const base = { id: 'chatcmpl-e2e', created: Math.floor(Date.now() / 1000), model: 'stub-model' };
      if (!parsed.stream) {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ ...base, object: 'chat.completion', usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }] }));
        return;
      }
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'close' });
      const event = (delta, finish) => res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk',
        choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
      for (let i = 0; i < text.length; i += 64) {
        event(i ? { content: text.slice(i, i + 64) } : { role: 'assistant', content: text.slice(i, i + 64) }, null);
      }
      event({}, 'stop');
      res.end('data: [DONE]\n\n');
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, requests, port: server.address().port })));
}
const STALE_MESSAGE = `${REL_FILE} changed since task 'profile' read it`;

const t0 = Date.now();
const log = (msg) => console.log(`[e2e ${((Date.now() - t0) / 1000).toFixed(1).padStart(5)}s] ${msg}`);

class StepError extends Error {}

/** Polls `fn` until it returns a truthy value; throws `what` after `timeout` ms. */
async function waitFor(what, fn, { timeout = STEP_TIMEOUT, interval = 250 } = {}) {
  const end = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      if (err instanceof StepError) throw err;
      last = err;
    }
    if (Date.now() > end) {
      throw new StepError(`timed out after ${timeout / 1000} s waiting for ${what}` +
        (last ? ` (last error: ${last.message.split('\n')[0]})` : ''));
    }
    await new Promise((r) => setTimeout(r, interval));
  }
}

/** Put the cursor on the squiggle in `box`, open the code-action menu (Ctrl+.) until the
 * fix titled `title` shows, and click it: what a user does (a click on the squiggle itself
 * times out, the editor's view layer intercepts it). */
async function applyQuickFix(page, box, title) {
  await page.keyboard.press('Escape');
  await page.mouse.move(box.x + box.width / 2, box.y + 300);
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2); // cursor on the squiggle
  await page.keyboard.press('Escape'); // any hover the click raised
  const fixItem = page.locator('.action-widget .monaco-list-row', { hasText: title }).first();
  await waitFor('the code-action menu with the fix', async () => {
    await page.keyboard.press('Control+.');
    try {
      await fixItem.waitFor({ state: 'visible', timeout: 5_000 });
      return true;
    } catch {
      await page.keyboard.press('Escape');
      return false;
    }
  });
  const fb = await fixItem.boundingBox();
  await page.mouse.click(fb.x + fb.width / 2, fb.y + fb.height / 2);
}

function resolvePython(p) {
  if (p.includes('/')) return path.resolve(p);
  const r = spawnSync('sh', ['-c', `command -v "${p}"`], { encoding: 'utf8' });
  if (r.status !== 0) throw new StepError(`python "${p}" not found on PATH`);
  return r.stdout.trim();
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function readOracle(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null; // not written yet (it is renamed into place atomically)
  }
}

/** The status oracle: one JSON object per line, appended by the extension; [] until written. */
function readStatus(file) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  // a line being appended may be incomplete: keep the complete ones
  return text.split('\n').filter((l) => l.endsWith('}')).map((l) => JSON.parse(l));
}

let step = 'preparing';
let codeServer;
let browser;
let page;
let tmp;
let llmStub;

/** Starts code-server on a free port with `env`; resolves to its base URL once healthy. */
async function startCodeServer(csArgs, env, logName, folder) {
  const port = await freePort();
  const csLog = fs.openSync(path.join(tmp, logName), 'a');
  codeServer = spawn(process.execPath, [CODE_SERVER, ...csArgs, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, folder],
    { env, stdio: ['ignore', csLog, csLog], detached: true });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`code-server on ${base}/healthz (log: ${tmp}/${logName})`, async () => {
    if (codeServer.exitCode !== null) throw new StepError(`code-server exited with ${codeServer.exitCode}`);
    const r = await fetch(`${base}/healthz`);
    return r.ok;
  });
  log(`code-server ${codeServer.pid} listening on ${base}`);
  return base;
}

/** Stops code-server's whole process group (server, extension host, specward). */
async function stopCodeServer() {
  if (!codeServer || codeServer.exitCode !== null || codeServer.signalCode !== null) return;
  try {
    process.kill(-codeServer.pid, 'SIGTERM');
  } catch {}
  const end = Date.now() + 10_000;
  while (codeServer.exitCode === null && codeServer.signalCode === null && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 100));
  }
  try {
    process.kill(-codeServer.pid, 'SIGKILL');
  } catch {}
  log('code-server stopped');
}

/** A new page on `folder`, once the workbench is there. */
async function openWindow(base, folder) {
  if (page) await page.close().catch(() => {});
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(STEP_TIMEOUT);
  await page.goto(`${base}/?folder=${encodeURIComponent(folder)}`);
  await page.locator('.monaco-workbench').waitFor();
}

/** Opens `rel` (a/b/c.ts) from the Explorer; resolves to the editor once it shows `lineText`. */
async function openFromExplorer(rel, lineText) {
  const explorer = page.locator('.explorer-folders-view');
  await explorer.waitFor();
  const parts = rel.split('/');
  for (const [i, name] of parts.entries()) {
    const row = explorer.locator('.monaco-list-row').filter({ has: page.locator('.label-name', { hasText: new RegExp(`^${name.replace('.', '\\.')}$`) }) }).first();
    await row.waitFor();
    const expanded = await row.getAttribute('aria-expanded');
    if (i === parts.length - 1 || expanded !== 'true') {
      await row.click();
    }
  }
  const editor = page.locator('.editor-instance .monaco-editor').first();
  await page.locator('.tab.active', { hasText: parts.at(-1) }).waitFor();
  await editor.locator('.view-line', { hasText: lineText }).waitFor();
  return editor;
}

async function main() {
  // ---- preconditions --------------------------------------------------------------
  const python = resolvePython(PYTHON_ARG);
  const probe = spawnSync(python, ['-c', 'import specward.server'], { encoding: 'utf8', env: { ...process.env, PYTHONSAFEPATH: '1' }, cwd: os.tmpdir() });
  if (probe.status !== 0) throw new StepError(`${python} cannot import specward.server:\n${probe.stderr}`);
  for (const [what, p] of [['the .vsix (run setup.sh)', VSIX], ['code-server (run setup.sh)', CODE_SERVER], ['chromium', CHROMIUM]]) {
    if (!fs.existsSync(p)) throw new StepError(`missing ${what}: ${p}`);
  }
  log(`node ${process.version}, python ${python}, vsix ${path.relative(REPO, VSIX)}`);

  // ---- a fresh workspace copy, user-data dir and extensions dir --------------------
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'specward-vscode-e2e-'));
  const workspace = path.join(tmp, 'fullstack');
  fs.cpSync(path.join(REPO, 'examples/fullstack'), workspace, { recursive: true });
  fs.writeFileSync(path.join(workspace, IMPORT_REL), IMPORT_SOURCE);
  fs.appendFileSync(path.join(workspace, 'pyproject.toml'), RULE_TOML);
  fs.writeFileSync(path.join(workspace, RULE_REL), RULE_SOURCE);
  // (l): a context manifest of a task on the file the quick fix (d) will edit
  const captured = spawnSync(python, ['-m', 'specward.server', 'context', 'capture', REL_FILE, '--no-cache'],
    { encoding: 'utf8', cwd: workspace, env: { ...process.env, PYTHONSAFEPATH: '1' } });
  if (captured.status !== 0 || captured.stdout.split('\n')[0] !== MANIFEST_REL) {
    throw new StepError(`specward context capture failed (${captured.status}):\n${captured.stdout}\n${captured.stderr}`);
  }
  // (n): a scored run in the run log before the server starts
  fs.appendFileSync(path.join(workspace, '.specward', 'runs.jsonl'), JSON.stringify(SCORE_RECORD) + '\n');
  llmStub = await startLLMStub([STAGE_ANSWER, DISCUSS_ANSWER]);
  const userData = path.join(tmp, 'user-data');
  const extensions = path.join(tmp, 'extensions');
  const oracle = path.join(tmp, 'diagnostics.json');
  const statusFile = path.join(tmp, 'status.jsonl');
  const settings = JSON.stringify({
    'security.workspace.trust.enabled': false,
    'specward.pythonPath': python,
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.welcomePage.walkthroughs.openOnInstall': false,
    'workbench.enableExperiments': false,
    'workbench.secondarySideBar.defaultVisibility': 'hidden',
    'chat.disableAIFeatures': true,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'extensions.ignoreRecommendations': true,
    'explorer.compactFolders': false,
    'editor.minimap.enabled': false,
    'editor.hover.delay': 300,
    'git.enabled': false,
  }, null, 2);
  // specward.pythonPath has "machine" scope: a code-server window is a remote window, where
  // VS Code applies machine settings from the remote's Machine/settings.json (User values of
  // machine-scoped settings are only honoured when the extension host happens to read them
  // early, so relying on them alone was flaky). Both files get the same settings.
  for (const dir of ['User', 'Machine']) {
    fs.mkdirSync(path.join(userData, dir), { recursive: true });
    fs.writeFileSync(path.join(userData, dir, 'settings.json'), settings);
  }

  const env = { ...process.env, SPECWARD_TEST_DIAGNOSTICS_FILE: oracle, SPECWARD_TEST_STATUS_FILE: statusFile,
    // (m): the server (started by the extension, with the extension host's environment) asks the stub
    SPECWARD_MODEL: 'openai/stub-model', SPECWARD_API_BASE: `http://127.0.0.1:${llmStub.port}/v1`,
    SPECWARD_API_KEY: 'sk-e2e-stub-key' };
  // code-server's scripts expect this Node (24) first on PATH
  env.PATH = `${path.dirname(process.execPath)}:${env.PATH}`;
  // a config file of our own: code-server would otherwise create ~/.config/code-server/config.yaml
  const csConfig = path.join(tmp, 'code-server.yaml');
  fs.writeFileSync(csConfig, 'auth: none\n');
  const csArgs = ['--config', csConfig, '--disable-telemetry', '--disable-update-check', '--user-data-dir', userData, '--extensions-dir', extensions];

  step = 'installing the .vsix';
  const inst = spawnSync(process.execPath, [CODE_SERVER, ...csArgs, '--install-extension', VSIX], { encoding: 'utf8', env, timeout: 120_000 });
  if (inst.status !== 0 || !/successfully installed/i.test(inst.stdout + inst.stderr)) {
    throw new StepError(`code-server --install-extension failed (${inst.status}):\n${inst.stdout}\n${inst.stderr}`);
  }
  log(`installed ${path.basename(VSIX)}`);

  step = 'starting code-server';
  const base = await startCodeServer(csArgs, env, 'code-server.log', workspace);

  step = 'opening the workspace in chromium';
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  await openWindow(base, workspace);

  step = `opening ${REL_FILE} from the Explorer`;
  const editor = await openFromExplorer(REL_FILE, URL_TOKEN);
  log(`opened ${REL_FILE}`);

  // ---- (a) the oracle -------------------------------------------------------------
  step = '(a) phantom-api diagnostic in the oracle file';
  const isOurs = (d) => d.code === 'phantom-api' && d.source === 'specward' && d.uri.endsWith(`/${REL_FILE}`) &&
    d.message.includes(EXPECTED_MESSAGE);
  const statusItem = page.locator('.statusbar-item', { hasText: /specward/ }).first();
  const phantom = await waitFor(`"${EXPECTED_MESSAGE}" in ${oracle}`, async () => {
    const found = (readOracle(oracle) || []).find(isOurs);
    if (found) return found;
    const status = await statusItem.innerText({ timeout: 500 }).catch(() => '');
    if (/not installed|stopped|nothing to check/.test(status)) {
      throw new StepError(`the extension's status bar says "${status.trim()}": the server did not start ` +
        `(see ${tmp}/user-data/logs/*/exthost1/specward.specward/specward.log)`);
    }
    return undefined;
  });
  const line = phantom.range.start.line;
  log(`(a) ok: oracle has ${phantom.code} at ${line + 1}:${phantom.range.start.character + 1} (${phantom.severity}): ${phantom.message}`);

  // ---- (b) the Problems panel -----------------------------------------------------
  step = '(b) the message in the Problems panel';
  await editor.click({ position: { x: 400, y: 5 } }); // focus the workbench (top of the editor)
  await page.keyboard.press('Control+Shift+M');
  const problemRow = page.locator('.markers-panel .monaco-list-row', { hasText: EXPECTED_MESSAGE }).first();
  await problemRow.waitFor({ state: 'visible' });
  log('(b) ok: Problems panel lists the message');

  // ---- (c) hover ------------------------------------------------------------------
  step = '(c) hover on the URL';
  const squiggle = editor.locator('.squiggly-error').first();
  await squiggle.waitFor({ state: 'attached' });
  const token = editor.locator('.view-line span span', { hasText: URL_TOKEN }).first();
  await token.waitFor();
  const box = await token.boundingBox();
  if (!box) throw new StepError('the URL token has no bounding box');
  const hover = page.locator('.monaco-hover:not(.hidden)', { hasText: 'not in the contract' }).first();
  await waitFor('a hover containing "not in the contract"', async () => {
    // move off and back on, so a hover that was dismissed (or never triggered) shows again
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2 + 60);
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 4 });
    try {
      await hover.waitFor({ state: 'visible', timeout: 5_000 });
      return true;
    } catch {
      return false;
    }
  });
  log(`(c) ok: hover says "${(await hover.innerText()).split('\n').find((l) => l.includes('not in the contract'))}"`);
  fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
  await page.screenshot({ path: SCREENSHOT });
  log(`screenshot: ${SCREENSHOT}`);

  // ---- (d) quick fix --------------------------------------------------------------
  step = `(d) quick fix "${FIX_TITLE}"`;
  await applyQuickFix(page, box, FIX_TITLE);
  await editor.locator('.view-line', { hasText: "api.get('/user/profile')" }).nth(1).waitFor();
  await waitFor(`no phantom-api on line ${line + 1} of ${REL_FILE} in the oracle`, () => {
    const diags = readOracle(oracle);
    return diags && !diags.some((d) => d.code === 'phantom-api' && d.uri.endsWith(`/${REL_FILE}`) && d.range.start.line === line);
  });
  log(`(d) ok: the fix rewrote line ${line + 1} and its phantom-api is gone`);

  // ---- (e) status bar -------------------------------------------------------------
  step = '(e) the status-bar item';
  const item = page.locator('.statusbar-item', { hasText: /specward/ }).first();
  const text = await waitFor('a status-bar item reading "specward" (ready)', async () => {
    const t = (await item.innerText({ timeout: 1_000 })).trim();
    return /specward/.test(t) && !/stopped|not installed/.test(t) ? t : false;
  });
  const states = readStatus(statusFile).filter((r) => r.folders.includes(workspace)).map((r) => r.state);
  if (states[0] !== 'looking' || !states.includes('starting') || !states.includes('ready') || states.includes('nothing')) {
    throw new StepError(`the status oracle ${statusFile} says ${JSON.stringify(states)}: expected looking, starting, ..., ready and never nothing`);
  }
  log(`(e) ok: status bar says "${text}"; the status oracle says ${states.join(' -> ')}`);

  await missingExport({ workspace, oracle });
  await architectureRule({ oracle });
  await staleContext({ oracle });
  await generateSpec({ workspace });
  await discussSpec({ workspace });
  await nothingToCheck({ csArgs });
}

/** (m)-(n): an LLM stage from the command palette, confirmed in the Refactor Preview; the score item. */
async function generateSpec({ workspace }) {
  step = '(n) the last-score item';
  const scoreItem = page.locator('.statusbar-item', { hasText: SCORE_TEXT }).first();
  await scoreItem.waitFor({ state: 'visible' });
  log(`(n) ok: the status bar shows "${(await scoreItem.innerText()).trim()}"`);

  step = '(m) "specward: Generate spec from request…" from the command palette';
  const target = path.join(workspace, STAGE_REL);
  await page.keyboard.press('Escape');
  await page.locator('.editor-instance .monaco-editor').first().click({ position: { x: 400, y: 5 } });
  const quickInput = page.locator('.quick-input-widget');
  const paletteRow = quickInput.locator('.monaco-list-row', { hasText: 'specward: Generate spec from request' }).first();
  await waitFor('the command in the palette', async () => {
    await page.keyboard.press('F1');
    const input = quickInput.locator('input').first();
    await input.waitFor({ state: 'visible', timeout: 5_000 });
    await input.fill('>specward: Generate spec from request');
    try {
      await paletteRow.waitFor({ state: 'visible', timeout: 5_000 });
      return true;
    } catch {
      await page.keyboard.press('Escape');
      return false;
    }
  });
  await page.keyboard.press('Enter');
  await quickInput.locator('.quick-input-message, .quick-input-title', { hasText: /feature request|Generate spec/ }).first()
    .waitFor({ state: 'visible' });
  await quickInput.locator('input').first().fill(STAGE_REQUEST);
  await page.keyboard.press('Enter');

  step = '(m) the stage\'s edit in the Refactor Preview, applied there';
  const apply = page.locator('.monaco-button', { hasText: /^Apply$/ }).first();
  await apply.waitFor({ state: 'visible' });
  await page.locator('.monaco-list-row', { hasText: 'users-export-notes-csv.md' }).first().waitFor({ state: 'visible' });
  if (fs.existsSync(target)) {
    throw new StepError(`${STAGE_REL} is on disk before the edit was confirmed`);
  }
  const asked = llmStub.requests.at(-1);
  if (!asked || !JSON.stringify(asked.body.messages).includes(STAGE_REQUEST) || asked.headers.authorization !== 'Bearer sk-e2e-stub-key') {
    throw new StepError(`the stub provider was not asked for the spec: ${JSON.stringify(llmStub.requests.map((r) => r.path))}`);
  }
  // VS Code lists changes that need confirmation unticked: tick the run's change, then Apply
  // (one annotation: the preview lists the file itself, "users-export-notes-csv.md specs (creating)")
  const change = page.locator('.monaco-list-row', { hasText: 'users-export-notes-csv.md' }).first();
  const tick = change.locator('input[type="checkbox"], .monaco-checkbox, .monaco-custom-toggle, [role="checkbox"]').first();
  await tick.waitFor({ state: 'visible' });
  const ticked = async () => (await tick.isChecked().catch(() => false)) ||
    /\bchecked\b/.test((await tick.getAttribute('class')) || '');
  if (await ticked()) {
    throw new StepError('the change that needs confirmation is ticked before the user ticked it');
  }
  await tick.click();
  await waitFor('the change ticked', ticked);
  await apply.click();
  await waitFor(`${STAGE_REL} on disk with the scripted spec`, () => {
    try {
      return fs.readFileSync(target, 'utf8') === STAGE_SPEC;
    } catch {
      return false;
    }
  });
  const runsFile = path.join(workspace, '.specward', 'runs.jsonl');
  const rec = await waitFor(`the run in ${runsFile}`, () => fs.readFileSync(runsFile, 'utf8').split('\n')
    .filter((l) => l.endsWith('}')).map((l) => JSON.parse(l)).find((r) => r.stage === 'spec'));
  if (JSON.stringify(rec.files) !== JSON.stringify([STAGE_REL]) || rec.model !== 'openai/stub-model') {
    throw new StepError(`the run record is ${JSON.stringify(rec)}: expected files ["${STAGE_REL}"] and model openai/stub-model`);
  }
  log(`(m) ok: the spec stage asked the stub, the Refactor Preview's Apply wrote ${STAGE_REL}, run ${rec.run_id} logged`);
  await scoreItem.waitFor({ state: 'visible' }); // an unscored run leaves the last score as it was
}

/** (o): the discuss stage on the spec of (m): its question as a message with buttons. */
async function discussSpec({ workspace }) {
  step = '(o) "specward: Discuss the open questions of this spec" from the command palette';
  const target = path.join(workspace, DISCUSS_REL);
  await openFromExplorer(STAGE_REL, 'Export notes as CSV');
  const quickInput = page.locator('.quick-input-widget');
  const title = 'specward: Discuss the open questions of this spec';
  const paletteRow = quickInput.locator('.monaco-list-row', { hasText: title }).first();
  await waitFor('the discuss command in the palette', async () => {
    await page.keyboard.press('F1');
    const input = quickInput.locator('input').first();
    await input.waitFor({ state: 'visible', timeout: 5_000 });
    await input.fill(`>${title}`);
    try {
      await paletteRow.waitFor({ state: 'visible', timeout: 5_000 });
      return true;
    } catch {
      await page.keyboard.press('Escape');
      return false;
    }
  });
  await page.keyboard.press('Enter');

  step = '(o) the question as a message with one button per option (window/showMessageRequest)';
  const toast = page.locator('.notification-toast', { hasText: DISCUSS_QUESTION }).first();
  await toast.waitFor({ state: 'visible' });
  const buttons = toast.locator('.monaco-button');
  await waitFor('the option buttons', async () => {
    const texts = (await buttons.allInnerTexts()).map((t) => t.trim());
    return DISCUSS_OPTIONS.every((o) => texts.includes(o));
  });
  await buttons.filter({ hasText: new RegExp(`^${DISCUSS_OPTIONS[1]}$`) }).first().click();

  step = '(o) the discuss edit in the Refactor Preview, applied there';
  const apply = page.locator('.monaco-button', { hasText: /^Apply$/ }).first();
  await apply.waitFor({ state: 'visible' });
  const change = page.locator('.monaco-list-row', { hasText: 'users-export-notes-csv.context.md' }).first();
  await change.waitFor({ state: 'visible' });
  if (fs.existsSync(target)) {
    throw new StepError(`${DISCUSS_REL} is on disk before the edit was confirmed`);
  }
  const tick = change.locator('input[type="checkbox"], .monaco-checkbox, .monaco-custom-toggle, [role="checkbox"]').first();
  await tick.waitFor({ state: 'visible' });
  const ticked = async () => (await tick.isChecked().catch(() => false)) ||
    /\bchecked\b/.test((await tick.getAttribute('class')) || '');
  if (!(await ticked())) {
    await tick.click();
    await waitFor('the change ticked', ticked);
  }
  await apply.click();
  const text = await waitFor(`${DISCUSS_REL} on disk with the chosen answer`, () => {
    try {
      const t = fs.readFileSync(target, 'utf8');
      return t.includes(DISCUSS_QUESTION) && t.includes(`**Decision:** ${DISCUSS_OPTIONS[1]}`) ? t : false;
    } catch {
      return false;
    }
  });
  const asked = llmStub.requests.at(-1);
  if (!asked || !JSON.stringify(asked.body.messages).includes('People want their notes in a spreadsheet.')) {
    throw new StepError('the stub provider was not asked with the spec\'s text');
  }
  log(`(o) ok: the question came as a message with buttons, "${DISCUSS_OPTIONS[1]}" clicked, ${DISCUSS_REL} holds it (${text.length} chars)`);
}

/** (l): the quick fix of (d) edited a file a task's context manifest read. */
async function staleContext({ oracle }) {
  step = '(l) stale-context on the manifest in the oracle file';
  const found = await waitFor(`the stale-context of ${MANIFEST_REL} in ${oracle}`,
    () => (readOracle(oracle) || []).find((d) => d.code === 'stale-context' && d.source === 'specward' &&
      d.uri.endsWith(`/${MANIFEST_REL}`)));
  if (!found.message.includes(STALE_MESSAGE) || found.severity !== 'warning') {
    throw new StepError(`the stale-context of ${MANIFEST_REL} is ${JSON.stringify(found)}: expected a warning "${STALE_MESSAGE}..."`);
  }
  log(`(l) ok: oracle has ${found.code} at ${found.range.start.line + 1}:${found.range.start.character + 1} ` +
    `(${found.severity}): ${found.message}`);
}

/** (k): an import that crosses an architecture rule of the configuration. */
async function architectureRule({ oracle }) {
  step = '(k) invariant-violation in the oracle file and the Problems panel';
  const isOurs = (d) => d.code === 'invariant-violation' && d.source === 'specward' && d.uri.endsWith(`/${RULE_REL}`);
  const found = await waitFor(`the invariant-violation of ${RULE_REL} in ${oracle}`,
    () => (readOracle(oracle) || []).find(isOurs));
  if (!found.message.startsWith(RULE_MESSAGE) || found.range.start.line !== 0 || found.severity !== 'error') {
    throw new StepError(`the invariant-violation of ${RULE_REL} is ${JSON.stringify(found)}: ` +
      `expected an error "${RULE_MESSAGE}..." on line 1`);
  }
  const filter = page.locator('.panel .viewpane-filter-container input').first();
  await filter.fill('components-skip-the-api');
  await page.locator('.markers-panel .monaco-list-row', { hasText: RULE_MESSAGE }).first().waitFor({ state: 'visible' });
  log(`(k) ok: oracle has ${found.code} at ${found.range.start.line + 1}:${found.range.start.character + 1} ` +
    `(${found.severity}), and the Problems panel lists "${found.message}"`);
}

/** (i)-(j): a missing export in web/src/features/tags.ts, and its quick fix through the UI. */
async function missingExport({ workspace, oracle }) {
  step = `opening ${IMPORT_REL} from the Explorer`;
  const editor = await openFromExplorer(IMPORT_REL, 'articlesTagged');
  log(`opened ${IMPORT_REL}`);

  // ---- (i) the oracle and the Problems panel --------------------------------------
  step = '(i) missing-export diagnostic in the oracle file and the Problems panel';
  const isOurs = (d) => d.code === 'missing-export' && d.source === 'specward' && d.uri.endsWith(`/${IMPORT_REL}`);
  const found = await waitFor(`the missing-export of ${IMPORT_REL} in ${oracle}`,
    () => (readOracle(oracle) || []).find(isOurs));
  if (!found.message.includes(IMPORT_MESSAGE) || found.range.start.line !== 0) {
    throw new StepError(`the missing-export of ${IMPORT_REL} is ${JSON.stringify(found)}: ` +
      `expected "${IMPORT_MESSAGE}" on line 1`);
  }
  const panel = page.locator('.markers-panel');
  if (!(await panel.isVisible())) {
    await editor.click({ position: { x: 400, y: 5 } });
    await page.keyboard.press('Control+Shift+M');
    await panel.waitFor({ state: 'visible' });
  }
  // the panel lists every file's problems in a virtual list: filter it down to ours
  const filter = page.locator('.panel .viewpane-filter-container input').first();
  await filter.fill('gett');
  const problemRow = page.locator('.markers-panel .monaco-list-row', { hasText: IMPORT_MESSAGE }).first();
  await problemRow.waitFor({ state: 'visible' });
  log(`(i) ok: oracle has ${found.code} at ${found.range.start.line + 1}:${found.range.start.character + 1} ` +
    `(${found.severity}), and the Problems panel lists "${found.message}"`);

  // ---- (j) quick fix, through the UI as in (d) --------------------------------------
  step = `(j) quick fix "${IMPORT_FIX_TITLE}"`;
  const importLine = editor.locator('.view-line', { hasText: "'../api/request'" }).first();
  // the theme may colour the spaces around the name like the name: one span " gett "
  const token = importLine.locator('span span', { hasText: /^\s*gett\s*$/ }).first();
  await token.waitFor();
  const box = await token.boundingBox();
  if (!box) throw new StepError('the `gett` token has no bounding box');
  await applyQuickFix(page, box, IMPORT_FIX_TITLE);
  // the server sent workspace/applyEdit: the editor shows the rewritten import
  await waitFor('the editor to show `get as gett`', async () =>
    (await editor.locator('.view-lines').innerText()).replace(/\u00a0/g, ' ').includes('get as gett'));
  await waitFor(`no missing-export of ${IMPORT_REL} in the oracle`, () => {
    const diags = readOracle(oracle);
    return diags && !diags.some(isOurs);
  });
  // then it recorded the fix (after VS Code answered that it applied the edit)
  const ledger = path.join(workspace, '.specward', 'fix-history.jsonl');
  const records = await waitFor(`one record in ${ledger}`, () => {
    let text;
    try {
      text = fs.readFileSync(ledger, 'utf8');
    } catch {
      return undefined; // not written yet
    }
    if (!text.endsWith('\n')) return undefined; // being written
    return text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
  });
  if (records.length !== 1 || JSON.stringify(records[0].brokenImport?.names) !== '["gett"]') {
    throw new StepError(`${ledger} holds ${JSON.stringify(records)}: expected one record with brokenImport.names ["gett"]`);
  }
  log(`(j) ok: the fix rewrote the import to \`get as gett\`, its missing-export is gone, and ${path.relative(workspace, ledger)} ` +
    `records ${JSON.stringify(records[0].brokenImport)}`);
}

/** (f)-(h): a project with nothing for specward, then a contract appears in it. */
async function nothingToCheck({ csArgs }) {
  step = 'preparing a project with nothing for specward';
  await stopCodeServer();
  const shop = path.join(tmp, 'shop');
  fs.mkdirSync(shop, { recursive: true });
  fs.writeFileSync(path.join(shop, 'README.md'), '# shop\n\nThe order service.\n');
  // a Python project that does not use specward: the extension activates on its pyproject.toml
  fs.writeFileSync(path.join(shop, 'pyproject.toml'), [
    '[project]', 'name = "shop"', 'version = "0.3.0"', 'requires-python = ">=3.11"', '',
    '[tool.ruff]', 'line-length = 100', '',
  ].join('\n'));
  // (a source file alone would start the server: its imports are checked without a
  // contract; it comes with the contract in step (g))
  const staging = path.join(tmp, 'staging-web');
  fs.mkdirSync(path.join(staging, 'src'), { recursive: true });
  fs.mkdirSync(path.join(staging, 'api'), { recursive: true });
  const ordersRel = 'web/src/orders.ts';
  fs.writeFileSync(path.join(staging, 'src', 'orders.ts'), [
    'export interface Order {', '  id: number;', '  total: number;', '}', '',
    'export async function listOrders(): Promise<Order[]> {', "  const res = await fetch('/api/orders');", '  return res.json();', '}', '',
    'export async function recentOrders(): Promise<Order[]> {', "  const res = await fetch('/api/orders/recent');", '  return res.json();', '}', '',
  ].join('\n'));
  // a second code-server, so the first window's extension host cannot write these oracles
  const oracle = path.join(tmp, 'diagnostics-shop.json');
  const statusFile = path.join(tmp, 'status-shop.jsonl');
  const env = { ...process.env, SPECWARD_TEST_DIAGNOSTICS_FILE: oracle, SPECWARD_TEST_STATUS_FILE: statusFile };
  env.PATH = `${path.dirname(process.execPath)}:${env.PATH}`;
  step = 'starting the second code-server';
  const base = await startCodeServer(csArgs, env, 'code-server-shop.log', shop);
  await openWindow(base, shop);
  const shopStates = () => readStatus(statusFile).filter((r) => r.folders.includes(shop));

  // ---- (f) nothing to check -------------------------------------------------------
  step = '(f) "specward: nothing to check" in a project with nothing for specward';
  const item = page.locator('.statusbar-item', { hasText: /specward/ }).first();
  const shown = await waitFor('a status-bar item reading "specward: nothing to check"', async () => {
    const t = (await item.innerText({ timeout: 1_000 })).trim();
    if (/starting|indexing|stopped|not installed/.test(t)) {
      throw new StepError(`the status bar says "${t}": the server is being started in a project with nothing for it`);
    }
    return /specward: nothing to check/.test(t) ? t : false;
  });
  const nothing = await waitFor(`"nothing" in ${statusFile}`, () => shopStates().find((r) => r.state === 'nothing'));
  if (!/pyproject\.toml has no \[tool\.specward\] table/.test(nothing.tooltip) || !/specward\.toml/.test(nothing.tooltip)) {
    throw new StepError(`the tooltip does not say what was looked for: ${JSON.stringify(nothing.tooltip)}`);
  }
  const before = shopStates().map((r) => r.state);
  if (before.some((s) => s !== 'looking' && s !== 'nothing')) {
    throw new StepError(`the status oracle says ${JSON.stringify(before)} before any contract exists`);
  }
  log(`(f) ok: status bar says "${shown}", the status oracle says ${before.join(' -> ')}`);

  // ---- (g) a contract appears -----------------------------------------------------
  step = '(g) a web/ folder with a TypeScript file and api/openapi.yaml moved into the project starts the server';
  // the folder appears at once, its files with it (as a move, a copy or a checkout does)
  fs.writeFileSync(path.join(staging, 'api', 'openapi.yaml'), [
    'openapi: 3.0.3', 'info:', '  title: Shop', '  version: 0.3.0', 'paths:', '  /api/orders:', '    get:',
    '      summary: List the orders', '      responses:', "        '200':", '          description: The orders', '',
  ].join('\n'));
  fs.renameSync(staging, path.join(shop, 'web'));
  await openFromExplorer(ordersRel, "fetch('/api/orders/recent')");
  const phantom = await waitFor(`the phantom-api diagnostic of ${ordersRel} in ${oracle}`, async () => {
    const found = (readOracle(oracle) || []).find((d) => d.code === 'phantom-api' && d.source === 'specward' &&
      d.uri.endsWith(`/${ordersRel}`) && d.message.includes('GET /api/orders/recent is not in the contract'));
    if (found) return found;
    const t = await item.innerText({ timeout: 500 }).catch(() => '');
    if (/not installed|stopped/.test(t)) {
      throw new StepError(`the status bar says "${t.trim()}" (see ${tmp}/user-data/logs/*/exthost1/specward.specward/specward.log)`);
    }
    return undefined;
  });
  const states = shopStates().map((r) => r.state);
  const firstStart = states.indexOf('starting');
  if (firstStart < 0 || states.lastIndexOf('nothing', firstStart) < 0 || states.slice(0, firstStart).some((s) => s !== 'looking' && s !== 'nothing')) {
    throw new StepError(`the status oracle says ${JSON.stringify(states)}: expected looking, nothing, then starting`);
  }
  log(`(g) ok: the contract started the server: ${phantom.message} (line ${phantom.range.start.line + 1}); status ${states.join(' -> ')}`);

  // ---- (h) status bar -------------------------------------------------------------
  step = '(h) the status-bar item after the server started';
  const ready = await waitFor('a status-bar item reading "specward" (ready)', async () => {
    const t = (await item.innerText({ timeout: 1_000 })).trim();
    return /specward/.test(t) && !/stopped|not installed|nothing to check|starting|indexing/.test(t) ? t : false;
  });
  log(`(h) ok: status bar says "${ready}"`);
}

let code = 0;
try {
  await main();
  log('PASS: all checks passed');
} catch (err) {
  code = 1;
  console.error(`\nFAIL at step: ${step}\n${err instanceof StepError ? err.message : err.stack || err}`);
  if (page) {
    const shot = path.join(os.tmpdir(), `specward-vscode-e2e-failure-${Date.now()}.png`);
    try {
      await page.screenshot({ path: shot });
      console.error(`failure screenshot: ${shot}`);
    } catch (e) {
      console.error(`(no failure screenshot: ${e.message})`);
    }
  }
  if (tmp) {
    console.error(`work dir kept for inspection: ${tmp} (code-server.log, diagnostics.json, user-data/)`);
  }
} finally {
  if (browser) await browser.close().catch(() => {});
  await stopCodeServer();
  if (llmStub) llmStub.server.close();
  if (code === 0 && tmp && process.env.SPECWARD_E2E_KEEP !== '1') {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
process.exit(code);
