// The LLM stages from the command palette, and the last harness score. Pure: no `vscode` import.
//
// The palette commands are the extension's own (`specward.generateSpecFromRequest`,
// `specward.generateContractFromSpec`): they ask what the server needs, then send
// `workspace/executeCommand` for the server's commands (`specward.generateSpec`,
// `specward.generateContract`), which vscode-languageclient registers by themselves (the
// code actions on a TODO line and on a spec run those directly). The server sends the result
// as one `workspace/applyEdit` that needs confirmation: VS Code shows it in the refactor preview.
//
// "Discuss the open questions of this spec" (specward.discuss on the active spec: the server asks each
// question as a `window/showMessageRequest`, a message with one button per option), "Generate slice
// from this contract…" (a quick pick of its endpoints, none picked: the whole contract), "Update the
// code this contract change affects" (specward.updateAffected: the editor's text against git's HEAD)
// and "Resume an interrupted run…" (specward.resumeRun: the server lists the runs) do the same.
// `specward.implementEndpoint` is only a code action, on a phantom-api diagnostic.
//
// `specward/lastScore` (`{ runId, score, verdict }` or null) drives a second status-bar item,
// "specward 8.8 PASS", hidden when null.

export const GENERATE_SPEC = 'specward.generateSpec';
export const GENERATE_CONTRACT = 'specward.generateContract';
export const GENERATE_SPEC_FROM_REQUEST = 'specward.generateSpecFromRequest';
export const GENERATE_CONTRACT_FROM_SPEC = 'specward.generateContractFromSpec';
export const LAST_SCORE_NOTIFICATION = 'specward/lastScore';
// the server's commands of server/lsp/handlers/stage_more.py and slice_command.py
export const DISCUSS = 'specward.discuss';
export const UPDATE_AFFECTED = 'specward.updateAffected';
export const RESUME_RUN = 'specward.resumeRun';
export const GENERATE_SLICE = 'specward.generateSlice';
/** Only a code action (on a phantom-api diagnostic): the server's command, no palette entry. */
export const IMPLEMENT_ENDPOINT = 'specward.implementEndpoint';
// the extension's palette commands for them
export const DISCUSS_SPEC = 'specward.discussSpec';
export const GENERATE_SLICE_FROM_CONTRACT = 'specward.generateSliceFromContract';
export const UPDATE_AFFECTED_CODE = 'specward.updateAffectedCode';
export const RESUME_INTERRUPTED_RUN = 'specward.resumeInterruptedRun';

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

/** The arguments of `specward.discuss` for the file at `rel`: like "Generate contract", on a spec. */
export function discussArguments(rel: string | undefined): { args: [{ spec: string }] } | { message: string } {
  return contractArguments(rel);
}

/** A contract by its name, as the server finds them: SpecDSL `*.dsl.json`, OpenAPI / Swagger JSON or YAML. */
export function isContractFile(rel: string): boolean {
  const name = rel.split('/').pop() ?? '';
  return /\.dsl\.json$/i.test(name) || /(openapi|swagger).*\.(json|ya?ml)$/i.test(name);
}

/** The `{contract}` argument of `specward.generateSlice` / `specward.updateAffected` for the
 * file at `rel`, or a message saying why it is not a contract. */
export function contractFileArguments(rel: string | undefined): { contract: string } | { message: string } {
  if (rel === undefined) {
    return { message: 'specward: open a contract (a *.dsl.json or OpenAPI file in a workspace folder) first.' };
  }
  if (!isContractFile(rel)) {
    return { message: `specward: ${rel} is not a contract (a *.dsl.json, openapi.* or swagger.* file).` };
  }
  return { contract: rel };
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

/** The endpoints a contract declares, "METHOD /path" (SpecDSL's `endpoints`, OpenAPI JSON's
 * `paths`), for the quick pick of "Generate slice"; [] when the text is not such JSON (YAML:
 * the whole contract is generated). */
export function contractEndpoints(text: string): string[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return [];
  }
  if (typeof doc !== 'object' || doc === null) {
    return [];
  }
  const out: string[] = [];
  const { endpoints, paths } = doc as { endpoints?: unknown; paths?: unknown };
  if (Array.isArray(endpoints)) {
    for (const ep of endpoints) {
      const { method, path } = (ep ?? {}) as { method?: unknown; path?: unknown };
      if (typeof method === 'string' && typeof path === 'string' && METHODS.includes(method.toUpperCase())) {
        out.push(`${method.toUpperCase()} ${path}`);
      }
    }
  } else if (typeof paths === 'object' && paths !== null) {
    for (const [p, item] of Object.entries(paths as Record<string, unknown>)) {
      for (const m of Object.keys((item ?? {}) as object)) {
        if (METHODS.includes(m.toUpperCase())) {
          out.push(`${m.toUpperCase()} ${p}`);
        }
      }
    }
  }
  return [...new Set(out)];
}

/** The arguments of `specward.generateSlice`: the endpoints picked, or the whole contract
 * when none (or every one) was picked. */
export function sliceArguments(contract: string, picked: readonly string[], all: readonly string[]): [{ contract: string; endpoints?: string[] }] {
  const chosen = picked.filter((e) => all.includes(e));
  return chosen.length === 0 || chosen.length === all.length ? [{ contract }] : [{ contract, endpoints: chosen }];
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
