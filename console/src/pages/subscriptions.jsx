// A partner's subscriptions as a form edits them, and the filter tester
// (POST /api/partners/{id}/subscriptions/test) that shows which events a
// subscription would deliver before it is saved.
import { useState } from 'preact/hooks';
import { post } from '../api.js';
import { useLoad } from '../hooks.js';
import { base, ErrorBox, fmtTime, ListTable } from '../ui.jsx';
import { eventCatalog } from './catalog.js';

// formError is a mistake the form finds before anything is sent, shaped
// as the API's errors are (a field and a message) so ErrorBox shows it
// the same way.
export function formError(field, message) {
  return { code: 'invalid_form', field, message: `${message}; nothing was sent` };
}

// toRows turns stored subscriptions into the form's rows: the event types
// as one comma-separated line, the filter as indented JSON ('' for none).
export function toRows(subs) {
  return (subs || []).map((s) => ({
    eventTypes: (s.eventTypes || []).join(', '),
    filter: s.filter === undefined || s.filter === null ? '' : JSON.stringify(s.filter, null, 2),
  }));
}

// fromRow is one row as the API takes a subscription; a filter that is
// not JSON is a formError naming field (the row's place in the body).
export function fromRow(row, field) {
  const sub = {
    eventTypes: row.eventTypes
      .split(/[\s,]+/)
      .map((t) => t.trim())
      .filter(Boolean),
  };
  const f = row.filter.trim();
  if (f !== '') {
    try {
      sub.filter = JSON.parse(f);
    } catch (e) {
      throw formError(`${field}.filter`, `not JSON (${e.message})`);
    }
  }
  return sub;
}

// fromRows is every row as the API's subscriptions, in the form's order,
// so an error the API names (subscriptions[1]…) is the second row's.
export function fromRows(rows) {
  return rows.map((r, i) => fromRow(r, `subscriptions[${i}]`));
}

// rowOf is the row an error names (subscriptions[N]…), or -1.
export function rowOf(error) {
  const m = error && error.field && /^subscriptions\[(\d+)\]/.exec(error.field);
  return m ? Number(m[1]) : -1;
}

const emptyRow = { eventTypes: '', filter: '' };

// Subscriptions edits the rows (onChange gets the new list): each row its
// event types and optional payload filter, with its own Test…; an error
// naming a row is shown in that row. partnerId is whose subscriptions are
// tested (the partner need not exist yet: the tested one is in the body).
export function Subscriptions({ partnerId, rows, onChange, error }) {
  const [testing, setTesting] = useState(-1);
  const set = (i, patch) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const at = rowOf(error);
  return (
    <fieldset class="subscriptions" data-testid="subscriptions">
      <legend>Subscriptions</legend>
      <p class="muted small">
        Stored events this partner receives besides what a workflow's deliver step sends it: event types exactly (
        <code>workflow.completed</code>), by prefix (<code>task.*</code>) or <code>*</code>, and optionally a payload filter, a MongoDB
        query over the event (<code>{'{"payload.name": "orders"}'}</code>; <code>$eq $ne $gt $gte $lt $lte $in $nin $exists $and $or</code>
        ).
      </p>
      {rows.length === 0 ? <p class="muted">No subscription: only deliver steps send it events.</p> : null}
      {rows.map((r, i) => (
        <div class={`subscription${at === i ? ' invalid' : ''}`} data-testid="subscription" data-index={i} key={i}>
          <label>
            <span>Event types</span>
            <input
              name={`sub-${i}-types`}
              data-testid="sub-types"
              value={r.eventTypes}
              placeholder="workflow.completed, task.*"
              onInput={(e) => set(i, { eventTypes: e.currentTarget.value })}
            />
          </label>
          <label>
            <span>Payload filter (JSON, optional)</span>
            <textarea
              name={`sub-${i}-filter`}
              data-testid="sub-filter"
              rows={Math.min(8, Math.max(2, r.filter.split('\n').length))}
              value={r.filter}
              placeholder='none; e.g. {"payload.name": "orders"}'
              onInput={(e) => set(i, { filter: e.currentTarget.value })}
            />
          </label>
          <span class="row-actions">
            <button type="button" class="secondary" data-testid="sub-test" onClick={() => setTesting(testing === i ? -1 : i)}>
              {testing === i ? 'Close test' : 'Test…'}
            </button>{' '}
            <button
              type="button"
              class="secondary"
              data-testid="sub-remove"
              onClick={() => {
                setTesting(-1);
                onChange(rows.filter((_, j) => j !== i));
              }}
            >
              Remove
            </button>
          </span>
          {at === i ? <ErrorBox error={error} /> : null}
          {testing === i ? <FilterTester partnerId={partnerId} row={r} index={i} /> : null}
        </div>
      ))}
      <button type="button" class="secondary" data-testid="sub-add" onClick={() => onChange([...rows, { ...emptyRow }])}>
        Add subscription
      </button>
    </fieldset>
  );
}

// FilterTester evaluates one row, as the form holds it now (unsaved),
// against the latest stored events or an event pasted in (the catalog's
// example of a type to start from), and lists which match and why the
// others do not.
function FilterTester({ partnerId, row, index }) {
  const [source, setSource] = useState('last');
  const [last, setLast] = useState('50');
  const [event, setEvent] = useState('');
  const [state, setState] = useState({ busy: false });
  const run = async () => {
    let body;
    try {
      body = { subscription: fromRow(row, 'subscription') };
      if (source === 'event') {
        try {
          body.event = JSON.parse(event);
        } catch (err) {
          throw formError('event', `not JSON (${err.message})`);
        }
      } else {
        body.last = Number(last);
      }
    } catch (err) {
      setState({ busy: false, error: err });
      return;
    }
    setState({ busy: true });
    try {
      setState({ busy: false, result: await post(`/api/partners/${encodeURIComponent(partnerId)}/subscriptions/test`, body) });
    } catch (err) {
      setState({ busy: false, error: err });
    }
  };
  return (
    // Not a form of its own: it sits inside the partner's form, and Enter
    // in its fields runs the test rather than saving the partner.
    <div class="tester" data-testid="filter-tester" onKeyDown={(e) => e.key === 'Enter' && e.target.tagName === 'INPUT' && (e.preventDefault(), run())}>
      <strong>Test subscription {index + 1}</strong> <span class="muted small">as the form holds it, unsaved; nothing is sent to the partner</span>
      <div class="tester-source">
        <label>
          <input type="radio" name="source" value="last" checked={source === 'last'} onChange={() => setSource('last')} /> against the last{' '}
          <input
            class="narrow"
            name="last"
            data-testid="tester-last"
            value={last}
            onInput={(e) => setLast(e.currentTarget.value)}
            disabled={source !== 'last'}
          />{' '}
          stored events
        </label>
        <label>
          <input type="radio" name="source" value="event" data-testid="tester-source-event" checked={source === 'event'} onChange={() => setSource('event')} />{' '}
          against this event
        </label>
      </div>
      {source === 'event' ? <PastedEvent value={event} onChange={setEvent} /> : null}
      <button type="button" data-testid="tester-run" disabled={state.busy || !partnerId} onClick={run}>
        {state.busy ? 'Testing…' : 'Run test'}
      </button>
      {!partnerId ? <span class="muted small"> (give the partner an id first)</span> : null}
      <ErrorBox error={state.error} />
      {state.result ? <TestResult result={state.result} /> : null}
    </div>
  );
}

// PastedEvent is the event to test, with the catalog's example of a
// chosen type to start from.
function PastedEvent({ value, onChange }) {
  const cat = useLoad(eventCatalog, []);
  return (
    <div class="pasted">
      <textarea name="event" data-testid="tester-event" rows={8} value={value} placeholder='{"eventId": "…", "eventType": "workflow.completed", …}' onInput={(e) => onChange(e.currentTarget.value)} />
      <ErrorBox error={cat.error} />
      {cat.data ? (
        <label class="small">
          <span>start from the catalog's example of </span>
          <select
            data-testid="tester-example"
            onChange={(e) => {
              const t = cat.data.find((x) => x.eventType === e.currentTarget.value);
              if (t) onChange(JSON.stringify(t.example, null, 2));
            }}
          >
            <option value="">choose a type</option>
            {cat.data.map((t) => (
              <option value={t.eventType}>{t.eventType}</option>
            ))}
          </select>
        </label>
      ) : null}
    </div>
  );
}

const reasons = {
  eventType: 'no subscription names its type',
  filter: 'the filter does not match',
  loopGuard: 'an operational event about this partner (the loop guard)',
  undecodable: 'a stored event that cannot be read back',
};

// TestResult lists what the test evaluated: the events that match, then
// (folded) those that do not, each with the reason.
function TestResult({ result }) {
  const matched = result.matched || [];
  const unmatched = result.unmatched || [];
  return (
    <div class="test-result" data-testid="tester-result" data-matched={matched.length} data-evaluated={result.evaluated}>
      <p>
        <strong data-testid="tester-summary">
          {matched.length} of {result.evaluated} event{result.evaluated === 1 ? '' : 's'} match
        </strong>
      </p>
      {matched.length > 0 ? (
        <ListTable testid="tester-matched" columns={['event', 'type', 'time']}>
          {matched.map((e) => (
            <tr data-event-id={e.eventId}>
              <td>
                <a href={`${base}/events?event_ids=${encodeURIComponent(e.eventId)}`}>
                  <code>{e.eventId}</code>
                </a>
              </td>
              <td>
                <code class="type">{e.eventType}</code>
              </td>
              <td>{fmtTime(e.timestamp)}</td>
            </tr>
          ))}
        </ListTable>
      ) : null}
      {unmatched.length > 0 ? (
        <details>
          <summary>
            {unmatched.length} do{unmatched.length === 1 ? 'es' : ''} not match
          </summary>
          <ListTable testid="tester-unmatched" columns={['event', 'type', 'time', 'why not']}>
            {unmatched.map((e) => (
              <tr data-event-id={e.eventId} data-reason={e.reason}>
                <td>
                  <code>{e.eventId}</code>
                </td>
                <td>
                  <code class="type">{e.eventType}</code>
                </td>
                <td>{fmtTime(e.timestamp)}</td>
                <td>{reasons[e.reason] || e.reason}</td>
              </tr>
            ))}
          </ListTable>
        </details>
      ) : null}
    </div>
  );
}
