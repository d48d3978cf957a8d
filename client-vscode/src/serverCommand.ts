// Which program runs the specward language server.
//
// Pure: no `vscode` import. Everything that touches the machine (PATH lookup, running an
// interpreter to see whether specward is installed in it, asking the Python extension) is
// passed in, so the order and the messages are unit-tested under Node's test runner.

import type { Which } from './which';

/** The part of `WorkspaceConfiguration.inspect()` that matters here. */
export interface Inspected<T> {
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
}

export interface DiscoveryInput {
  /** `inspect('serverPath')` of the `specward` section. */
  serverPath?: Inspected<string>;
  /** `inspect('pythonPath')` of the `specward` section. */
  pythonPath?: Inspected<string>;
  /** `vscode.workspace.isTrusted`. */
  trusted: boolean;
  /** Resolves a bare name on PATH or checks an absolute path; undefined when not found. */
  which: Which;
  /**
   * The interpreter selected in the Python extension, when it is installed. A function, so
   * the Python extension is only asked (and activated) when nothing before it was found.
   */
  pythonExtensionInterpreter?: () => string | undefined | Promise<string | undefined>;
  /** Whether `python -c "import specward.server"` succeeds; assumed true when absent. */
  hasSpecward?: (python: string) => boolean | Promise<boolean>;
}

export type Source = 'serverPath' | 'pythonPath' | 'path' | 'pythonExtension';

export interface Found {
  found: true;
  command: string;
  args: string[];
  source: Source;
  /** One line for the output channel: what runs and why. */
  description: string;
  /** Settings ignored or candidates skipped on the way, for the output channel. */
  notes: string[];
}

export interface NotFound {
  found: false;
  /** What to do, for the error message. */
  message: string;
  notes: string[];
}

export type Resolution = Found | NotFound;

export const SERVE_ARGS = ['serve'];
export const PYTHON_SERVE_ARGS = ['-m', 'specward.server', 'serve'];

export const INSTALL_HINT =
  'Install it with `pip install "git+https://github.com/specward/specward"` (specward is not on PyPI yet; so that `specward` is on your PATH, or into the ' +
  'interpreter selected in the Python extension), or set `specward.serverPath` to the ' +
  '`specward` executable (or `specward.pythonPath` to a Python that has specward installed) ' +
  'in your user settings.';

function nonEmpty(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
}

/**
 * The value of an executable setting that may be used. In a trusted workspace the usual
 * precedence applies (folder, workspace, user); in an untrusted one only the user/machine
 * value (`globalValue`) counts, and a workspace value that was ignored is noted.
 */
export function effectiveValue(
  name: string,
  inspected: Inspected<string> | undefined,
  trusted: boolean,
  notes: string[],
): string | undefined {
  if (!inspected) {
    return undefined;
  }
  const folder = nonEmpty(inspected.workspaceFolderValue);
  const workspace = nonEmpty(inspected.workspaceValue);
  const global = nonEmpty(inspected.globalValue);
  if (trusted) {
    return folder ?? workspace ?? global;
  }
  for (const [scope, value] of [['workspace folder', folder], ['workspace', workspace]] as const) {
    if (value !== undefined) {
      notes.push(`Ignored the ${scope} value of specward.${name} ("${value}"): this workspace is not trusted, ` +
        'so only user settings may name a program to run.');
    }
  }
  return global;
}

function describe(command: string, args: string[]): string {
  return [command, ...args].map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(' ');
}

function found(command: string, args: string[], source: Source, why: string, notes: string[]): Found {
  return { found: true, command, args, source, description: `${describe(command, args)} (${why})`, notes };
}

function notFound(message: string, notes: string[]): NotFound {
  const extra = notes.length ? ' ' + notes.join(' ') : '';
  return { found: false, message: message + extra, notes };
}

/**
 * Order: `specward.serverPath` → `specward.pythonPath` (`python -m specward.server serve`) →
 * `specward` on PATH → the Python extension's interpreter (`-m specward.server serve`).
 *
 * A setting that is set but wrong is an error naming the setting: the extension does not
 * silently run some other specward than the one the user chose.
 */
export async function resolveServerCommand(input: DiscoveryInput): Promise<Resolution> {
  const notes: string[] = [];
  const hasSpecward = input.hasSpecward ?? (() => true);

  const serverPath = effectiveValue('serverPath', input.serverPath, input.trusted, notes);
  if (serverPath !== undefined) {
    const exe = input.which(serverPath);
    if (exe === undefined) {
      return notFound(`specward.serverPath is set to "${serverPath}", but that is not an executable file ` +
        '(use an absolute path, or a name on PATH). Point it at the `specward` executable ' +
        '(`pip install "git+https://github.com/specward/specward"` installs it), or clear it to let the extension look for specward.', notes);
    }
    return found(exe, SERVE_ARGS, 'serverPath', 'specward.serverPath', notes);
  }

  const pythonPath = effectiveValue('pythonPath', input.pythonPath, input.trusted, notes);
  if (pythonPath !== undefined) {
    const py = input.which(pythonPath);
    if (py === undefined) {
      return notFound(`specward.pythonPath is set to "${pythonPath}", but that is not an executable file ` +
        '(use an absolute path, or a name on PATH). Point it at a Python interpreter that has specward ' +
        'installed, or clear it.', notes);
    }
    if (!(await hasSpecward(py))) {
      return notFound(`specward.pythonPath is set to "${py}", but specward is not installed in that ` +
        `interpreter: run \`"${py}" -m pip install "git+https://github.com/specward/specward"\`, or point the setting at another interpreter.`, notes);
    }
    return found(py, PYTHON_SERVE_ARGS, 'pythonPath', 'specward.pythonPath', notes);
  }

  const onPath = input.which('specward');
  if (onPath !== undefined) {
    return found(onPath, SERVE_ARGS, 'path', 'specward on PATH', notes);
  }

  if (input.pythonExtensionInterpreter !== undefined && !input.trusted) {
    // the selected interpreter may be a virtual environment inside the untrusted workspace
    notes.push("Did not use the Python extension's interpreter: this workspace is not trusted, " +
      'and the interpreter may belong to it.');
  } else if (input.pythonExtensionInterpreter !== undefined) {
    const interp = nonEmpty(await input.pythonExtensionInterpreter());
    if (interp !== undefined) {
      const py = input.which(interp);
      if (py === undefined) {
        notes.push(`The Python extension's interpreter (${interp}) is not an executable file.`);
      } else if (!(await hasSpecward(py))) {
        notes.push(`The interpreter selected in the Python extension (${py}) does not have specward installed: ` +
          `\`"${py}" -m pip install "git+https://github.com/specward/specward"\` would do.`);
      } else {
        return found(py, PYTHON_SERVE_ARGS, 'pythonExtension', "the Python extension's interpreter", notes);
      }
    }
  }

  return notFound('specward: the language server was not found. ' + INSTALL_HINT, notes);
}
