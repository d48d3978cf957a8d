// The test oracle: every diagnostic VS Code holds, as JSON. Pure: no `vscode` import (the
// shapes below are the parts of `vscode.Diagnostic` and `vscode.Uri` that are read).
//
// When SPECWARD_TEST_DIAGNOSTICS_FILE is set, extension.ts writes `dump(...)` to that file
// at activation and every time diagnostics change (atomically: a temporary file renamed
// over it), so an end-to-end test can wait on the file instead of the UI.
//
// When SPECWARD_TEST_STATUS_FILE is set, extension.ts appends `statusLine(...)` to that file
// every time the status item changes: one JSON object per line, so a test can check the
// order of the states (say, that no server was starting before a contract appeared).

export const DIAGNOSTICS_FILE_ENV = 'SPECWARD_TEST_DIAGNOSTICS_FILE';
export const STATUS_FILE_ENV = 'SPECWARD_TEST_STATUS_FILE';

export interface StatusRecord {
  /** The workspace folders of the window (file-system paths), to tell windows apart. */
  folders: string[];
  state: string;
  text: string;
  tooltip: string;
}

/** One line of the status file (ends with a newline). */
export function statusLine(record: StatusRecord): string {
  const { folders, state, text, tooltip } = record;
  return JSON.stringify({ folders, state, text, tooltip }) + '\n';
}

interface PositionLike { line: number; character: number }
interface RangeLike { start: PositionLike; end: PositionLike }
type CodeLike = string | number | { value: string | number } | undefined;
export interface DiagnosticLike {
  range: RangeLike;
  message: string;
  severity: number;
  code?: CodeLike;
  source?: string;
}
export interface UriLike { toString(): string }

export interface DumpedDiagnostic {
  uri: string;
  range: { start: PositionLike; end: PositionLike };
  code: string | number | null;
  message: string;
  severity: 'error' | 'warning' | 'information' | 'hint';
  source: string | null;
}

// vscode.DiagnosticSeverity: Error = 0, Warning = 1, Information = 2, Hint = 3
const SEVERITY_NAMES = ['error', 'warning', 'information', 'hint'] as const;

function codeOf(code: CodeLike): string | number | null {
  if (code === undefined || code === null) {
    return null;
  }
  return typeof code === 'object' ? code.value : code;
}

/** Flattens `vscode.languages.getDiagnostics()`, sorted by uri then position. */
export function dump(all: ReadonlyArray<readonly [UriLike, ReadonlyArray<DiagnosticLike>]>): DumpedDiagnostic[] {
  const out: DumpedDiagnostic[] = [];
  for (const [uri, diags] of all) {
    for (const d of diags) {
      out.push({
        uri: uri.toString(),
        range: {
          start: { line: d.range.start.line, character: d.range.start.character },
          end: { line: d.range.end.line, character: d.range.end.character },
        },
        code: codeOf(d.code),
        message: d.message,
        severity: SEVERITY_NAMES[d.severity] ?? 'error',
        source: d.source ?? null,
      });
    }
  }
  out.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0)
    || a.range.start.line - b.range.start.line
    || a.range.start.character - b.range.start.character);
  return out;
}
