import { useContext, useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { get } from '../api.js';
import { useLoad } from '../hooks.js';
import { Principal } from '../principal.js';
import { base, ErrorBox, fmtTime, fmtDuration, Badge, Json } from '../ui.jsx';

// A trace is everything stored under one W3C trace id (GET
// /api/traces/{traceId}): the webhook, the workflows and tasks it caused,
// their steps, partner deliveries and their attempts, dead letters and
// events, as nodes in causal order.

const traceIdRe = /^[0-9a-f]{32}$/;
const zeroTrace = '0'.repeat(32);

// parseTrace reads what a person pastes into a trace search: a trace id
// (32 hex digits) or a whole traceparent header (version-traceid-spanid-
// flags, W3C Trace Context), from which it takes the trace id. Hex digits
// are lowered (a traceparent is lowercase; a trace id copied from another
// tool may not be). It answers {id} or {error}, the reason in words.
export function parseTrace(input) {
  const s = String(input || '')
    .trim()
    .toLowerCase();
  if (s === '') return { error: 'Enter a trace id (32 hex digits) or a traceparent (00-<trace id>-<span id>-<flags>).' };
  let id = s;
  if (s.includes('-')) {
    const m = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/.exec(s);
    if (!m) return { error: 'Not a traceparent: it is 00-<32 hex digits trace id>-<16 hex digits span id>-<2 hex digits flags>.' };
    if (m[1] === 'ff') return { error: 'Not a traceparent: version ff is invalid.' };
    if (m[1] === '00' && m[5] !== undefined) return { error: 'Not a traceparent: version 00 has nothing after the flags.' };
    id = m[2];
  } else if (!/^[0-9a-f]*$/.test(s)) {
    return { error: 'Not a trace id: a trace id is hex digits (0-9, a-f) only.' };
  } else if (s.length !== 32) {
    return { error: `Not a trace id: a trace id has 32 hex digits, this has ${s.length}.` };
  }
  if (id === zeroTrace) return { error: 'Not a trace id: the all-zero trace id is invalid.' };
  return { id };
}

// traceparentTraceId is the trace id of a traceparent header value, or ''.
export function traceparentTraceId(tp) {
  const r = parseTrace(tp);
  return r.id && String(tp).includes('-') ? r.id : '';
}

export function tracePath(id) {
  return `${base}/traces/${encodeURIComponent(id)}`;
}

// TraceLink links the trace page of traceId, when there is one (a valid
// trace id) and the token may read traces (an admin's).
export function TraceLink({ traceId, label = 'Trace' }) {
  const principal = useContext(Principal);
  if (!principal.admin || !traceId || !traceIdRe.test(traceId)) return null;
  return (
    <a class="trace-link" href={tracePath(traceId)} title={`trace ${traceId}`} data-trace-id={traceId}>
      {label}
    </a>
  );
}

// TraceSearch takes a trace id or a traceparent and opens its trace page;
// what is neither it refuses, saying why.
export function TraceSearch({ compact }) {
  const { route } = useLocation();
  const [error, setError] = useState('');
  const onSubmit = (e) => {
    e.preventDefault();
    const form = e.currentTarget;
    const r = parseTrace(new FormData(form).get('trace'));
    if (r.error) {
      setError(r.error);
      return;
    }
    setError('');
    form.reset();
    route(tracePath(r.id));
  };
  return (
    <form class={compact ? 'trace-search compact' : 'trace-search search'} role="search" onSubmit={onSubmit} data-testid="trace-search">
      <input
        name="trace"
        type="search"
        aria-label="Trace id or traceparent"
        placeholder={compact ? 'Trace id or traceparent' : 'Trace id (32 hex digits) or traceparent (00-…-…-01)'}
        autocomplete="off"
        spellcheck={false}
        onInput={() => error && setError('')}
      />
      <button type="submit">{compact ? 'Go' : 'Open trace'}</button>
      {error ? (
        <span class="trace-search-error error-text" role="alert" data-testid="trace-search-error">
          {error}
        </span>
      ) : null}
    </form>
  );
}

// Traces is the search page: where a trace id comes from, and the box.
export function Traces() {
  return (
    <section>
      <h1>Traces</h1>
      <p>
        Every HTTP answer of StreamOps carries <code>X-Trace-Id</code> and <code>traceresponse</code>; every event carries{' '}
        <code>metadata.traceId</code>; a provider's webhook sent with a <code>traceparent</code> header keeps its trace id all the way
        to the partner's endpoint. Paste one here to see everything stored under it.
      </p>
      <TraceSearch />
    </section>
  );
}

// running statuses: while a node has one, the page reads the trace again.
const running = ['pending', 'processing', 'received', 'running'];
const pollMs = 2000;

// Trace is one trace's waterfall: one row per node, indented by its
// depth, its bar placed by offsetMs and sized by durationMs on the
// trace's time axis (an event is a point), and the chosen row's detail
// with a link to the page of what it is. Read again every 2 s while a
// node is pending or processing.
export function Trace({ id }) {
  const tr = useLoad(() => get(`/api/traces/${encodeURIComponent(id)}`), [id]);
  const [selected, setSelected] = useState('');
  const live = !!tr.data && tr.data.nodes.some((n) => running.includes(n.status));
  useEffect(() => {
    if (!live) return undefined;
    const timer = setInterval(tr.reload, pollMs);
    return () => clearInterval(timer);
  }, [live, id]);
  useEffect(() => setSelected(''), [id]);
  const data = tr.data && tr.data.traceId === id ? tr.data : null;
  return (
    <section data-testid="trace" data-trace-id={id} data-live={live ? 'true' : 'false'}>
      <h1>
        Trace <code>{id}</code>
      </h1>
      <TraceError error={tr.error} id={id} />
      {!data && !tr.error ? <p class="muted">Loading…</p> : null}
      {data ? (
        <>
          <p class="trace-summary" data-testid="trace-summary">
            {data.nodes.length} node{data.nodes.length === 1 ? '' : 's'}, started {fmtTime(data.startedAt)}
            {data.durationMs !== undefined ? `, ${fmtDuration(data.durationMs)} to the last` : ''}
            {live ? <span class="muted"> (still running: read again every {pollMs / 1000} s)</span> : null}
          </p>
          {data.truncated ? (
            <div class="warn-box" role="status" data-testid="trace-truncated">
              More events are stored under this trace than the view reads: the waterfall shows the first ones.
            </div>
          ) : null}
          <Waterfall trace={data} selected={selected} onSelect={(nid) => setSelected(nid === selected ? '' : nid)} />
          <NodeDetail trace={data} node={data.nodes.find((n) => n.id === selected)} />
        </>
      ) : null}
    </section>
  );
}

// TraceError says what a 400 or 404 means for this id, then the API's
// own answer.
function TraceError({ error, id }) {
  if (!error) return null;
  let why = null;
  if (error.status === 404) why = <>No trace with this id is stored: nothing in the events, workflows, tasks, webhook events, outbox or dead letters carries it (they expire with their TTL).</>;
  if (error.status === 400) why = <>“{id}” is not a trace id: a trace id is 32 lowercase hex digits, not all zero (the middle part of a traceparent).</>;
  return (
    <div data-testid="trace-error" data-status={error.status || ''}>
      {why ? <p class="trace-why">{why}</p> : null}
      <ErrorBox error={error} />
      {error.status === 400 || error.status === 404 ? <TraceSearch /> : null}
    </div>
  );
}

// depths is each node's depth: its parent's plus one (a parent comes
// before its children; a node whose parent is not in the answer is a root).
function depths(nodes) {
  const d = {};
  for (const n of nodes) d[n.id] = n.parentId && d[n.parentId] !== undefined ? d[n.parentId] + 1 : 0;
  return d;
}

// span is the time axis's length: the trace's duration, or the latest end
// or point of a node, whichever is longer (at least 1 ms).
function span(trace) {
  let end = trace.durationMs || 0;
  for (const n of trace.nodes) end = Math.max(end, (n.offsetMs || 0) + (n.durationMs || 0));
  return Math.max(end, 1);
}

const pct = (v) => `${Math.min(100, Math.max(0, v)).toFixed(3)}%`;

function Waterfall({ trace, selected, onSelect }) {
  const total = span(trace);
  const depth = depths(trace.nodes);
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  return (
    <div class="waterfall" data-testid="waterfall" role="table" aria-label="trace waterfall">
      <div class="wf-row wf-head" role="row">
        <div class="wf-name" role="columnheader">
          node
        </div>
        <div class="wf-bar wf-axis" role="columnheader">
          {ticks.map((f) => (
            <span class="tick" style={{ left: pct(f * 100) }}>
              {fmtDuration(f * total)}
            </span>
          ))}
        </div>
        <div class="wf-dur" role="columnheader">
          duration
        </div>
      </div>
      {trace.nodes.map((n) => (
        <Row node={n} depth={depth[n.id]} total={total} selected={n.id === selected} onSelect={onSelect} key={n.id} />
      ))}
    </div>
  );
}

// kindLabels are the nodes' kinds as the waterfall names them.
const kindLabels = {
  webhook: 'webhook',
  workflow: 'workflow',
  step: 'step',
  task: 'task',
  delivery: 'delivery',
  attempt: 'attempt',
  event: 'event',
  deadletter: 'dead letter',
};

function Row({ node: n, depth, total, selected, onSelect }) {
  const point = n.kind === 'event' || (n.durationMs === undefined && !n.endedAt && !running.includes(n.status));
  const left = ((n.offsetMs || 0) / total) * 100;
  // A node still running (no end yet) reaches the axis's end.
  const width = n.durationMs !== undefined ? (n.durationMs / total) * 100 : 100 - left;
  const d = n.detail || {};
  const failed = n.status === 'failed' || n.kind === 'deadletter' || (n.kind === 'attempt' && d.error);
  const select = () => onSelect(n.id);
  return (
    <div
      class={`wf-row k-${n.kind}${selected ? ' selected' : ''}${failed ? ' failed' : ''}`}
      role="row"
      tabindex="0"
      aria-selected={selected ? 'true' : 'false'}
      data-id={n.id}
      data-kind={n.kind}
      data-depth={depth}
      onClick={select}
      onKeyDown={(e) => (e.key === 'Enter' || e.key === ' ') && (e.preventDefault(), select())}
    >
      <div class="wf-name" role="cell" style={{ paddingLeft: `${depth * 1.1 + 0.3}rem` }}>
        <span class={`kind k-${n.kind}`}>{kindLabels[n.kind] || n.kind}</span> <span class="node-name">{n.name}</span>{' '}
        {n.status ? <Badge value={n.status} /> : null}
        {n.kind === 'attempt' ? <AttemptOutcome detail={d} /> : null}
      </div>
      <div class="wf-bar" role="cell">
        {point ? (
          <span class="marker" style={{ left: pct(left) }} title={`+${fmtDuration(n.offsetMs)}`} />
        ) : (
          <span
            class={`bar${n.durationMs === undefined ? ' open-ended' : ''}`}
            style={{ left: pct(left), width: `max(2px, ${pct(width)})` }}
            title={`+${fmtDuration(n.offsetMs)}, ${n.durationMs === undefined ? 'running' : fmtDuration(n.durationMs)}`}
          />
        )}
      </div>
      <div class="wf-dur" role="cell">
        {n.durationMs !== undefined ? fmtDuration(n.durationMs) : point ? '' : 'running'}
      </div>
    </div>
  );
}

// AttemptOutcome is a delivery attempt's answer: the HTTP status code, or
// none when the request got no answer, and its error.
function AttemptOutcome({ detail: d }) {
  return (
    <span class="attempt-outcome">
      {d.statusCode ? (
        <code class={`http-status${d.statusCode >= 400 ? ' error-text' : ''}`} data-testid="attempt-status">
          HTTP {d.statusCode}
        </code>
      ) : (
        <code class="http-status error-text" data-testid="attempt-status">
          no answer
        </code>
      )}
      {d.error ? <span class="error-text attempt-error"> {d.error}</span> : null}
    </span>
  );
}

// nodeLink is the console page of what a node is, from its ref: the
// webhook event (in the webhook list, opened), a workflow's or task's
// timeline (a step's is its workflow's), a delivery's partner, a dead
// letter (in the dead letter list, opened), an event (the events page
// showing it). An attempt links its delivery's page.
export function nodeLink(node, trace) {
  const byId = Object.fromEntries(trace.nodes.map((n) => [n.id, n]));
  const ancestor = (n, kind) => {
    for (let p = byId[n.parentId]; p; p = byId[p.parentId]) if (p.kind === kind) return p;
    return null;
  };
  const d = node.detail || {};
  const ref = node.ref || '';
  const around = (t) => {
    const ms = Date.parse(t);
    if (isNaN(ms)) return {};
    return { from: new Date(ms - 60e3).toISOString(), to: new Date(ms + 60e3).toISOString() };
  };
  const q = (o) => new URLSearchParams(Object.entries(o).filter(([, v]) => v !== undefined && v !== '')).toString();
  switch (node.kind) {
    case 'webhook':
      return ref
        ? { href: `${base}/webhooks?${q({ provider: d.provider, ...around(node.startedAt), open: ref })}`, label: `webhook event ${ref}` }
        : null;
    case 'workflow':
    case 'task':
      return ref ? { href: `${base}/timeline/${encodeURIComponent(ref)}`, label: `${node.kind} timeline ${ref}` } : null;
    case 'step': {
      const wf = ancestor(node, 'workflow');
      const id = (wf && wf.ref) || d.workflowId || ref;
      return id ? { href: `${base}/timeline/${encodeURIComponent(id)}`, label: `workflow timeline ${id}` } : null;
    }
    case 'delivery':
    case 'attempt': {
      const del = node.kind === 'delivery' ? node : ancestor(node, 'delivery');
      const dd = (del && del.detail) || d;
      const partner = dd.partnerId || dd.target || (del && del.name);
      return partner ? { href: `${base}/partners/${encodeURIComponent(partner)}`, label: `partner ${partner}'s deliveries` } : null;
    }
    case 'deadletter':
      return ref
        ? { href: `${base}/dead-letters?${q({ status: 'all', topic: d.topic, ...around(node.startedAt), open: ref })}`, label: `dead letter ${ref}` }
        : null;
    case 'event':
      return ref ? { href: `${base}/events?${q({ event_ids: ref })}`, label: `event ${ref}` } : null;
    default:
      return null;
  }
}

function NodeDetail({ trace, node }) {
  if (!node) return <p class="muted small">Click a row for its detail.</p>;
  const link = nodeLink(node, trace);
  const d = node.detail || {};
  return (
    <div class="state node-detail" data-testid="node-detail" data-id={node.id}>
      <h3>
        {kindLabels[node.kind] || node.kind} <code>{node.name}</code> {node.status ? <Badge value={node.status} /> : null}
      </h3>
      {link ? (
        <p>
          <a href={link.href} data-testid="node-link">
            Open {link.label}
          </a>
        </p>
      ) : null}
      <dl class="config">
        <dt>id</dt>
        <dd>
          <code>{node.id}</code>
        </dd>
        {node.ref ? (
          <>
            <dt>ref</dt>
            <dd>
              <code>{node.ref}</code>
            </dd>
          </>
        ) : null}
        <dt>started</dt>
        <dd>
          {fmtTime(node.startedAt)} <span class="muted">(+{fmtDuration(node.offsetMs)})</span>
        </dd>
        <dt>ended</dt>
        <dd>{node.endedAt ? fmtTime(node.endedAt) : '—'}</dd>
        <dt>duration</dt>
        <dd>{fmtDuration(node.durationMs)}</dd>
        {Object.entries(d).map(([k, v]) => (
          <>
            <dt>{k}</dt>
            <dd class={k === 'error' ? 'error-text' : ''}>{v !== null && typeof v === 'object' ? <Json value={v} /> : <code>{String(v)}</code>}</dd>
          </>
        ))}
      </dl>
    </div>
  );
}
