// The VS Code side of specward: find the server, start it over stdio, show its state.
//
// What can be decided without VS Code lives in pure modules with unit tests:
// serverCommand.ts (which program), settings.ts (initializationOptions), status.ts (the
// status-bar item), diagnosticsDump.ts (the test oracle), which.ts (PATH lookup),
// constants.ts (the install URL, the documents the server sees).

import * as cp from 'node:child_process';
import * as fs from 'node:fs';
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

import { DOCUMENT_SELECTOR, INSTALL_URL } from './constants';
import { DIAGNOSTICS_FILE_ENV, dump } from './diagnosticsDump';
import { type Found, resolveServerCommand } from './serverCommand';
import { RESTART_SETTINGS, toInitializationOptions } from './settings';
import { STATUS_NOTIFICATION, StatusTracker } from './status';
import { makeWhich } from './which';

const PROBE_TIMEOUT_MS = 20_000;
const PYTHON_EXTENSION_TIMEOUT_MS = 10_000;

let output: vscode.LogOutputChannel;
let tracker: StatusTracker;
let client: LanguageClient | undefined;
let running: Found | undefined;
/** start/stop/restart run one after another, never interleaved. */
let queue: Promise<void> = Promise.resolve();

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
  tracker = new StatusTracker((_state, v) => {
    item.text = v.text;
    item.tooltip = v.tooltip;
    item.show();
  });
  context.subscriptions.push(output, item);

  // a working folder of our own: `python -m` puts the working folder first on sys.path,
  // and the workspace's (the client's default) could shadow the installed specward
  const serverCwd = context.globalStorageUri.fsPath;
  fs.mkdirSync(serverCwd, { recursive: true });

  context.subscriptions.push(
    vscode.commands.registerCommand('specward.restartServer', () => serialized(async () => {
      log('restart requested');
      await stop();
      await start(serverCwd);
    })),
    vscode.commands.registerCommand('specward.showOutput', () => output.show(true)),
    vscode.workspace.onDidChangeConfiguration((e) => {
      const changed = RESTART_SETTINGS.filter((s) => e.affectsConfiguration(s));
      if (changed.length) {
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
      if (running === undefined || running.notes.length) {
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

  await serialized(() => start(serverCwd));
}

export function deactivate(): Promise<void> {
  return serialized(stop);
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

  const { options, problems } = toInitializationOptions({ contracts: cfg.get('contracts'), severity: cfg.get('severity') });
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

async function stop(): Promise<void> {
  const c = client;
  client = undefined;
  running = undefined;
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
