import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { get, post } from '../api.js';
import { useLoad } from '../hooks.js';
import { base, ErrorBox, Loading, fmtTime, FilterForm, Badge, ListTable } from '../ui.jsx';
import { filterFields, EventList } from './events.jsx';

// replayFilter turns the page's query (the API's ReplayFilter parameter
// names) into the body's filter: lists split at commas, times as given.
function replayFilter(query) {
  const f = {};
  for (const { name } of filterFields) {
    const v = query[name];
    if (!v) continue;
    f[name] = ['event_types', 'exclude_event_types', 'event_ids'].includes(name)
      ? v.split(',').map((s) => s.trim()).filter(Boolean)
      : v;
  }
  return f;
}

// Replays: the filter in the URL, a dry run (count and sample) of it,
// then the replay itself, whose session page shows its progress.
export function Replays() {
  const { query, route } = useLocation();
  const filter = replayFilter(query);
  const hasFilter = Object.keys(filter).length > 0;
  const key = JSON.stringify(query);
  const preview = useLoad(
    () => (hasFilter ? post('/api/replays', { filter, dryRun: true }) : Promise.resolve(null)),
    [key],
  );
  const [start, setStart] = useState({ busy: false, error: null });
  const run = async () => {
    setStart({ busy: true, error: null });
    try {
      const rs = await post('/api/replays', { filter, targetTopic: query.target_topic || undefined });
      route(`${base}/replays/${encodeURIComponent(rs.session_id)}`);
    } catch (e) {
      setStart({ busy: false, error: e });
    }
  };
  return (
    <section>
      <h1>Replays</h1>
      <p class="muted">Choose the events to replay; the dry run below shows how many and a sample before anything is published.</p>
      <FilterForm
        fields={[...filterFields, { name: 'target_topic', label: 'Target topic', placeholder: 'their own topic' }]}
        submit="Dry run"
      />
      <ErrorBox error={preview.error} />
      <Loading when={hasFilter && preview.loading} />
      {preview.data ? (
        <div class="preview" data-testid="replay-preview">
          <p>
            <strong data-testid="replay-count">{preview.data.count}</strong> {preview.data.count === 1 ? 'event matches' : 'events match'}
            {query.target_topic ? ` (to ${query.target_topic})` : ''}.{' '}
            <button class="danger" disabled={start.busy || preview.data.count === 0} onClick={run} data-testid="replay-start">
              {start.busy ? 'Starting…' : `Replay ${preview.data.count}`}
            </button>
          </p>
          <ErrorBox error={start.error} />
          <h3>Sample</h3>
          <EventList events={preview.data.sample || []} />
        </div>
      ) : null}
    </section>
  );
}

// ReplaySession polls GET /api/replays/{id} every second until it ends.
export function ReplaySession({ id }) {
  const { data, error, loading, reload } = useLoad(() => get(`/api/replays/${encodeURIComponent(id)}`), [id]);
  const running = data && data.status === 'running';
  useEffect(() => {
    if (!running) return undefined;
    const t = setTimeout(reload, 1000);
    return () => clearTimeout(t);
  }, [data]);
  return (
    <section>
      <h1>
        Replay <code>{id}</code>
      </h1>
      <ErrorBox error={error} />
      <Loading when={loading && !data} />
      {data ? <Session rs={data} /> : null}
    </section>
  );
}

function Session({ rs }) {
  const done = rs.replayed_events + rs.failed_events;
  const pct = rs.total_events ? Math.round((100 * done) / rs.total_events) : 100;
  return (
    <div data-testid="replay-session">
      <p>
        <Badge value={rs.status} /> {rs.replayed_events} replayed, {rs.failed_events} failed of {rs.total_events}; started{' '}
        {fmtTime(rs.created_at)}
        {rs.completed_at ? `, ended ${fmtTime(rs.completed_at)}` : ''}
        {rs.config.target_topic ? `, to ${rs.config.target_topic}` : ''}
      </p>
      <progress max="100" value={pct}>
        {pct}%
      </progress>
      <h3>Errors ({rs.errors.length})</h3>
      {rs.errors.length === 0 ? (
        <p class="muted">None.</p>
      ) : (
        <ListTable testid="replay-errors" columns={['at', 'event', 'type', 'error']}>
          {rs.errors.map((e) => (
            <tr>
              <td>{fmtTime(e.timestamp)}</td>
              <td>{e.event_id || '—'}</td>
              <td>{e.error_type || '—'}</td>
              <td class="error-text">{e.error}</td>
            </tr>
          ))}
        </ListTable>
      )}
      <h3>Filter</h3>
      <pre class="json">{JSON.stringify(rs.config.filter, null, 2)}</pre>
    </div>
  );
}
