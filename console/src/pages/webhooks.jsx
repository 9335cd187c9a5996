import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { get, post } from '../api.js';
import { useAction, useConfirmed, useLoad } from '../hooks.js';
import { base, Confirm, ErrorBox, fmtTime, FilterForm, Since, Pager, Json, Badge, Listing } from '../ui.jsx';
import { TraceLink } from './traces.jsx';

// WebhookTrace links a webhook event's trace: its row's trace_id, or for a
// row stored without one, the trace its webhook.received event carries.
function WebhookTrace({ w }) {
  const ev = useLoad(
    () => (w.trace_id ? Promise.resolve(null) : get('/api/events', { execution_id: w.event_id, event_types: 'webhook.received', limit: 1 })),
    [w.event_id, w.trace_id],
  );
  const first = ev.data && ev.data.events && ev.data.events[0];
  return <TraceLink traceId={w.trace_id || (first && first.metadata && first.metadata.traceId)} label="Trace of this delivery" />;
}

const statuses = ['', 'received', 'processing', 'completed', 'failed', 'skipped'];

// Webhooks lists the webhook events by the filter; with open=<event id>
// in the query string (a trace's link) that row is shown opened.
export function Webhooks() {
  const { query } = useLocation();
  const key = JSON.stringify(query);
  const { open, ...filter } = query;
  const { data, error, loading, reload } = useLoad(() => get('/api/webhook-events', { limit: 50, ...filter }), [key]);
  return (
    <section>
      <h1>Webhook events</h1>
      <FilterForm
        fields={[
          { name: 'provider', label: 'Provider', placeholder: 'stripe' },
          { name: 'status', label: 'Status', options: statuses },
          { name: 'from', label: 'From', placeholder: '2026-01-04T01:00:00Z' },
          { name: 'to', label: 'To', placeholder: '2026-01-04T02:00:00Z' },
        ]}
        extra={<Since param="from" />}
      />
      <Listing error={error} loading={loading} items={data && data.webhookEvents} what="webhook events">
        {(evs) => (
          <ol class="events" data-testid="webhook-list">
            {evs.map((w) => (
              <WebhookRow w={w} onRetried={reload} opened={w.event_id === open} key={w.event_id} />
            ))}
          </ol>
        )}
      </Listing>
      {data ? <Pager next={data.nextCursor} /> : null}
    </section>
  );
}

// runEnded says whether the row's current attempt reached its end: a
// completed or skipped row, or a failed one whose run started (run_id).
// Such a row is never routed again by a plain retry (the API answers 409);
// only a new attempt, asked for with a reason, runs it again.
function runEnded(w) {
  return w.status === 'completed' || w.status === 'skipped' || (w.status === 'failed' && !!w.run_id);
}

function WebhookRow({ w, onRetried, opened }) {
  const [shown, setShown] = useState(!!opened);
  // A routing failure routed again may fail again: the API's answer says
  // why, and the row (status, retry_count) changed either way.
  const [retry, run] = useAction(() => post(`/api/webhook-events/${encodeURIComponent(w.event_id)}/retry`), onRetried);
  return (
    <li class={w.status === 'failed' ? 'failed' : ''} data-id={w.event_id}>
      <details open={opened} class={opened ? 'highlight' : ''} onToggle={(e) => setShown(e.currentTarget.open)}>
        <summary>
          <time>{fmtTime(w.received_at)}</time> <code>{w.provider}</code> <code class="type">{w.event_type}</code>{' '}
          <Badge value={w.status} /> <span class="muted">{w.provider_event_id}</span>
          {w.retry_count ? <span class="muted"> attempts {w.retry_count}</span> : null}
          {w.attempt > 1 ? <span class="muted"> (new attempt {w.attempt})</span> : null}
        </summary>
        <div class="detail">
          {w.error_message ? <div class="error">{w.error_message}</div> : null}
          <p>
            <a href={`${base}/events?execution_id=${encodeURIComponent(w.event_id)}`}>Events of this delivery</a>
            {w.run_id ? (
              <>
                {' '}
                <a href={`${base}/timeline/${encodeURIComponent(w.run_id)}`}>Run {w.run_id}</a>
              </>
            ) : null}
            {shown ? <WebhookTrace w={w} /> : null}
          </p>
          {w.attempts && w.attempts.length ? (
            <ul class="attempts" data-testid="webhook-attempts">
              {w.attempts.map((a) => (
                <li key={a.attempt}>
                  attempt {a.attempt} by {a.requestedBy || 'unknown'} at {fmtTime(a.requestedAt)} after {a.previousStatus}: {a.reason}
                </li>
              ))}
            </ul>
          ) : null}
          <h4>Stored payload (redacted)</h4>
          <Json value={w.payload} />
        </div>
      </details>
      {w.status === 'failed' && !w.run_id ? (
        <button class="retry" disabled={retry.busy} onClick={() => run()}>
          {retry.busy ? 'Retrying…' : 'Retry'}
        </button>
      ) : null}
      {runEnded(w) ? <NewAttempt w={w} onDone={onRetried} /> : null}
      <ErrorBox error={retry.error} />
    </li>
  );
}

// NewAttempt asks for a new attempt of a row whose run ended (POST
// /api/webhook-events/{id}/retry with newAttempt and a reason), after a
// confirmation naming what runs again. One Idempotency-Key per attempt
// asked, so a double click starts one.
function NewAttempt({ w, onDone }) {
  const [reason, setReason] = useState('');
  const next = (w.attempt || 1) + 1;
  const [step, setStep, start] = useConfirmed(() => {
    const key = `console-${w.event_id}-attempt-${next}`;
    return post(`/api/webhook-events/${encodeURIComponent(w.event_id)}/retry`, { newAttempt: true, reason }, { 'Idempotency-Key': key });
  }, onDone);
  return (
    <div class="rerun" data-testid="webhook-new-attempt">
      {step.phase === 'confirm' ? (
        <Confirm yes={`Start attempt ${next}`} testid="new-attempt" onYes={start} onCancel={() => setStep({ phase: 'idle' })}>
          Start attempt {next} of this {w.status} delivery? Its workflow or task runs again from the start, with new ids: every step's
          effects (partner deliveries, emails, records) happen again.
        </Confirm>
      ) : (
        <span>
          <label>
            reason{' '}
            <input name="reason" value={reason} placeholder="why it runs again" onInput={(e) => setReason(e.currentTarget.value)} />
          </label>{' '}
          <button onClick={() => setStep({ phase: 'confirm' })} disabled={step.phase === 'running' || !reason.trim()} data-testid="new-attempt-open">
            New attempt…
          </button>
        </span>
      )}
      <ErrorBox error={step.error} />
    </div>
  );
}
