// The LLM stages from the command palette, and the last harness score. Pure: no `vscode` import.
//
// The palette commands are the extension's own (`specward.generateSpecFromRequest`,
// `specward.generateContractFromSpec`): they ask what the server needs, then send
// `workspace/executeCommand` for the server's commands (`specward.generateSpec`,
// `specward.generateContract`), which vscode-languageclient registers by themselves (the
// code actions on a TODO line and on a spec run those directly). The server sends the result
// as one `workspace/applyEdit` that needs confirmation: VS Code shows it in the refactor preview.
//
// `specward/lastScore` (`{ runId, score, verdict }` or null) drives a second status-bar item,
// "specward 8.8 PASS", hidden when null.

export const GENERATE_SPEC = 'specward.generateSpec';
export const GENERATE_CONTRACT = 'specward.generateContract';
export const GENERATE_SPEC_FROM_REQUEST = 'specward.generateSpecFromRequest';
export const GENERATE_CONTRACT_FROM_SPEC = 'specward.generateContractFromSpec';
export const LAST_SCORE_NOTIFICATION = 'specward/lastScore';

/** What the input box says. */
export const REQUEST_PROMPT = 'The feature request: what should the spec describe?';
export const REQUEST_PLACEHOLDER = 'Let users write and list their notes';
export const MAX_REQUEST_CHARS = 4000;

/** The input box's check: a message when the request cannot be sent, undefined when it can. */
export function validateRequest(text: string): string | undefined {
  const t = text.trim();
  if (!t) {
    return 'Write the feature request in a sentence.';
  }
  if (t.length > MAX_REQUEST_CHARS) {
    return `At most ${MAX_REQUEST_CHARS} characters.`;
  }
  return undefined;
}

/** The arguments of `workspace/executeCommand specward.generateSpec` for what was typed. */
export function specArguments(text: string): string[] {
  return [text.trim().replace(/\s+/g, ' ')];
}

/**
 * The arguments of `specward.generateContract` for a file at `rel` (relative to its workspace
 * folder, `/`-separated), or a message saying why it is not a spec: specs are
 * `specs/<slug>.md` at the folder's root, the slug in kebab-case.
 */
export function contractArguments(rel: string | undefined): { args: [{ spec: string }] } | { message: string } {
  if (rel === undefined) {
    return { message: 'specward: open a spec (specs/<slug>.md in a workspace folder) first.' };
  }
  const m = /^specs\/([^/]+)\.md$/i.exec(rel);
  if (!m || !/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(m[1]) || m[1].length > 80) {
    return { message: `specward: ${rel} is not a spec (specs/<slug>.md, the slug in kebab-case).` };
  }
  return { args: [{ spec: rel }] };
}

export interface LastScore {
  runId: string;
  score: number;
  verdict: 'PASS' | 'FAIL' | null;
}

/** Validates the params of `specward/lastScore`: null (nothing to show) or the score. */
export function parseLastScore(params: unknown): LastScore | null | undefined {
  if (params === null || params === undefined) {
    return null;
  }
  if (typeof params !== 'object') {
    return undefined;
  }
  const { runId, score, verdict } = params as Record<string, unknown>;
  if (typeof runId !== 'string' || typeof score !== 'number' || !Number.isFinite(score)) {
    return undefined;
  }
  if (verdict !== 'PASS' && verdict !== 'FAIL' && verdict !== null && verdict !== undefined) {
    return undefined;
  }
  return { runId, score, verdict: verdict ?? null };
}

/** The score item: "specward 8.8 PASS" and its tooltip; undefined hides it. */
export function scoreView(score: LastScore | null): { text: string; tooltip: string } | undefined {
  if (score === null) {
    return undefined;
  }
  const verdict = score.verdict ? ` ${score.verdict}` : '';
  return {
    text: `specward ${score.score.toFixed(1)}${verdict}`,
    tooltip: `specward: harness score of the last scored run (${score.runId}): ${score.score.toFixed(2)} / 10` +
      (score.verdict ? `, ${score.verdict}` : '') + '\n\nspecward trend shows the runs; specward score RUN_ID explains one.',
  };
}
