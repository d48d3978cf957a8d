// A thin wrapper: every get/post/del call below is an HTTP call to API_ROOT + path.
const API_ROOT = '/api';

type Options = { method: string; path: string; body?: unknown };

async function send({ method, path, body }: Options) {
  const res = await fetch(`${API_ROOT}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.json();
}

export function get(path: string) {
  return send({ method: 'GET', path });
}

export function post(path: string, body?: unknown) {
  return send({ method: 'POST', path, body });
}

export function del(path: string) {
  return send({ method: 'DELETE', path });
}
