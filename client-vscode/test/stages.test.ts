import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import {
  contractArguments, GENERATE_CONTRACT, GENERATE_SPEC, LAST_SCORE_NOTIFICATION, MAX_REQUEST_CHARS, parseLastScore,
  scoreView, specArguments, validateRequest,
} from '../src/stages';

// compiled to out/test/*.test.js: the repository is three folders up
const REPO = path.resolve(__dirname, '..', '..', '..');

describe('the stage commands', () => {
  it('sends the request as typed, its blanks folded, and refuses an empty or huge one', () => {
    assert.equal(validateRequest('Let users write notes'), undefined);
    assert.match(validateRequest('   ')!, /feature request/);
    assert.match(validateRequest('x'.repeat(MAX_REQUEST_CHARS + 1))!, /At most/);
    assert.deepEqual(specArguments('  Let users\n write   notes '), ['Let users write notes']);
  });

  it('generates a contract only from specs/<slug>.md at a folder root', () => {
    assert.deepEqual(contractArguments('specs/user-login.md'), { args: [{ spec: 'specs/user-login.md' }] });
    for (const rel of ['docs/notes.md', 'specs/Notes Draft.md', 'specs/a/notes.md', 'specs/notes.dsl.json', 'specs/-x.md']) {
      const got = contractArguments(rel);
      assert.ok('message' in got && got.message.includes(`${rel} is not a spec`), rel);
    }
    const none = contractArguments(undefined);
    assert.ok('message' in none && /open a spec/.test(none.message));
  });

  it('names the commands and the notification the server registers (server/lsp)', () => {
    const handler = fs.readFileSync(path.join(REPO, 'server', 'lsp', 'handlers', 'stage_command.py'), 'utf8');
    assert.ok(handler.includes(`GENERATE_SPEC = "${GENERATE_SPEC}"`));
    assert.ok(handler.includes(`GENERATE_CONTRACT = "${GENERATE_CONTRACT}"`));
    const score = fs.readFileSync(path.join(REPO, 'server', 'lsp', 'last_score.py'), 'utf8');
    assert.ok(score.includes(`LAST_SCORE_NOTIFICATION = "${LAST_SCORE_NOTIFICATION}"`));
  });
});

describe('the last-score item', () => {
  it('shows "specward 8.8 PASS" and hides on null', () => {
    const s = parseLastScore({ runId: '20261203T101500Z-a1b2c3', score: 8.8, verdict: 'PASS' });
    assert.deepEqual(s, { runId: '20261203T101500Z-a1b2c3', score: 8.8, verdict: 'PASS' });
    const v = scoreView(s!);
    assert.equal(v!.text, 'specward 8.8 PASS');
    assert.match(v!.tooltip, /20261203T101500Z-a1b2c3\): 8\.80 \/ 10, PASS/);
    assert.equal(scoreView({ runId: 'r', score: 4.05, verdict: 'FAIL' })!.text, 'specward 4.0 FAIL'.replace('4.0', (4.05).toFixed(1)));
    assert.equal(scoreView({ runId: 'r', score: 7, verdict: null })!.text, 'specward 7.0');
    assert.equal(parseLastScore(null), null);
    assert.equal(scoreView(null), undefined);
  });

  it('rejects malformed params (undefined: the item stays as it was)', () => {
    for (const bad of ['8.8', 42, { score: 8.8 }, { runId: 'r', score: 'high' }, { runId: 'r', score: NaN },
      { runId: 'r', score: 1, verdict: 'MAYBE' }]) {
      assert.equal(parseLastScore(bad), undefined, JSON.stringify(bad));
    }
    assert.deepEqual(parseLastScore({ runId: 'r', score: 1 }), { runId: 'r', score: 1, verdict: null });
  });
});
