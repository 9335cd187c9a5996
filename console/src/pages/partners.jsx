import { useContext, useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { get, post } from '../api.js';
import { useAction, useLoad } from '../hooks.js';
import { Principal } from '../principal.js';
import { base, ConfirmCount, ErrorBox, fmtTime, fmtDuration, Badge, FilterForm, Json, Listing, ListTable, Pager } from '../ui.jsx';
import { TraceLink } from './traces.jsx';
import { EnableControls, NewPartner, NotEditable, PartnerEditor, SecretOnce, takeSecret } from './partnereditor.jsx';

// Partners lists the partners in the token's scope with their delivery
// endpoint and its breaker; an admin creates one here.
export function Partners() {
  const principal = useContext(Principal);
  const { data, error, loading } = useLoad(() => get('/api/partners'), []);
  return (
    <section>
      <h1>Partners</h1>
      {principal.admin ? <NewPartner /> : null}
      <Listing error={error} loading={loading} items={data && data.partners} what="partners">
        {(partners) => (
          <ListTable
            testid="partner-list"
            columns={['partner', 'name', 'delivery endpoint', 'breaker', 'consecutive failures', 'last error', 'last success']}
          >
            {partners.map((p) => (
              <tr>
                <td>
                  <a href={`${base}/partners/${encodeURIComponent(p.partnerId)}`}>{p.partnerId}</a>
                </td>
                <td>{(p.config && p.config.name) || ''}</td>
                <td class="endpoint">
                  {p.config && p.config.deliveryUrl ? <code>{p.config.deliveryUrl}</code> : <span class="muted">none configured</span>}
                </td>
                <td>
                  <Badge value={p.state} />
                  {p.openUntil && p.state !== 'closed' ? <div class="muted small">until {fmtTime(p.openUntil)}</div> : null}
                </td>
                <td class="num">{p.consecutiveFailures}</td>
                <td class="error-text">{p.lastError || ''}</td>
                <td>{fmtTime(p.lastSuccessAt)}</td>
              </tr>
            ))}
          </ListTable>
        )}
      </Listing>
    </section>
  );
}

// pollMs is how often the partner page reads its state and deliveries
// again: a backlog drains and a hold ends without a reload.
const pollMs = 3000;

// Partner is one partner: its configuration (delivery endpoint, webhook
// routes), its delivery state (breaker, pause, hold, limits, backlog; read
// again every few seconds), an admin's pause and resume, disable and
// enable, the editor of a partner kept in the store (its fields,
// subscriptions, secrets, a test send, its deletion), its outbox
// deliveries with each one's delivery log (requeue, resend, bulk requeue)
// and seed 000's partner history. Right after a create it shows the new
// partner's signing secret, once.
export function Partner({ id }) {
  const principal = useContext(Principal);
  const ep = useLoad(() => get(`/api/partners/${encodeURIComponent(id)}/endpoint`), [id]);
  const evs = useLoad(() => get(`/api/partners/${encodeURIComponent(id)}/events`), [id]);
  const [created, setCreated] = useState(() => {
    const secret = takeSecret(id);
    return secret ? { id, secret } : null;
  });
  const [deleted, setDeleted] = useState(null);
  useEvery(pollMs, ep.reload, [id]);
  const managed = ep.data && ep.data.managed;
  const editable = !!(managed && !managed.deletedAt);
  return (
    <section>
      <h1>
        Partner <code>{id}</code>
      </h1>
      {!principal.admin && principal.partnerId !== id ? (
        <p class="muted">This token is scoped to partner {principal.partnerId}.</p>
      ) : null}
      {created && created.id === id ? (
        <SecretOnce partnerId={id} secret={created.secret} what="The signing secret" onDone={() => setCreated(null)} />
      ) : null}
      <ErrorBox error={ep.error} />
      {ep.data ? <Config partnerId={id} config={ep.data.config} /> : null}
      {ep.data ? <Status ep={ep.data} admin={principal.admin} editable={editable} partnerId={id} onChange={ep.reload} /> : null}
      {ep.data && editable ? (
        <PartnerEditor
          id={id}
          admin={principal.admin}
          backlog={(ep.data.backlog || { count: 0 }).count}
          open={!!created}
          onChange={ep.reload}
          onDeleted={(res) => {
            setDeleted(res);
            ep.reload();
          }}
        />
      ) : null}
      {ep.data && !editable ? <NotEditable id={id} managed={managed} deleted={deleted} /> : null}
      {ep.data ? <Deliveries partnerId={id} admin={principal.admin} onChange={ep.reload} /> : null}
      <h2>Partner history</h2>
      <Listing
        error={evs.error && (!ep.error || evs.error.status !== ep.error.status) ? evs.error : null}
        loading={evs.loading}
        items={evs.data && evs.data.events}
        what="partner events"
      >
        {(events) => (
          <ol class="events" data-testid="partner-events">
            {events.map((e) => (
              <li class={e.event_status === 'FAILED' ? 'failed' : ''} key={e._id} data-direction={e.event_direction}>
                <details>
                  <summary>
                    <time>{fmtTime(Number(e.created))}</time> <code>{e.event_direction}</code>{' '}
                    <code class="type">{e.event_type}</code> <Badge value={e.event_status} />{' '}
                    <span>
                      {e.entity_metadata.entity_type} {e.entity_metadata.entity_id}
                    </span>{' '}
                    <span class="muted">{attemptCount(e)} attempt(s)</span>
                  </summary>
                  <div class="detail">
                    <Attempts e={e} />
                    <h4>entity_data</h4>
                    <Json value={e.entity_data} />
                  </div>
                </details>
              </li>
            ))}
          </ol>
        )}
      </Listing>
    </section>
  );
}

// useEvery calls fn every ms milliseconds while the page shows deps.
function useEvery(ms, fn, deps) {
  useEffect(() => {
    const timer = setInterval(fn, ms);
    return () => clearInterval(timer);
  }, deps);
}

// Status is the partner's delivery state as the endpoint view says it:
// whether it is disabled (who, when, why: an operator or the
// auto-disable) and since when its deliveries fail, the breaker, an
// operator's pause (who, when, why), a hold the partner
// asked for (Retry-After), the configured rate limit and in-flight cap,
// and the backlog with the age of its oldest entry. An admin pauses and
// resumes here, and disables and enables a partner kept in the store
// (editable); a partner token sees the state only.
function Status({ ep, admin, editable, partnerId, onChange }) {
  const holding = ep.holdUntil && new Date(ep.holdUntil) > new Date();
  const managed = ep.managed || {};
  const disabled = !!(ep.disabled || managed.disabled);
  const backlog = ep.backlog || { count: 0 };
  return (
    <div class="state" data-testid="partner-endpoint" data-paused={ep.paused ? 'true' : 'false'}>
      <dl class="status" data-testid="partner-status">
        <dt>delivery</dt>
        <dd data-testid="pause-state">
          {ep.paused ? (
            <>
              <Badge value="paused" /> by <strong data-testid="paused-by">{ep.pausedBy || '—'}</strong> at {fmtTime(ep.pausedAt)}
              {ep.pauseReason ? (
                <>
                  : <q data-testid="pause-reason">{ep.pauseReason}</q>
                </>
              ) : null}
            </>
          ) : (
            <>
              <Badge value="delivering" />
              {ep.resumedAt ? (
                <span class="muted small">
                  {' '}
                  resumed by {ep.resumedBy || '—'} at {fmtTime(ep.resumedAt)}
                </span>
              ) : null}
            </>
          )}
          {admin ? <PauseControls partnerId={partnerId} paused={!!ep.paused} onChange={onChange} /> : null}
        </dd>
        <dt>enabled</dt>
        <dd data-testid="disabled-state" data-disabled={disabled ? 'true' : 'false'}>
          {disabled ? (
            <>
              <Badge value="disabled" /> by <strong data-testid="disabled-by">{managed.disabledBy || '—'}</strong>
              {managed.disabledAt ? ` at ${fmtTime(managed.disabledAt)}` : ''}
              {managed.disabledReason ? (
                <>
                  : <q data-testid="disabled-reason">{managed.disabledReason}</q>
                </>
              ) : null}
              <span class="muted small"> nothing is sent until it is enabled; its deliveries wait</span>
            </>
          ) : (
            <Badge value="enabled" />
          )}
          {ep.failingSince ? (
            <span class="muted small" data-testid="failing-since">
              {' '}
              every delivery failing since {fmtTime(ep.failingSince)}
            </span>
          ) : null}
          {admin && editable ? <EnableControls partnerId={partnerId} disabled={disabled} backlog={backlog.count} onChange={onChange} /> : null}
        </dd>
        <dt>breaker</dt>
        <dd>
          <Badge value={ep.state} /> {ep.consecutiveFailures} consecutive failure{ep.consecutiveFailures === 1 ? '' : 's'}
          {ep.openUntil && ep.state !== 'closed' ? `, deliveries wait until ${fmtTime(ep.openUntil)}` : ''}
          {ep.lastSuccessAt ? `, last success ${fmtTime(ep.lastSuccessAt)}` : ''}
        </dd>
        <dt>hold</dt>
        <dd data-testid="hold">
          {holding ? (
            <>
              <Badge value="held" /> until {fmtTime(ep.holdUntil)}
              {ep.holdStatusCode ? (
                <span>
                  {' '}
                  (the partner answered <code>{ep.holdStatusCode}</code>
                  {ep.holdRetryAfter ? (
                    <>
                      {' '}
                      with <code>Retry-After: {ep.holdRetryAfter}</code>
                    </>
                  ) : null}
                  )
                </span>
              ) : null}
            </>
          ) : (
            <span class="muted">none{ep.holdUntil ? ` (the last ended ${fmtTime(ep.holdUntil)})` : ''}</span>
          )}
        </dd>
        <dt>limits</dt>
        <dd data-testid="limits">
          rate limit {ep.rateLimit ? <strong>{ep.rateLimit}/s</strong> : <span class="muted">unlimited</span>}, in flight at most{' '}
          {ep.maxInFlight ? <strong>{ep.maxInFlight}</strong> : <span class="muted">unlimited</span>}
        </dd>
        <dt>backlog</dt>
        <dd data-testid="backlog" data-count={backlog.count}>
          <strong data-testid="backlog-count">{backlog.count}</strong> waiting
          {backlog.count > 0 && backlog.oldestCreatedAt ? (
            <span>
              , the oldest for <strong data-testid="backlog-age">{fmtDuration((backlog.oldestAgeSeconds || 0) * 1000)}</strong>{' '}
              <span class="muted small">(created {fmtTime(backlog.oldestCreatedAt)})</span>
            </span>
          ) : null}
        </dd>
      </dl>
      {ep.lastError ? <div class="error">last error: {ep.lastError}</div> : null}
    </div>
  );
}

// PauseControls: Pause asks for an optional reason first; Resume lets the
// backlog drain.
function PauseControls({ partnerId, paused, onChange }) {
  const [asking, setAsking] = useState(false);
  const path = `/api/partners/${encodeURIComponent(partnerId)}`;
  const [pause, runPause] = useAction(
    (reason) => post(`${path}/pause`, reason ? { reason } : {}),
    (err) => {
      if (!err) setAsking(false);
      onChange();
    },
  );
  const [resume, runResume] = useAction(() => post(`${path}/resume`), onChange);
  return (
    <div class="controls">
      {paused ? (
        <button data-testid="resume" disabled={resume.busy} onClick={() => runResume()}>
          {resume.busy ? 'Resuming…' : 'Resume'}
        </button>
      ) : asking ? (
        <form
          class="confirm"
          role="dialog"
          data-testid="pause-confirm"
          onSubmit={(e) => {
            e.preventDefault();
            runPause(String(new FormData(e.currentTarget).get('reason') || '').trim());
          }}
        >
          <label>
            <span>Reason (optional) </span>
            <input name="reason" placeholder="partner maintenance" />
          </label>{' '}
          <button class="danger" type="submit" disabled={pause.busy} data-testid="pause-yes">
            Pause deliveries
          </button>{' '}
          <button class="secondary" type="button" onClick={() => setAsking(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <button data-testid="pause" onClick={() => setAsking(true)}>
          Pause…
        </button>
      )}
      <ErrorBox error={pause.error || resume.error} />
    </div>
  );
}

const deliveryStatuses = ['', 'pending', 'processing', 'completed', 'failed', 'dead_letter'];

// Deliveries is the partner's outbox entries, newest first, filtered by
// status (the page's query string) and paged by the API's cursor, read
// again every few seconds; each row opens its delivery log. The actions
// are an admin's.
function Deliveries({ partnerId, admin, onChange }) {
  const { query } = useLocation();
  const key = JSON.stringify([partnerId, query.status, query.cursor, query.limit]);
  const list = useLoad(
    () => get(`/api/partners/${encodeURIComponent(partnerId)}/deliveries`, { status: query.status, limit: query.limit || 20, cursor: query.cursor }),
    [key],
  );
  useEvery(pollMs, list.reload, [key]);
  const changed = () => {
    list.reload();
    onChange();
  };
  return (
    <>
      <h2>Deliveries</h2>
      <FilterForm fields={[{ name: 'status', label: 'Status', options: deliveryStatuses }]} />
      {admin ? <BulkRequeue partnerId={partnerId} onDone={changed} /> : null}
      <Listing error={list.error} loading={list.loading && !list.data} items={list.data && list.data.deliveries} what="deliveries">
        {(ds) => (
          <ListTable testid="delivery-list" columns={['created', 'event', 'status', 'attempts', 'last error', '']}>
            {ds.map((d) => (
              <DeliveryRow d={d} key={d.outboxId} admin={admin} onChange={changed} />
            ))}
          </ListTable>
        )}
      </Listing>
      {list.data ? <Pager next={list.data.nextCursor} /> : null}
    </>
  );
}

// DeliveryRow is one outbox entry; Log opens its delivery log below it.
// A dead-lettered entry may be requeued, a completed one resent: each
// starts a new round whose attempts join the same log.
function DeliveryRow({ d, admin, onChange }) {
  const [open, setOpen] = useState(false);
  const path = `/api/outbox/${encodeURIComponent(d.outboxId)}`;
  const [act, run] = useAction((verb) => post(`${path}/${verb}`), onChange);
  const logLen = (d.deliveryLog || []).length;
  return (
    <>
      <tr data-id={d.outboxId} data-status={d.status} class={open ? 'highlight' : ''}>
        <td>{fmtTime(d.createdAt)}</td>
        <td>
          <code class="type">{d.eventType}</code>
          <div class="muted small">
            {d.aggregateType} {d.aggregateId}
          </div>
        </td>
        <td>
          <Badge value={d.status} />
          {d.requeues ? <div class="muted small">requeued {d.requeues}×</div> : null}
          {d.resends ? <div class="muted small">resent {d.resends}×</div> : null}
        </td>
        <td class="num">
          {d.attempts}/{d.maxAttempts}
        </td>
        <td class="error-text">
          {d.status !== 'completed' ? d.lastError || '' : ''}
          <ErrorBox error={act.error} />
        </td>
        <td class="actions">
          <button class="secondary" data-testid="log-toggle" onClick={() => setOpen(!open)}>
            {open ? 'Hide log' : `Log (${logLen})`}
          </button>{' '}
          {admin && d.status === 'dead_letter' ? (
            <button data-testid="requeue" disabled={act.busy} onClick={() => run('requeue')}>
              Requeue
            </button>
          ) : null}
          {admin && d.status === 'completed' ? (
            <button data-testid="resend" disabled={act.busy} onClick={() => run('resend')}>
              Resend
            </button>
          ) : null}
        </td>
      </tr>
      {open ? (
        <tr class="log-row" data-log-of={d.outboxId}>
          <td colspan={6}>
            <DeliveryLog id={d.outboxId} version={`${d.status}/${d.attempts}/${logLen}`} />
          </td>
        </tr>
      ) : null}
    </>
  );
}

// DeliveryLog reads the entry (GET /api/outbox/{id}) again whenever the
// listing shows it changed, and lists its attempts: when, how long, the
// partner's status code, the relay's outcome (throttled included), the
// error and the first KiB of the answer's body, with the entry's trace.
function DeliveryLog({ id, version }) {
  const e = useLoad(() => get(`/api/outbox/${encodeURIComponent(id)}`), [id, version]);
  if (e.error) return <ErrorBox error={e.error} />;
  if (!e.data) return <p class="muted">Loading…</p>;
  const log = e.data.deliveryLog || [];
  if (log.length === 0) return <p class="muted">No attempt yet.</p>;
  return (
    <ListTable class="list attempts" testid="delivery-log" columns={['at', 'duration', 'status code', 'outcome', 'error', 'answer', '']}>
      {log.map((a, i) => (
        <tr key={i} data-outcome={a.outcome}>
          <td>{fmtTime(a.at)}</td>
          <td class="num">{fmtDuration(a.durationMs ?? a.duration_ms)}</td>
          <td class="num">{(a.statusCode ?? a.status_code) || '—'}</td>
          <td>
            <Badge value={a.outcome} />
          </td>
          <td class="error-text">{a.error || ''}</td>
          <td>
            {(a.responseBody ?? a.response_body) ? <pre class="body" data-testid="response-body">{a.responseBody ?? a.response_body}</pre> : null}
          </td>
          <td>
            <TraceLink traceId={e.data.traceId} />
          </td>
        </tr>
      ))}
    </ListTable>
  );
}

// BulkRequeue requeues every dead-lettered delivery of the partner (of an
// event type, when one is given) after the API's count: the first call
// only counts, the second confirms that exact count, and when more or
// fewer match by then the API refuses (409 count_changed) and the new
// count is asked for again.
function BulkRequeue({ partnerId, onDone }) {
  const [step, setStep] = useState({ phase: 'idle' });
  const [eventType, setEventType] = useState('');
  const path = `/api/partners/${encodeURIComponent(partnerId)}/requeue`;
  const filter = () => (eventType.trim() ? { status: 'dead_letter', eventType: eventType.trim() } : { status: 'dead_letter' });
  const count = async (note) => {
    setStep({ phase: 'counting' });
    try {
      const res = await post(path, filter());
      setStep({ phase: 'confirm', n: res.matched, note });
    } catch (e) {
      setStep({ phase: 'idle', error: e });
    }
  };
  const requeue = async () => {
    const n = step.n;
    setStep({ phase: 'requeuing', n });
    try {
      const res = await post(path, { ...filter(), confirm: n });
      setStep({ phase: 'done', requeued: res.requeued });
      onDone();
    } catch (e) {
      if (e.status === 409 && e.code === 'count_changed') {
        const matched = e.body && (e.body.matched ?? (e.body.error && e.body.error.matched));
        const note = `The count changed from ${n}: confirm the new count.`;
        if (typeof matched === 'number') setStep({ phase: 'confirm', n: matched, note });
        else count(note);
        return;
      }
      setStep({ phase: 'idle', error: e });
    }
  };
  return (
    <div class="bulk" data-testid="bulk-requeue-box">
      {step.phase === 'confirm' ? (
        <ConfirmCount
          n={step.n}
          note={step.note}
          empty="No dead-lettered delivery matches."
          onYes={requeue}
          onCancel={() => setStep({ phase: 'idle' })}
        >
          Requeue <strong data-testid="bulk-count">{step.n}</strong> dead-lettered deliver{step.n === 1 ? 'y' : 'ies'}
          {eventType.trim() ? ` of ${eventType.trim()}` : ''} to {partnerId}?
        </ConfirmCount>
      ) : (
        <span>
          <input
            name="bulkEventType"
            placeholder="event type (any)"
            value={eventType}
            onInput={(e) => setEventType(e.currentTarget.value)}
            aria-label="event type"
          />{' '}
          <button onClick={() => count()} disabled={step.phase === 'counting' || step.phase === 'requeuing'} data-testid="bulk-requeue">
            Requeue dead letters…
          </button>
        </span>
      )}
      {step.phase === 'done' ? (
        <span class="ok" data-testid="bulk-done">
          {' '}
          Requeued {step.requeued}.
        </span>
      ) : null}
      <ErrorBox error={step.error} />
    </div>
  );
}

// Config is what the deployment configures for the partner: the endpoint
// the outbox relay delivers to (without credentials: the API redacts
// them) and the webhook routes its deliveries to us arrive on.
function Config({ partnerId, config }) {
  if (!config) {
    return (
      <p class="muted" data-testid="partner-config">
        Partner {partnerId} is not configured in this deployment: no delivery endpoint (the partners file does not name it) and no
        webhook route.
      </p>
    );
  }
  return (
    <dl class="config" data-testid="partner-config">
      <dt>name</dt>
      <dd>{config.name || '—'}</dd>
      <dt>delivery endpoint</dt>
      <dd data-testid="delivery-url">
        {config.deliveryUrl ? (
          <>
            <code>POST {config.deliveryUrl}</code> <span class="muted small">signed with Standard Webhooks headers</span>
          </>
        ) : (
          <span class="muted">none: the partners file does not name it, so nothing is delivered to it</span>
        )}
      </dd>
      <dt>webhooks in</dt>
      <dd>
        {(config.webhooks || []).length === 0 ? <span class="muted">none</span> : null}
        {(config.webhooks || []).map((w) => (
          <div key={w.provider}>
            <code>POST {w.path}</code> <span class="muted small">({w.signatureScheme} signature)</span>
          </div>
        ))}
      </dd>
    </dl>
  );
}

function attemptCount(e) {
  return Object.keys(e.entity_metadata.resilienceAttemptCount || {}).length;
}

// Attempts is seed 000's resilienceAttemptCount: attempt number → epoch
// milliseconds, with the wait before each retry.
function Attempts({ e }) {
  const log = Object.entries(e.entity_metadata.resilienceAttemptCount || {})
    .map(([n, ms]) => [Number(n), Number(ms)])
    .sort((a, b) => a[0] - b[0]);
  if (log.length === 0) return <p class="muted">No delivery attempts (an inbound event).</p>;
  return (
    <ListTable class="list attempts" testid="attempt-log" columns={['attempt', 'at', 'after the previous']}>
      {log.map(([n, ms], i) => (
        <tr>
          <td>{n}</td>
          <td>{fmtTime(ms)}</td>
          <td>{i === 0 ? '—' : fmtDuration(ms - log[i - 1][1])}</td>
        </tr>
      ))}
    </ListTable>
  );
}
