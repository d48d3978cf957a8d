// The editor settings the server needs, as `initializationOptions`.
//
// Pure: no `vscode` import. Only `specward.contracts`, `specward.severity` and
// `specward.registryCheck` are sent: never a path to an executable, never anything secret.

export const SEVERITIES = ['error', 'warning', 'information', 'hint', 'off'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** What the server receives in `initialize`'s `initializationOptions`. */
export interface InitializationOptions {
  /** Globs of contract files; replaces discovery when present. */
  contracts?: string[];
  /** Diagnostic code → severity. */
  severity?: Record<string, Severity>;
  /** Ask the npm registry / PyPI about packages neither declared nor installed. */
  registryCheck?: boolean;
}

export interface RawSettings {
  contracts?: unknown;
  severity?: unknown;
  /** The user-level value only (a workspace cannot turn the network on). */
  registryCheck?: unknown;
  /** Whether the workspace is trusted: the registry check is never on in an untrusted one. */
  trusted?: boolean;
}

export interface Converted {
  options: InitializationOptions;
  /** Entries that were dropped, one sentence each, for the output channel. */
  problems: string[];
}

const CODE = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;

export function toInitializationOptions(raw: RawSettings): Converted {
  const options: InitializationOptions = {};
  const problems: string[] = [];

  if (raw.contracts !== undefined && raw.contracts !== null) {
    if (!Array.isArray(raw.contracts)) {
      problems.push('specward.contracts must be an array of globs; ignored.');
    } else {
      const globs: string[] = [];
      for (const g of raw.contracts) {
        if (typeof g === 'string' && g.trim() !== '') {
          if (!globs.includes(g.trim())) {
            globs.push(g.trim());
          }
        } else {
          problems.push(`specward.contracts: ${JSON.stringify(g)} is not a glob; ignored.`);
        }
      }
      if (globs.length) {
        options.contracts = globs;
      }
    }
  }

  if (raw.severity !== undefined && raw.severity !== null) {
    if (typeof raw.severity !== 'object' || Array.isArray(raw.severity)) {
      problems.push('specward.severity must be an object mapping a diagnostic code to a severity; ignored.');
    } else {
      const severity: Record<string, Severity> = {};
      for (const [code, value] of Object.entries(raw.severity as Record<string, unknown>)) {
        if (!CODE.test(code)) {
          problems.push(`specward.severity: "${code}" is not a diagnostic code; ignored.`);
        } else if (typeof value !== 'string' || !(SEVERITIES as readonly string[]).includes(value)) {
          problems.push(`specward.severity.${code}: ${JSON.stringify(value)} is not one of ${SEVERITIES.join(', ')}; ignored.`);
        } else {
          severity[code] = value as Severity;
        }
      }
      if (Object.keys(severity).length) {
        options.severity = severity;
      }
    }
  }

  if (raw.registryCheck !== undefined && raw.registryCheck !== null) {
    if (typeof raw.registryCheck !== 'boolean') {
      problems.push('specward.registryCheck must be true or false; ignored.');
    } else if (raw.registryCheck && raw.trusted === false) {
      problems.push('specward.registryCheck is off in an untrusted workspace.');
    } else if (raw.registryCheck) {
      options.registryCheck = true;
    }
  }

  return { options, problems };
}

/** Settings whose change needs a new server (they are only read at `initialize`). */
export const RESTART_SETTINGS = [
  'specward.serverPath',
  'specward.pythonPath',
  'specward.contracts',
  'specward.severity',
  'specward.registryCheck',
];
