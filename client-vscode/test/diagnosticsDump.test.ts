import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';

import { dump, statusLine } from '../src/diagnosticsDump';

const uri = (s: string) => ({ toString: () => s });
const range = (l1: number, c1: number, l2: number, c2: number) =>
  ({ start: { line: l1, character: c1 }, end: { line: l2, character: c2 } });

describe('diagnostics dump (test oracle)', () => {
  it('flattens, names severities, unwraps codes and sorts', () => {
    const out = dump([
      [uri('file:///w/web/src/features/profile.ts'), [
        { range: range(19, 18, 19, 35), message: 'PATCH /api/users/{id} is not declared', severity: 0,
          code: { value: 'method-mismatch' }, source: 'specward' },
        { range: range(9, 28, 9, 50), message: 'GET /api/user/profile/avatar is not in the contract', severity: 0,
          code: 'phantom-api', source: 'specward' },
      ]],
      [uri('file:///w/contracts/openapi.yaml'), [
        { range: range(61, 4, 61, 7), message: 'PUT /api/user/profile is not called', severity: 2, code: 'unused-endpoint' },
        { range: range(1, 0, 1, 1), message: 'hint', severity: 3 },
        { range: range(2, 0, 2, 1), message: 'warn', severity: 1, code: 7 },
      ]],
    ]);
    assert.deepEqual(out.map((d) => [d.uri.split('/').pop(), d.range.start.line, d.severity, d.code]), [
      ['openapi.yaml', 1, 'hint', null],
      ['openapi.yaml', 2, 'warning', 7],
      ['openapi.yaml', 61, 'information', 'unused-endpoint'],
      ['profile.ts', 9, 'error', 'phantom-api'],
      ['profile.ts', 19, 'error', 'method-mismatch'],
    ]);
    assert.deepEqual(out[3], {
      uri: 'file:///w/web/src/features/profile.ts',
      range: { start: { line: 9, character: 28 }, end: { line: 9, character: 50 } },
      code: 'phantom-api',
      message: 'GET /api/user/profile/avatar is not in the contract',
      severity: 'error',
      source: 'specward',
    });
    assert.equal(out[0].source, null);
  });

  it('writes an empty list when there is nothing', () => {
    assert.deepEqual(dump([]), []);
    assert.deepEqual(dump([[uri('file:///x'), []]]), []);
  });
});

describe('status file (test oracle)', () => {
  it('writes one JSON object per line, newlines in the tooltip escaped', () => {
    const lines = [
      statusLine({ folders: ['/w/shop'], state: 'nothing', text: '$(circle-slash) specward: nothing to check', tooltip: 'a\n\nb' }),
      statusLine({ folders: ['/w/shop'], state: 'starting', text: '$(sync~spin) specward: starting', tooltip: 't' }),
    ].join('');
    const parsed = lines.trimEnd().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(parsed.map((r) => r.state), ['nothing', 'starting']);
    assert.equal(parsed[0].tooltip, 'a\n\nb');
    assert.deepEqual(Object.keys(parsed[0]), ['folders', 'state', 'text', 'tooltip']);
  });
});
