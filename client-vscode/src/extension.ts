// The VS Code side of specward: look for something to check, find the server, start it
// over stdio, show its state.
//
// What can be decided without VS Code lives in pure modules with unit tests:
// detect.ts (is there anything for specward in a folder), serverCommand.ts (which program),
// settings.ts (initializationOptions), status.ts (the status-bar item), stages.ts (the LLM
// stages' palette commands and the last-score item), diagnosticsDump.ts
// (the test oracles), which.ts (PATH lookup), constants.ts (the install URL, the documents
// the server sees, the globs that make a workspace one for specward).
//
// The extension activates on those globs (package.json's `workspaceContains:`) and on its
// own commands. It starts the server only when detect() finds something in a workspace
// folder (a pyproject.toml needs its `[tool.specward]` table) or when the user runs
// "specward: Restart Server"; otherwise the status item says "nothing to check" and a file
// watcher starts the server once something appears.

import * as cp from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  CloseAction,
  type CloseHandlerResult,
  ErrorAction,
  type ErrorHandler,
  type ErrorHandlerResult,
  type Executable,
  LanguageClient,
  type LanguageClientOptions,
  type Message,
  State as ClientState,
} from 'vscode-languageclient/node';

import { DETECT_GLOBS, DOCUMENT_SELECTOR, INSTALL_URL, PYPROJECT, SKIPPED_GLOB, SOURCE_GLOB } from './constants';
import { describe, detect, eventNeeds, nothingMessage } from './detect';
import { DIAGNOSTICS_FILE_ENV, dump, STATUS_FILE_ENV, statusLine } from './diagnosticsDump';
import { type Found, resolveServerCommand } from './serverCommand';
import { RESTART_SETTINGS, toInitializationOptions } from './settings';
import {
  contractArguments, contractEndpoints, contractFileArguments, DISCUSS, DISCUSS_SPEC, discussArguments, GENERATE_CONTRACT,
  GENERATE_CONTRACT_FROM_SPEC, GENERATE_SLICE, GENERATE_SLICE_FROM_CONTRACT, GENERATE_SPEC, GENERATE_SPEC_FROM_REQUEST,
  LAST_SCORE_NOTIFICATION, parseLastScore, REQUEST_PLACEHOLDER, REQUEST_PROMPT, RESUME_INTERRUPTED_RUN, RESUME_RUN,
  scoreView, sliceArguments, specArguments, UPDATE_AFFECTED, UPDATE_AFFECTED_CODE, validateRequest,
} from './stages';
import { STATUS_NOTIFICATION, StatusTracker } from './status';
import { makeWhich } from './which';

const PROBE_TIMEOUT_MS = 20_000;
const PYTHON_EXTENSION_TIMEOUT_MS = 10_000;

let output: vscode.LogOutputChannel;
let tracker: StatusTracker;
/** The last harness score ("specward 8.8 PASS"), hidden until the server sends one. */
let scoreItem: vscode.StatusBarItem;
let client: LanguageClient | undefined;
let running: Found | undefined;
/** start/stop/restart run one after another, never interleaved. */
let queue: Promise<void> = Promise.resolve();
/** The server is to run: something for specward was found, or the user started it by hand. */
let wanted = false;
/** While nothing was found: a file watcher on every workspace folder. */
let watchers: vscode.Disposable[] = [];
/** A look at the workspace is queued (file events arriving meanwhile need no other). */
let recheckQueued = false;
/** The last "nothing to check" message logged (a re-check that finds the same says nothing). */
let lastNothing = '';

function log(line: string): void {
  output.info(line);
}

function serialized(fn: () => Promise<void>): Promise<void> {
  queue = queue.then(fn, fn).catch((err) => log(`unexpected error: ${errorText(err)}`));
  return queue;
}

function errorText(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('specward', { log: true });
  const item = vscode.window.createStatusBarItem('specward.status', vscode.StatusBarAlignment.Left, 0);
  item.name = 'specward';
  item.command = 'specward.showOutput';
  const statusFile = process.env[STATUS_FILE_ENV];
  tracker = new StatusTracker((state, v) => {
    item.text = v.text;
    item.tooltip = v.tooltip;
    item.show();
    if (statusFile) {
      try {
        const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
        fs.appendFileSync(statusFile, statusLine({ folders, state, text: v.text, tooltip: v.tooltip }));
      } catch (err) {
        log(`cannot write ${STATUS_FILE_ENV} (${statusFile}): ${errorText(err)}`);
      }
    }
  });
  scoreItem = vscode.window.createStatusBarItem('specward.lastScore', vscode.StatusBarAlignment.Left, -1);
  scoreItem.name = 'specward score';
  scoreItem.command = 'specward.showOutput';
  context.subscriptions.push(output, item, scoreItem);

  // a working folder of our own: `python -m` puts the working folder first on sys.path,
  // and the workspace's (the client's default) could shadow the installed specward
  const serverCwd = context.globalStorageUri.fsPath;
  fs.mkdirSync(serverCwd, { recursive: true });

  context.subscriptions.push(
    vscode.commands.registerCommand('specward.restartServer', () => serialized(async () => {
      if (wanted) {
        log('restart requested');
      } else {
        // by hand: the user wants the server here, whatever detect() said
        log('start requested: starting the server although the workspace has nothing specward looks for');
        wanted = true;
        unwatch();
      }
      await stop();
      await start(serverCwd);
    })),
    vscode.commands.registerCommand('specward.showOutput', () => output.show(true)),
    vscode.commands.registerCommand(GENERATE_SPEC_FROM_REQUEST, generateSpecFromRequest),
    vscode.commands.registerCommand(GENERATE_CONTRACT_FROM_SPEC, generateContractFromSpec),
    vscode.commands.registerCommand(DISCUSS_SPEC, discussSpec),
    vscode.commands.registerCommand(GENERATE_SLICE_FROM_CONTRACT, generateSliceFromContract),
    vscode.commands.registerCommand(UPDATE_AFFECTED_CODE, updateAffectedCode),
    vscode.commands.registerCommand(RESUME_INTERRUPTED_RUN, () => runStage(RESUME_RUN, [{}])),
    vscode.workspace.onDidChangeWorkspaceFolders(() => {
      if (!wanted) {
        // new folders may have something; the watchers follow the folders
        unwatch();
        recheck(serverCwd);
      }
    }),
    { dispose: unwatch },
    vscode.workspace.onDidChangeConfiguration((e) => {
      const changed = RESTART_SETTINGS.filter((s) => e.affectsConfiguration(s));
      if (changed.length && wanted) {
        void serialized(async () => {
          log(`${changed.join(', ')} changed: restarting the server`);
          await stop();
          await start(serverCwd);
        });
      }
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      // workspace values of serverPath/pythonPath and the Python extension's interpreter
      // count from now on: look again if they were set aside or nothing was found
      if (wanted && (running === undefined || running.notes.length)) {
        void serialized(async () => {
          log('workspace trusted: looking for the server again');
          await stop();
          await start(serverCwd);
        });
      }
    }),
  );

  const dumpFile = process.env[DIAGNOSTICS_FILE_ENV];
  if (dumpFile) {
    const write = () => {
      try {
        const tmp = `${dumpFile}.${process.pid}.tmp`;
        fs.writeFileSync(tmp, JSON.stringify(dump(vscode.languages.getDiagnostics()), null, 2));
        fs.renameSync(tmp, dumpFile);
      } catch (err) {
        log(`cannot write ${DIAGNOSTICS_FILE_ENV} (${dumpFile}): ${errorText(err)}`);
      }
    };
    write();
    context.subscriptions.push(vscode.languages.onDidChangeDiagnostics(write));
    log(`writing diagnostics to ${dumpFile} (${DIAGNOSTICS_FILE_ENV})`);
  }

  await serialized(() => startIfSomething(serverCwd));
}

export function deactivate(): Promise<void> {
  unwatch();
  return serialized(stop);
}

/** Starts the server when a workspace folder has something for specward; else says so and watches. */
async function startIfSomething(serverCwd: string): Promise<void> {
  if (wanted) {
    return; // started already (found before, or by hand)
  }
  const look = await lookForSomething();
  if (look.found) {
    wanted = true;
    unwatch();
    log(`${look.what}: starting the server`);
    await start(serverCwd);
    return;
  }
  if (look.message !== lastNothing) {
    lastNothing = look.message;
    log(`nothing to check, so no server: ${look.message.replace(/\n\n/g, ' ')}`);
  }
  tracker.nothing(look.message);
  watch(serverCwd);
}

/** `what`: why the server starts, for the log; `message`: the "nothing to check" tooltip. */
type Look = { found: true; what: string } | { found: false; message: string };

/** detect() on each workspace folder: the files VS Code finds for DETECT_GLOBS, its pyproject.toml. */
async function lookForSomething(): Promise<Look> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  const seen: Array<{ name: string; notes: string[] }> = [];
  try {
    for (const folder of folders) {
      const paths: string[] = [];
      for (const glob of DETECT_GLOBS) {
        if (glob === PYPROJECT) {
          continue; // read below: its text decides
        }
        // the exclude replaces files.exclude: the server skips these folders, and only these
        const uris = await vscode.workspace.findFiles(new vscode.RelativePattern(folder, glob), SKIPPED_GLOB, 1);
        paths.push(...uris.map((u) => relativePath(folder, u)));
        if (paths.length) {
          break; // any hit counts (the exclude matches detect()'s)
        }
      }
      let detection = detect(paths, undefined);
      if (!detection.found) {
        detection = detect(paths, await readPyproject(folder));
      }
      if (detection.found) {
        return { found: true, what: `found ${describe(detection)} in ${folder.name}` };
      }
      // no configuration or contract: a source file is enough (the import checks need neither)
      const sources = await vscode.workspace.findFiles(new vscode.RelativePattern(folder, SOURCE_GLOB), SKIPPED_GLOB, 1);
      if (sources.length) {
        return { found: true, what: `found source files (${relativePath(folder, sources[0])}) in ${folder.name}` };
      }
      seen.push({ name: folder.name, notes: detection.notes });
    }
  } catch (err) {
    // not knowing must not leave a project with contracts unchecked
    return { found: true, what: `searching the workspace failed (${errorText(err)}), so it may have something` };
  }
  return { found: false, message: nothingMessage(seen) };
}

function relativePath(folder: vscode.WorkspaceFolder, uri: vscode.Uri): string {
  return path.posix.relative(folder.uri.path, uri.path);
}

/** The folder's own pyproject.toml, undefined when there is none (or it cannot be read). */
async function readPyproject(folder: vscode.WorkspaceFolder): Promise<string | undefined> {
  const uri = vscode.Uri.joinPath(folder.uri, PYPROJECT);
  try {
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  } catch (err) {
    if (!(err instanceof vscode.FileSystemError && err.code === 'FileNotFound')) {
      log(`cannot read ${uri.fsPath}: ${errorText(err)}`);
    }
    return undefined;
  }
}

/** Watches every workspace folder for a file (or a folder) that could change detect()'s answer. */
function watch(serverCwd: string): void {
  if (watchers.length) {
    return;
  }
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    // one watcher on everything: the globs alone would miss a contract inside a folder
    // that appears at once (VS Code then reports the folder, not its files)
    const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, '**/*'), false, false, true);
    const onEvent = (kind: 'created' | 'changed') => (uri: vscode.Uri) => {
      if (wanted || recheckQueued) {
        return;
      }
      const rel = relativePath(folder, uri);
      const needs = eventNeeds(rel, kind);
      if (needs === 'look') {
        log(`${rel} ${kind} in ${folder.name}: looking again`);
        recheck(serverCwd);
      } else if (needs === 'ifFolder') {
        fs.promises.stat(uri.fsPath).then((st) => {
          if (st.isDirectory()) {
            log(`folder ${rel} created in ${folder.name}: looking again`);
            recheck(serverCwd);
          }
        }, () => undefined /* gone already */);
      }
    };
    watchers.push(w, w.onDidCreate(onEvent('created')), w.onDidChange(onEvent('changed')));
  }
}

function unwatch(): void {
  const ws = watchers;
  watchers = [];
  ws.forEach((w) => w.dispose());
}

/** Looks at the workspace again (once, however many events arrive meanwhile). */
function recheck(serverCwd: string): void {
  if (wanted || recheckQueued) {
    return;
  }
  recheckQueued = true;
  void serialized(async () => {
    recheckQueued = false;
    await startIfSomething(serverCwd);
  });
}

async function start(serverCwd: string): Promise<void> {
  tracker.starting();
  const cfg = vscode.workspace.getConfiguration('specward');
  const resolution = await resolveServerCommand({
    serverPath: cfg.inspect<string>('serverPath'),
    pythonPath: cfg.inspect<string>('pythonPath'),
    trusted: vscode.workspace.isTrusted,
    which: makeWhich(),
    pythonExtensionInterpreter: pythonExtensionInterpreter,
    hasSpecward: (python) => probeSpecward(python, serverCwd),
  });
  resolution.notes.forEach(log);
  if (!resolution.found) {
    running = undefined;
    log(resolution.message);
    tracker.notFound(resolution.message);
    void vscode.window.showErrorMessage(resolution.message, 'Install instructions', 'Show Output').then((choice) => {
      if (choice === 'Install instructions') {
        void vscode.env.openExternal(vscode.Uri.parse(INSTALL_URL));
      } else if (choice === 'Show Output') {
        output.show(true);
      }
    });
    return;
  }

  const { options, problems } = toInitializationOptions({
    contracts: cfg.get('contracts'),
    severity: cfg.get('severity'),
    registryCheck: cfg.inspect('registryCheck')?.globalValue,
    trusted: vscode.workspace.isTrusted,
  });
  problems.forEach(log);
  log(`starting ${resolution.description}`);
  log(`initializationOptions: ${JSON.stringify(options)}`);

  const executable: Executable = {
    command: resolution.command,
    args: resolution.args,
    // PYTHONSAFEPATH: never import a `specward` package from the working folder
    options: { cwd: serverCwd, env: { ...process.env, PYTHONSAFEPATH: '1' } },
  };

  // the client's default policy (restart after a crash, up to 4 times in 3 minutes), with
  // each crash and the decision written to the output channel, next to the server's
  // standard error; instead of the client's pop-up per crash, one message with "Show
  // Output" when it gives up. A server that dies before answering `initialize` is not
  // restarted at all.
  let defaultHandler: ErrorHandler | undefined;
  let reachedRunning = false; // this attempt answered `initialize`
  const errorHandler: ErrorHandler = {
    error: async (error: Error, message: Message | undefined, count: number | undefined): Promise<ErrorHandlerResult> => {
      const result = await defaultHandler!.error(error, message, count);
      log(`connection error: ${error.message}` +
        (result.action === ErrorAction.Shutdown ? ' (shutting the connection down)' : ''));
      return { ...result, handled: true };
    },
    closed: async (): Promise<CloseHandlerResult> => {
      if (!reachedRunning) {
        // it died before answering `initialize`: a broken install, not a crash, and
        // starting it again would fail the same way (start() has said so already)
        log('the server exited while starting (its standard error is in this channel): not restarting it');
        tracker.stopped('The server exited while starting; see the output.');
        return { action: CloseAction.DoNotRestart, handled: true };
      }
      const result = await defaultHandler!.closed();
      if (result.action === CloseAction.Restart) {
        log('the server stopped unexpectedly (its standard error is in this channel): restarting it');
      } else {
        const why = result.message ?? 'the server stopped unexpectedly and will not be restarted.';
        log(`${why} (its standard error is in this channel)`);
        tracker.stopped(why);
        showProblem(`specward: ${why}`);
      }
      return { ...result, handled: true };
    },
  };

  const clientOptions: LanguageClientOptions = {
    documentSelector: DOCUMENT_SELECTOR,
    outputChannel: output,
    initializationOptions: options,
    errorHandler,
    initializationFailedHandler: (error) => {
      log(`the server failed to initialize: ${errorText(error)}`);
      return false; // do not retry; start() rejects and says so once
    },
    middleware: {
      handleDiagnostics: (uri, diagnostics, next) => {
        tracker.diagnostics();
        next(uri, diagnostics);
      },
      provideDiagnostics: async (document, previousResultId, token, next) => {
        const report = await next(document, previousResultId, token);
        if (report) {
          tracker.diagnostics();
        }
        return report;
      },
    },
  };

  const c = new LanguageClient('specward', 'specward', executable, clientOptions);
  defaultHandler = c.createDefaultErrorHandler(4);
  c.onDidChangeState((e) => {
    if (e.newState === ClientState.Starting) {
      reachedRunning = false;
      tracker.starting();
    } else if (e.newState === ClientState.Running) {
      reachedRunning = true;
      tracker.running();
    } else if (e.newState === ClientState.Stopped && c === client && tracker.current !== 'stopped') {
      tracker.stopped('See the output for the reason.');
    }
  });
  c.onNotification(STATUS_NOTIFICATION, (params: unknown) => {
    if (!tracker.notification(params)) {
      log(`ignored ${STATUS_NOTIFICATION} with unexpected params: ${JSON.stringify(params)}`);
    }
  });
  c.onNotification(LAST_SCORE_NOTIFICATION, (params: unknown) => {
    const score = parseLastScore(params);
    if (score === undefined) {
      log(`ignored ${LAST_SCORE_NOTIFICATION} with unexpected params: ${JSON.stringify(params)}`);
      return;
    }
    showScore(scoreView(score));
  });
  client = c;
  running = resolution;
  try {
    await c.start();
    log('server started');
  } catch (err) {
    log(`the server did not start: ${errorText(err)}`);
    tracker.stopped('The server did not start; see the output.');
    showProblem(`specward: the language server did not start (${resolution.description}). ` +
      'Its output says why.');
  }
}

/** One error message with the two ways out: the output, and how to install the server. */
function showProblem(message: string): void {
  void vscode.window.showErrorMessage(message, 'Show Output', 'Install instructions').then((choice) => {
    if (choice === 'Show Output') {
      output.show(true);
    } else if (choice === 'Install instructions') {
      void vscode.env.openExternal(vscode.Uri.parse(INSTALL_URL));
    }
  });
}

function showScore(v: { text: string; tooltip: string } | undefined): void {
  if (v === undefined) {
    scoreItem.hide();
    return;
  }
  scoreItem.text = v.text;
  scoreItem.tooltip = v.tooltip;
  scoreItem.show();
}

/** The running client, or undefined after saying that the server is not running. */
function runningClient(): LanguageClient | undefined {
  if (client?.isRunning()) {
    return client;
  }
  void vscode.window.showWarningMessage('specward: the language server is not running ("specward: Restart Server" starts it).');
  return undefined;
}

/** "specward: Generate spec from request…": an input box, then the server's stage. */
async function generateSpecFromRequest(): Promise<void> {
  const text = await vscode.window.showInputBox({
    title: 'specward: Generate spec from request', prompt: REQUEST_PROMPT, placeHolder: REQUEST_PLACEHOLDER,
    ignoreFocusOut: true, validateInput: validateRequest,
  });
  if (text === undefined || validateRequest(text) !== undefined) {
    return;
  }
  await runStage(GENERATE_SPEC, specArguments(text));
}

/** "specward: Generate contract from this spec": on the active specs/<slug>.md. */
async function generateContractFromSpec(uri?: vscode.Uri): Promise<void> {
  const target = uri instanceof vscode.Uri ? uri : vscode.window.activeTextEditor?.document.uri;
  const folder = target ? vscode.workspace.getWorkspaceFolder(target) : undefined;
  const rel = target && folder ? relativePath(folder, target) : undefined;
  const got = contractArguments(rel);
  if ('message' in got) {
    void vscode.window.showWarningMessage(got.message);
    return;
  }
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === target!.toString());
  if (doc?.isDirty) {
    await doc.save(); // the server reads the spec as the editor has it, but the file is what the run names
  }
  await runStage(GENERATE_CONTRACT, got.args);
}

/** The file a palette command is about: the one it was invoked on, else the active editor's;
 * its path relative to its workspace folder. */
function activeFile(uri?: vscode.Uri): { target?: vscode.Uri; rel?: string } {
  const target = uri instanceof vscode.Uri ? uri : vscode.window.activeTextEditor?.document.uri;
  const folder = target ? vscode.workspace.getWorkspaceFolder(target) : undefined;
  return { target, rel: target && folder ? relativePath(folder, target) : undefined };
}

/** "specward: Discuss the open questions of this spec": the server asks each question as a
 * message with one button per option (window/showMessageRequest). */
async function discussSpec(uri?: vscode.Uri): Promise<void> {
  const got = discussArguments(activeFile(uri).rel);
  if ('message' in got) {
    void vscode.window.showWarningMessage(got.message);
    return;
  }
  await runStage(DISCUSS, got.args);
}

/** "specward: Generate slice from this contract…": a quick pick of its endpoints (none: all). */
async function generateSliceFromContract(uri?: vscode.Uri): Promise<void> {
  const { target, rel } = activeFile(uri);
  const got = contractFileArguments(rel);
  if ('message' in got) {
    void vscode.window.showWarningMessage(got.message);
    return;
  }
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === target!.toString());
  const all = contractEndpoints(doc ? doc.getText() : '');
  let picked: string[] = [];
  if (all.length > 1) {
    const items = await vscode.window.showQuickPick(all, {
      title: `specward: Generate slice from ${rel}`, canPickMany: true, ignoreFocusOut: true,
      placeHolder: 'The endpoints of the slice (none picked: the whole contract)',
    });
    if (items === undefined) {
      return;
    }
    picked = items;
  }
  await runStage(GENERATE_SLICE, sliceArguments(got.contract, picked, all));
}

/** "specward: Update the code this contract change affects": the editor's text against HEAD. */
async function updateAffectedCode(uri?: vscode.Uri): Promise<void> {
  const got = contractFileArguments(activeFile(uri).rel);
  if ('message' in got) {
    void vscode.window.showWarningMessage(got.message);
    return;
  }
  await runStage(UPDATE_AFFECTED, [{ contract: got.contract }]);
}

/** `workspace/executeCommand`; the server reports progress, questions and failures itself. */
async function runStage(command: string, args: unknown[]): Promise<void> {
  const c = runningClient();
  if (c === undefined) {
    return;
  }
  try {
    const result = await c.sendRequest('workspace/executeCommand', { command, arguments: args });
    log(`${command}: ${JSON.stringify(result)}`);
  } catch (err) {
    log(`${command} failed: ${errorText(err)}`);
    void vscode.window.showErrorMessage(`specward: ${command} failed (${err instanceof Error ? err.message : String(err)}).`);
  }
}

async function stop(): Promise<void> {
  const c = client;
  client = undefined;
  running = undefined;
  scoreItem?.hide();
  if (c === undefined) {
    return;
  }
  try {
    if (c.isRunning()) {
      await c.stop(5000);
    }
  } catch (err) {
    log(`stopping the server: ${errorText(err)}`);
  }
  try {
    await c.dispose();
  } catch {
    // already stopped
  }
}

/** Whether `python -c "import specward.server"` succeeds (outside the workspace). */
function probeSpecward(python: string, cwd: string): Promise<boolean> {
  return new Promise((resolve) => {
    cp.execFile(python, ['-c', 'import specward.server'],
      { cwd, timeout: PROBE_TIMEOUT_MS, env: { ...process.env, PYTHONSAFEPATH: '1' } },
      (err) => resolve(!err));
  });
}

/** The interpreter selected in the Python extension (ms-python.python), when installed. */
async function pythonExtensionInterpreter(): Promise<string | undefined> {
  const ext = vscode.extensions.getExtension('ms-python.python');
  if (ext === undefined) {
    return undefined;
  }
  const ask = async (): Promise<string | undefined> => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const api: any = ext.isActive ? ext.exports : await ext.activate();
    const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
    const envs = api?.environments;
    if (envs?.getActiveEnvironmentPath) {
      const envPath = envs.getActiveEnvironmentPath(resource);
      const env = envs.resolveEnvironment ? await envs.resolveEnvironment(envPath) : undefined;
      const exe: unknown = env?.executable?.uri?.fsPath ?? envPath?.path;
      return typeof exe === 'string' ? exe : undefined;
    }
    const cmd: unknown = api?.settings?.getExecutionDetails?.(resource)?.execCommand?.[0];
    return typeof cmd === 'string' ? cmd : undefined;
  };
  try {
    return await Promise.race([
      ask(),
      new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), PYTHON_EXTENSION_TIMEOUT_MS)),
    ]);
  } catch (err) {
    log(`could not ask the Python extension for its interpreter: ${errorText(err)}`);
    return undefined;
  }
}
