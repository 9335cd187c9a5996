import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { get, post } from '../api.js';
import { useAction, useLoad } from '../hooks.js';
import { base, ConfirmCount, ErrorBox, fmtTime, FilterForm, Since, Pager, Json, Badge, Listing, ListTable } from '../ui.jsx';
import { TraceLink, traceparentTraceId } from './traces.jsx';

const statuses = ['open', 'replayed', 'discarded', 'all'];
// bulkMax is the most POST /api/dead-letters/requeue sends back at once.
const bulkMax = 1000;

// filterOf is the page's query as the list route's filter (status open
// unless asked otherwise; "all" is no status filter).
function filterOf(query) {
  const f = { topic: query.topic, event_type: query.event_type, from: query.from, to: query.to };
  const status = query.status || 'open';
  if (status !== 'all') f.status = status;
  return f;
}

// DeadLetters lists the dead letters by the filter; with open=<dead
// letter id> in the query string (a trace's link) that row is shown with
// its record opened.
export function DeadLetters() {
  const { query } = useLocation();
  const key = JSON.stringify(query);
  const { data, error, loading, reload } = useLoad(
    () => get('/api/dead-letters', { ...filterOf(query), limit: query.limit || 50, cursor: query.cursor }),
    [key],
  );
  return (
    <section>
      <h1>Dead letters</h1>
      <FilterForm
        fields={[
          { name: 'topic', label: 'Topic', placeholder: 'tasks' },
          { name: 'event_type', label: 'Event type', placeholder: 'task.created' },
          { name: 'status', label: 'Status', options: statuses, default: 'open' },
          { name: 'from', label: 'From', placeholder: '2026-01-04T01:00:00Z' },
          { name: 'to', label: 'To', placeholder: '2026-01-04T02:00:00Z' },
        ]}
        extra={<Since param="from" />}
      />
      <BulkRequeue filter={filterOf(query)} onDone={reload} />
      <Listing error={error} loading={loading} items={data && data.deadLetters} what="dead letters">
        {(dls) => (
          <ListTable testid="dead-letter-list" columns={['received', 'origin', 'reason', 'error', 'event', 'status', '']}>
            {dls.map((d) => (
              <DeadLetterRow d={d} onRequeued={reload} opened={d.dead_letter_id === query.open} key={d.dead_letter_id} />
            ))}
          </ListTable>
        )}
      </Listing>
      {data ? <Pager next={data.nextCursor} /> : null}
    </section>
  );
}

function DeadLetterRow({ d, onRequeued, opened }) {
  const [requeue, run] = useAction(() => post(`/api/dead-letters/${encodeURIComponent(d.dead_letter_id)}/requeue`), onRequeued);
  const value = decodeValue(d.value);
  return (
    <tr data-id={d.dead_letter_id} class={opened ? 'highlight' : ''}>
      <td>{fmtTime(d.received_at)}</td>
      <td>
        <code class="origin">{`${d.topic}-${d.partition}@${d.offset}`}</code>
        <div class="muted small">{d.processor}</div>
      </td>
      <td>
        <code>{d.reason}</code>
      </td>
      <td class="error-text">
        {d.error}
        <details open={opened}>
          <summary>record</summary>
          <Json value={{ key: d.key, headers: d.headers, value, record_timestamp: d.record_timestamp }} />
        </details>
        <ErrorBox error={requeue.error} />
      </td>
      <td>
        {d.event_type ? <code>{d.event_type}</code> : null}
        {d.aggregate_id ? (
          <div>
            <a href={`${base}/timeline/${encodeURIComponent(d.aggregate_id)}`}>{d.aggregate_id}</a>
          </div>
        ) : null}
        <TraceLink traceId={traceOf(value, d.headers)} />
      </td>
      <td>
        <Badge value={d.status} />
        {d.requeue_attempts ? <div class="muted small">requeued {d.requeue_attempts}×</div> : null}
      </td>
      <td>
        <button class="requeue" disabled={requeue.busy} onClick={() => run()}>
          {requeue.busy ? 'Requeuing…' : 'Requeue'}
        </button>
      </td>
    </tr>
  );
}

// traceOf is a dead-lettered record's trace id: its envelope's
// metadata.traceId, else its traceparent header's (a record that is no
// envelope may still carry the header), else ''.
function traceOf(value, headers) {
  const id = value && typeof value === 'object' && value.metadata && value.metadata.traceId;
  if (typeof id === 'string' && id) return id;
  const tp = (headers || []).find((h) => h.key === 'traceparent');
  return tp ? traceparentTraceId(tp.value) : '';
}

// decodeValue shows a record's value (base64 in JSON) as JSON when it is,
// else as text.
function decodeValue(b64) {
  if (!b64) return null;
  let text;
  try {
    text = new TextDecoder().decode(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)));
  } catch {
    return b64;
  }
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

// BulkRequeue counts what matches the filter, asks for confirmation with
// that count, then sends at most that many back (newest first, as listed)
// through POST /api/dead-letters/requeue. With no status filter it
// requeues the open ones, as the route does.
function BulkRequeue({ filter: f, onDone }) {
  const filter = { ...f, status: f.status || 'open' };
  const [step, setStep] = useState({ phase: 'idle' });
  const count = async () => {
    setStep({ phase: 'counting' });
    try {
      const page = await get('/api/dead-letters', { ...filter, limit: bulkMax });
      setStep({ phase: 'confirm', n: page.deadLetters.length, more: !!page.nextCursor });
    } catch (e) {
      setStep({ phase: 'idle', error: e });
    }
  };
  const requeue = async () => {
    const n = step.n;
    setStep({ phase: 'requeuing' });
    try {
      const res = await post('/api/dead-letters/requeue', { ...filter, limit: n });
      setStep({ phase: 'done', requeued: res.requeued });
      onDone();
    } catch (e) {
      setStep({ phase: 'idle', error: e });
    }
  };
  return (
    <div class="bulk">
      {step.phase === 'confirm' ? (
        <ConfirmCount
          n={step.n}
          empty="Nothing matches this filter."
          onYes={requeue}
          onCancel={() => setStep({ phase: 'idle' })}
        >
          Requeue <strong data-testid="bulk-count">{step.n}</strong> {filter.status} dead letter{step.n === 1 ? '' : 's'}
          {step.more ? ` (the first ${bulkMax}; more match)` : ''} back onto their topics?
        </ConfirmCount>
      ) : (
        <button onClick={count} disabled={step.phase === 'counting' || step.phase === 'requeuing'} data-testid="bulk-requeue">
          Requeue all matching…
        </button>
      )}
      {step.phase === 'done' ? <span class="ok"> Requeued {step.requeued}.</span> : null}
      <ErrorBox error={step.error} />
    </div>
  );
}
