import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';

import { parseStatus, type State, StatusTracker, view } from '../src/status';

function tracker() {
  const seen: Array<[State, string]> = [];
  const t = new StatusTracker((state, v) => seen.push([state, v.text]));
  return { t, seen };
}

describe('status bar', () => {
  it('shows indexing while the server says so, then ready', () => {
    const { t, seen } = tracker();
    t.starting();
    t.running();
    assert.ok(t.notification({ state: 'indexing', message: 'Indexing 10 / 200 files' }));
    assert.ok(t.notification({ state: 'ready', message: 'Indexed 200 files' }));
    assert.deepEqual(seen.map(([, text]) => text), [
      '$(search) specward: looking',
      '$(sync~spin) specward: starting',
      '$(sync~spin) specward: indexing',
      '$(sync~spin) specward: indexing',
      '$(check) specward',
    ]);
  });

  it('falls back to the first diagnostics when the server never sends specward/status', () => {
    const { t } = tracker();
    t.starting();
    t.running();
    assert.equal(t.current, 'indexing');
    t.diagnostics();
    assert.equal(t.current, 'ready');
  });

  it('trusts specward/status over diagnostics once the server has sent it', () => {
    const { t } = tracker();
    t.notification({ state: 'indexing', message: '' });
    t.diagnostics();
    assert.equal(t.current, 'indexing');
    t.notification({ state: 'ready', message: '' });
    assert.equal(t.current, 'ready');
  });

  it('forgets the previous server on restart', () => {
    const { t } = tracker();
    t.notification({ state: 'ready', message: '' });
    t.starting();
    t.running();
    t.diagnostics();
    assert.equal(t.current, 'ready');
  });

  it('does not turn a stopped server ready', () => {
    const { t } = tracker();
    t.stopped('crashed');
    t.diagnostics();
    assert.equal(t.current, 'stopped');
    assert.equal(view('stopped', '').text, '$(error) specward: stopped');
  });

  it('rejects malformed notifications', () => {
    for (const bad of [null, 'ready', {}, { state: 'done' }, { state: 42 }]) {
      assert.equal(parseStatus(bad), undefined, JSON.stringify(bad));
    }
    assert.deepEqual(parseStatus({ state: 'ready' }), { state: 'ready', message: '' });
    const { t } = tracker();
    t.starting();
    assert.equal(t.notification({ state: 'nope' }), false);
    assert.equal(t.current, 'starting');
  });

  it('looks first, and says when there is nothing to check (no server, so no ready or indexing)', () => {
    const { t, seen } = tracker();
    assert.equal(t.current, 'looking');
    t.running(); // not from a server that was never started
    t.diagnostics();
    assert.equal(t.current, 'looking');
    t.nothing('Looked for a specward.toml; ...');
    assert.deepEqual(seen, [['looking', '$(search) specward: looking'], ['nothing', '$(circle-slash) specward: nothing to check']]);
    const v = view('nothing', 'Looked for a specward.toml; ...');
    assert.match(v.tooltip, /^specward: nothing to check in this workspace\n\nLooked for a specward\.toml/);
    t.diagnostics();
    assert.equal(t.current, 'nothing');
    // something appeared: the server starts
    t.starting();
    t.running();
    t.diagnostics();
    assert.equal(t.current, 'ready');
  });

  it('puts the message in the tooltip', () => {
    assert.match(view('notFound', 'pip install specward').tooltip, /pip install specward/);
  });
});
