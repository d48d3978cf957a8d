// The status-bar item's state machine. Pure: no `vscode` import.
//
// The server tells the client where it is with the custom notification `specward/status`
// (`{ state: "indexing" | "ready", message }`). A server that never sends it (an older
// one) is taken to be ready at its first diagnostics (pushed or pulled): until the
// workspace is indexed, specward answers no diagnostics.
//
// Before any server: `looking` while extension.ts searches the workspace for something to
// check (detect.ts), then `nothing` when there is none (no server is started).

export const STATUS_NOTIFICATION = 'specward/status';

export type State = 'looking' | 'nothing' | 'starting' | 'indexing' | 'ready' | 'stopped' | 'notFound';

export interface StatusParams {
  state: 'indexing' | 'ready';
  message: string;
}

export interface View {
  text: string;
  tooltip: string;
}

/** Validates the params of `specward/status`; undefined when they are not usable. */
export function parseStatus(params: unknown): StatusParams | undefined {
  if (typeof params !== 'object' || params === null) {
    return undefined;
  }
  const { state, message } = params as Record<string, unknown>;
  if (state !== 'indexing' && state !== 'ready') {
    return undefined;
  }
  return { state, message: typeof message === 'string' ? message : '' };
}

export function view(state: State, message: string): View {
  const detail = message ? `\n\n${message}` : '';
  switch (state) {
    case 'looking':
      return { text: '$(search) specward: looking', tooltip: 'specward: looking for a contract or a specward configuration in the workspace' + detail };
    case 'nothing':
      return { text: '$(circle-slash) specward: nothing to check', tooltip: 'specward: nothing to check in this workspace' + detail };
    case 'starting':
      return { text: '$(sync~spin) specward: starting', tooltip: 'specward: starting the language server' + detail };
    case 'indexing':
      return { text: '$(sync~spin) specward: indexing', tooltip: 'specward: indexing the workspace' + detail };
    case 'ready':
      return { text: '$(check) specward', tooltip: 'specward: ready' + detail };
    case 'stopped':
      return { text: '$(error) specward: stopped', tooltip: 'specward: the language server is not running' + detail };
    case 'notFound':
      return { text: '$(warning) specward: not installed', tooltip: 'specward: the language server was not found' + detail };
  }
}

export class StatusTracker {
  private state: State = 'looking';
  private message = '';
  private heardFromServer = false;

  constructor(private readonly render: (state: State, view: View) => void) {
    this.emit();
  }

  get current(): State {
    return this.state;
  }

  /** A new server process is starting: forget what the previous one said. */
  starting(message = ''): void {
    this.heardFromServer = false;
    this.set('starting', message);
  }

  /** The server answered `initialize`: it indexes the workspace next. */
  running(): void {
    if (this.state === 'starting') {
      this.set('indexing', '');
    }
  }

  /** `specward/status` from the server; returns false when the params were unusable. */
  notification(params: unknown): boolean {
    const parsed = parseStatus(params);
    if (!parsed) {
      return false;
    }
    this.heardFromServer = true;
    this.set(parsed.state, parsed.message);
    return true;
  }

  /** Diagnostics arrived (pushed or pulled): the fallback for servers without `specward/status`. */
  diagnostics(): void {
    if (!this.heardFromServer && (this.state === 'starting' || this.state === 'indexing')) {
      this.set('ready', '');
    }
  }

  stopped(message = ''): void {
    this.set('stopped', message);
  }

  /** Nothing in the workspace for specward; `message` says what was looked for. */
  nothing(message: string): void {
    this.set('nothing', message);
  }

  notFound(message: string): void {
    this.set('notFound', message);
  }

  private set(state: State, message: string): void {
    if (state === this.state && message === this.message) {
      return;
    }
    this.state = state;
    this.message = message;
    this.emit();
  }

  private emit(): void {
    this.render(this.state, view(this.state, this.message));
  }
}
