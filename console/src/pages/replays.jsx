import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { get, post } from '../api.js';
import { useAction, useLoad } from '../hooks.js';
import { base, ErrorBox, Loading, fmtTime, FilterForm, Badge, ListTable, Listing } from '../ui.jsx';
import { EventList } from './events.jsx';
import { loadFilterFields } from '../filters.js';

// replayFilter turns the page's query (the API's ReplayFilter parameter
// names) into the body's filter: lists split at commas, times as given.
function replayFilter(query, fields) {
  const f = {};
  for (const { name, list } of fields) {
    const v = query[name];
    if (!v) continue;
    f[name] = list ? v.split(',').map((s) => s.trim()).filter(Boolean) : v;
  }
  return f;
}

// Replays: the filter in the URL, a dry run (count and sample) of it,
// then the replay itself, a background job whose session page follows
// its progress; below, the recent sessions.
export function Replays() {
  const { query, route } = useLocation();
  const fields = useLoad(loadFilterFields, []);
  const filter = fields.data ? replayFilter(query, fields.data) : {};
  const hasFilter = Object.keys(filter).length > 0;
  const key = JSON.stringify(query);
  const preview = useLoad(
    () => (hasFilter ? post('/api/replays', { filter, dryRun: true }) : Promise.resolve(null)),
    [key, Boolean(fields.data)],
  );
  const [start, setStart] = useState({ busy: false, error: null });
  const rate = query.rate_per_second ? Number(query.rate_per_second) : undefined;
  const run = async () => {
    setStart({ busy: true, error: null });
    try {
      const rs = await post('/api/replays', { filter, targetTopic: query.target_topic || undefined, ratePerSecond: rate });
      route(`${base}/replays/${encodeURIComponent(rs.session_id)}`);
    } catch (e) {
      setStart({ busy: false, error: e });
    }
  };
  return (
    <section>
      <h1>Replays</h1>
      <p class="muted">
        Choose the events to replay; the dry run below shows how many and a sample before anything is published. A replay runs in
        the background at its rate (events per second; the API's default when empty).
      </p>
      {fields.data ? (
        <FilterForm
          fields={[
            ...fields.data,
            { name: 'target_topic', label: 'Target topic', placeholder: 'their own topic' },
            { name: 'rate_per_second', label: 'Rate (events/s)', placeholder: '500' },
          ]}
          submit="Dry run"
        />
      ) : (
        <ErrorBox error={fields.error} />
      )}
      <ErrorBox error={preview.error} />
      <Loading when={hasFilter && preview.loading} />
      {preview.data ? (
        <div class="preview" data-testid="replay-preview">
          <p>
            <strong data-testid="replay-count">{preview.data.count}</strong> {preview.data.count === 1 ? 'event matches' : 'events match'}
            {query.target_topic ? ` (to ${query.target_topic})` : ''}
            {rate ? `, at most ${rate}/s` : ''}.{' '}
            <button class="danger" disabled={start.busy || preview.data.count === 0} onClick={run} data-testid="replay-start">
              {start.busy ? 'Starting…' : `Replay ${preview.data.count}`}
            </button>
          </p>
          <ErrorBox error={start.error} />
          <h3>Sample</h3>
          <EventList events={preview.data.sample || []} />
        </div>
      ) : null}
      <RecentReplays />
    </section>
  );
}

// RecentReplays lists the newest sessions (GET /api/replays), each with
// its status and a small progress bar; it polls while one is running.
function RecentReplays() {
  const { data, error, loading, reload } = useLoad(() => get('/api/replays', { limit: 20 }), []);
  const items = data ? data.replays : null;
  const anyRunning = !!items && items.some((rs) => rs.status === 'running');
  usePoll(anyRunning, reload, data);
  return (
    <>
      <h2>Recent replays</h2>
      <Listing error={error} loading={loading && !data} items={items} what="replay sessions">
        {(list) => (
          <ListTable testid="replay-list" columns={['session', 'status', 'progress', 'failed', 'started']}>
            {list.map((rs) => {
              const p = progressOf(rs);
              return (
                <tr key={rs.session_id}>
                  <td>
                    <a href={`${base}/replays/${encodeURIComponent(rs.session_id)}`}>
                      <code>{rs.session_id}</code>
                    </a>
                  </td>
                  <td>
                    <Badge value={rs.status} />
                  </td>
                  <td class="nowrap">
                    <progress class="small" max="100" value={p.percent} /> {p.done}/{p.total}
                  </td>
                  <td>{rs.failed_events}</td>
                  <td>{fmtTime(rs.created_at)}</td>
                </tr>
              );
            })}
          </ListTable>
        )}
      </Listing>
    </>
  );
}

// usePoll calls reload a second after each answer (data) while on.
function usePoll(on, reload, data) {
  useEffect(() => {
    if (!on) return undefined;
    const t = setTimeout(reload, 1000);
    return () => clearTimeout(t);
  }, [on, data]);
}

// progressOf is a session's progress as the API gives it, or derived from
// its counts.
function progressOf(rs) {
  if (rs.progress) return rs.progress;
  const done = rs.replayed_events + rs.failed_events;
  return { done, total: rs.total_events, percent: rs.total_events ? (100 * done) / rs.total_events : 100 };
}

// fmtETA is a number of seconds left, to the second.
function fmtETA(s) {
  if (s === undefined || s === null) return '—';
  const t = Math.round(s);
  if (t < 60) return `${t} s`;
  if (t < 3600) return `${Math.floor(t / 60)} min ${t % 60} s`;
  return `${Math.floor(t / 3600)} h ${Math.floor((t % 3600) / 60)} min`;
}

// ReplaySession polls GET /api/replays/{id} every second until it ends.
export function ReplaySession({ id }) {
  const path = `/api/replays/${encodeURIComponent(id)}`;
  const { data, error, loading, reload } = useLoad(() => get(path), [id]);
  usePoll(!!data && data.status === 'running', reload, data);
  // A cancel answers the session; show it at once, then keep polling.
  const [cancelled, setCancelled] = useState(null);
  const rs = cancelled && (!data || cancelled.updated_at >= data.updated_at) ? cancelled : data;
  return (
    <section>
      <h1>
        Replay <code>{id}</code>
      </h1>
      <p>
        <a href={`${base}/replays`}>« All replays</a>
      </p>
      <ErrorBox error={error} />
      <Loading when={loading && !data} />
      {rs ? <Session rs={rs} path={path} onCancelled={setCancelled} /> : null}
    </section>
  );
}

function Session({ rs, path, onCancelled }) {
  const p = progressOf(rs);
  const running = rs.status === 'running';
  return (
    <div data-testid="replay-session" data-status={rs.status}>
      <p>
        <Badge value={rs.status} /> started {fmtTime(rs.created_at)}
        {rs.completed_at ? `, ended ${fmtTime(rs.completed_at)}` : ''}
        {rs.config.target_topic ? `, to ${rs.config.target_topic}` : ''}
        {rs.config.rate_per_second ? `, at most ${rs.config.rate_per_second}/s` : ''}
      </p>
      <div class="replay-progress">
        <progress max="100" value={p.percent} data-testid="replay-bar">
          {Math.floor(p.percent)}%
        </progress>
        <span data-testid="replay-done" data-done={p.done} data-total={p.total}>
          {p.done} / {p.total} ({p.percent.toFixed(1)}%)
        </span>
      </div>
      <dl class="replay-stats">
        <dt>Replayed</dt>
        <dd>{rs.replayed_events}</dd>
        <dt>Failed</dt>
        <dd data-testid="replay-failed">{rs.failed_events}</dd>
        <dt>Rate</dt>
        <dd>{p.rate_per_second !== undefined ? `${p.rate_per_second.toFixed(1)} events/s` : '—'}</dd>
        <dt>Time left</dt>
        <dd data-testid="replay-eta">{running ? fmtETA(p.eta_seconds) : '—'}</dd>
      </dl>
      {running ? <CancelReplay path={path} onCancelled={onCancelled} /> : null}
      <h3>Errors ({rs.errors.length + (rs.errors_dropped || 0)})</h3>
      {rs.errors.length === 0 ? (
        <p class="muted">None.</p>
      ) : (
        <ListTable testid="replay-errors" columns={['at', 'type', 'event', 'error']}>
          {rs.errors.map((e) => (
            <tr>
              <td>{fmtTime(e.timestamp)}</td>
              <td>{e.error_type || '—'}</td>
              <td>{e.event_id || 'the session'}</td>
              <td class="error-text">{e.error}</td>
            </tr>
          ))}
        </ListTable>
      )}
      {rs.errors_dropped ? (
        <p class="muted" data-testid="replay-errors-dropped">
          {rs.errors_dropped} more error{rs.errors_dropped === 1 ? '' : 's'} not kept (the list is bounded).
        </p>
      ) : null}
      <h3>Filter</h3>
      <pre class="json">{JSON.stringify(rs.config.filter, null, 2)}</pre>
    </div>
  );
}

// CancelReplay asks, then cancels the session (POST …/cancel); what is
// already replayed stays replayed.
function CancelReplay({ path, onCancelled }) {
  const [asking, setAsking] = useState(false);
  const [state, cancel] = useAction(
    async () => onCancelled(await post(`${path}/cancel`)),
    () => setAsking(false),
  );
  return (
    <div class="bulk">
      {asking ? (
        <div class="confirm" role="dialog" data-testid="replay-cancel-confirm">
          <span>Stop this replay? The events already replayed stay replayed; the rest are not.</span>{' '}
          <button class="danger" onClick={() => cancel()} disabled={state.busy} data-testid="replay-cancel-yes">
            Cancel the replay
          </button>{' '}
          <button class="secondary" onClick={() => setAsking(false)}>
            Keep it running
          </button>
        </div>
      ) : (
        <button class="danger" onClick={() => setAsking(true)} data-testid="replay-cancel">
          Cancel…
        </button>
      )}
      <ErrorBox error={state.error} />
    </div>
  );
}
