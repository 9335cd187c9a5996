// The console's one way to reach the API: the same /api routes, the same
// bearer token as every other client. The token is kept for this tab only
// (sessionStorage), never in a cookie the browser would send by itself.

const tokenKey = 'streamops.console.token';

// signedOutEvent is dispatched on window when the API refuses the token.
export const signedOutEvent = 'streamops:signed-out';

export const token = {
  get: () => sessionStorage.getItem(tokenKey) || '',
  set: (t) => sessionStorage.setItem(tokenKey, t.trim()),
  clear: () => sessionStorage.removeItem(tokenKey),
};

// ApiError is an answer other than 2xx, with the API's machine-readable
// {"error":{"code","message","field"}} body (kept whole in body: some
// refusals carry more, such as a requeue's current count).
export class ApiError extends Error {
  constructor(status, body) {
    const e = (body && body.error) || {};
    super(e.message || `HTTP ${status}`);
    this.status = status;
    this.code = e.code || 'http_' + status;
    this.field = e.field;
    this.body = body;
  }
}

// request sends one API call (with extra headers, such as an
// Idempotency-Key) and decodes its JSON answer.
export async function request(method, path, body, extra) {
  const headers = { ...extra, Authorization: 'Bearer ' + token.get() };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'omit',
    cache: 'no-store',
  });
  let data = null;
  const text = await res.text();
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = { error: { code: 'not_json', message: text.slice(0, 200) } };
    }
  }
  if (!res.ok) {
    const err = new ApiError(res.status, data);
    if (res.status === 401) {
      // The token is unknown or expired (a JWT): forget it and ask again.
      token.clear();
      window.dispatchEvent(new CustomEvent(signedOutEvent, { detail: err }));
    }
    throw err;
  }
  return data;
}

export const get = (path, query) => request('GET', withQuery(path, query));
export const post = (path, body, headers) => request('POST', path, body === undefined ? {} : body, headers);
export const patch = (path, body) => request('PATCH', path, body);
export const del = (path) => request('DELETE', path);

// withQuery appends the non-empty values of query to path.
export function withQuery(path, query) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query || {})) {
    if (v !== undefined && v !== null && v !== '') q.set(k, v);
  }
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}
