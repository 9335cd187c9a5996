// Small pieces every page shares: time and duration formats, the JSON
// view, the error box, a listing's states and table, filter forms bound to
// the query string, paging.
import { useLocation } from 'preact-iso/router';

export const base = '/console';

export function fmtTime(t) {
  if (!t) return '—';
  const d = new Date(t);
  if (isNaN(d)) return String(t);
  if (d.getUTCFullYear() <= 1) return '—'; // Go's zero time: not known
  return d.toISOString().replace('T', ' ').replace('Z', ' UTC');
}

export function fmtDuration(ms) {
  if (ms === undefined || ms === null || isNaN(ms)) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(s < 10 ? 2 : 1)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${Math.round(s % 60)} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

export function Json({ value }) {
  return <pre class="json">{JSON.stringify(value, null, 2)}</pre>;
}

// ErrorBox shows an API error as the API gave it: status, code, message,
// and the field at fault.
export function ErrorBox({ error }) {
  if (!error) return null;
  return (
    <div class="error" role="alert">
      <strong>{error.status ? `${error.status} ${error.code}` : 'error'}</strong>
      {error.field ? <span> (field {error.field})</span> : null}: {error.message}
    </div>
  );
}

export function Loading({ when }) {
  return when ? <p class="muted">Loading…</p> : null;
}

export function Badge({ value }) {
  return <span class={`badge s-${String(value).replace(/[^a-z_]/gi, '').toLowerCase()}`}>{value}</span>;
}

// FilterForm is a GET form whose fields are the page's query parameters:
// submitting it navigates to the page with the filled ones (the page's
// URL is the filter, so it can be shared), without the cursor.
export function FilterForm({ fields, submit = 'Apply', extra }) {
  const { path, query, route } = useLocation();
  const onSubmit = (e) => {
    e.preventDefault();
    const q = new URLSearchParams();
    for (const [k, v] of new FormData(e.currentTarget)) {
      if (String(v).trim() !== '') q.set(k, String(v).trim());
    }
    const s = q.toString();
    route(s ? `${path}?${s}` : path);
  };
  return (
    <form class="filters" onSubmit={onSubmit} key={JSON.stringify(query)}>
      {fields.map((f) => (
        <label key={f.name}>
          <span>{f.label}</span>
          {f.options ? (
            <select name={f.name}>
              {f.options.map((o) => (
                <option value={o} selected={o === (query[f.name] ?? f.default ?? '')}>
                  {o === '' ? 'any' : o}
                </option>
              ))}
            </select>
          ) : (
            <input name={f.name} placeholder={f.placeholder || ''} defaultValue={query[f.name] ?? f.default ?? ''} />
          )}
        </label>
      ))}
      <button type="submit">{submit}</button>
      <a class="button secondary" href={path}>
        Reset
      </a>
      {extra}
    </form>
  );
}

// Pager links the next page (the API's opaque cursor) and the first.
export function Pager({ next }) {
  const { path, query } = useLocation();
  const q = { ...query };
  delete q.cursor;
  const first = new URLSearchParams(q).toString();
  return (
    <nav class="pager">
      {query.cursor ? <a href={first ? `${path}?${first}` : path}>« First page</a> : null}
      {next ? <a href={`${path}?${new URLSearchParams({ ...q, cursor: next })}`}>Next page »</a> : null}
    </nav>
  );
}

// Empty says a listing found nothing.
export function Empty({ what }) {
  return <p class="muted empty">No {what} match.</p>;
}

// Listing shows a loaded listing in whichever state it is: the error, that
// it is loading, that nothing matches (items empty), or its items, laid
// out by children (a function of items).
export function Listing({ error, loading, items, what, children }) {
  return (
    <>
      <ErrorBox error={error} />
      <Loading when={loading} />
      {items && items.length === 0 ? <Empty what={what} /> : null}
      {items && items.length > 0 ? children(items) : null}
    </>
  );
}

// ListTable is a listing's table: a header row naming the columns, then
// the rows (children).
export function ListTable({ class: cls = 'list', testid, columns, children }) {
  return (
    <table class={cls} data-testid={testid}>
      <thead>
        <tr>
          {columns.map((c) => (
            <th>{c}</th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}

// Since links the page with its from-parameter set to a moment ago
// (written out, so the link still means the same period when shared).
export function Since({ param }) {
  const { path, query } = useLocation();
  const ago = [
    ['15 min', 15 * 60e3],
    ['1 h', 3600e3],
    ['24 h', 24 * 3600e3],
  ];
  return (
    <span class="since">
      last{' '}
      {ago.map(([label, ms]) => {
        const q = { ...query, [param]: new Date(Date.now() - ms).toISOString() };
        delete q.cursor;
        return (
          <a href={`${path}?${new URLSearchParams(q)}`} key={label}>
            {label}
          </a>
        );
      })}
    </span>
  );
}

// Confirm asks whether to go on with one action (the question,
// children): a button labelled yes (data-testid `${testid}-yes`, not
// offered again while busy, so one confirmation is one call) and a
// Cancel.
export function Confirm({ yes, testid, busy, onYes, onCancel, children }) {
  return (
    <div class="confirm" role="dialog" data-testid={`${testid}-confirm`}>
      <span>{children}</span>{' '}
      <button class="danger" onClick={onYes} disabled={busy} data-testid={`${testid}-yes`}>
        {yes}
      </button>{' '}
      <button class="secondary" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}

// ConfirmCount asks to act on n items (the question, children, names
// them) with a button saying the count, or says nothing matches; note is
// a warning above it (why it asks again).
export function ConfirmCount({ n, note, empty, onYes, onCancel, children }) {
  return (
    <div class="confirm" role="dialog" data-testid="bulk-confirm">
      {note ? (
        <div class="warn-box" data-testid="bulk-note">
          {note}
        </div>
      ) : null}
      {n === 0 ? <span>{empty}</span> : <span>{children}</span>}{' '}
      {n > 0 ? (
        <button class="danger" onClick={onYes} data-testid="bulk-yes">
          Requeue {n}
        </button>
      ) : null}{' '}
      <button class="secondary" onClick={onCancel}>
        Cancel
      </button>
    </div>
  );
}
