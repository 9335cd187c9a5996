import { useLocation } from 'preact-iso/router';
import { get } from '../api.js';
import { useLoad } from '../hooks.js';
import { base, ErrorBox, Loading, fmtTime, FilterForm, Since, Pager, Json, Empty } from '../ui.jsx';
import { TraceLink } from './traces.jsx';
import { loadFilterFields } from '../filters.js';

// Events browses the history with the filter, or, with q in the query
// string, searches it (GET /api/events/search: seed 001's text index on
// MongoDB), newest first and without paging.
export function Events() {
  const { query } = useLocation();
  const filters = useLoad(loadFilterFields, []);
  const key = JSON.stringify(query);
  const searching = (query.q || '').trim() !== '';
  const { data, error, loading } = useLoad(
    () => (searching ? get('/api/events/search', { q: query.q, limit: query.limit || 50 }) : get('/api/events', { limit: 50, ...query })),
    [key],
  );
  return (
    <section>
      <h1>Events</h1>
      <SearchBox />
      {filters.data ? (
        <FilterForm
          fields={[...filters.data, { name: 'limit', label: 'Per page', placeholder: '50' }]}
          extra={<Since param="start_time" />}
        />
      ) : (
        <ErrorBox error={filters.error} />
      )}
      <ErrorBox error={error} />
      <Loading when={loading} />
      {data && searching && !loading ? (
        <p class="muted" data-testid="search-summary">
          {data.events.length} event{data.events.length === 1 ? '' : 's'} matching “{query.q}”, newest first (the filter browses
          instead).
        </p>
      ) : null}
      {data ? <EventList events={data.events} /> : null}
      {data && !searching ? <Pager next={data.nextCursor} /> : null}
    </section>
  );
}

// SearchBox searches the events' type, service, user and execution id for
// its words: the page with q in its query string, so it can be shared.
function SearchBox() {
  const { path, query, route } = useLocation();
  const onSubmit = (e) => {
    e.preventDefault();
    const q = String(new FormData(e.currentTarget).get('q') || '').trim();
    route(q ? `${path}?${new URLSearchParams({ q })}` : path);
  };
  return (
    <form class="search" role="search" onSubmit={onSubmit} key={query.q || ''}>
      <input
        type="search"
        name="q"
        aria-label="Search events"
        placeholder="Search event type, service, user, execution id"
        defaultValue={query.q || ''}
      />
      <button type="submit">Search</button>
    </form>
  );
}

export function EventList({ events }) {
  if (events.length === 0) return <Empty what="events" />;
  return (
    <ol class="events" data-testid="event-list">
      {events.map((e) => (
        <li key={e.eventId} class={isError(e) ? 'failed' : ''}>
          <details>
            <summary>
              <time>{fmtTime(e.timestamp)}</time> <code class="type">{e.eventType}</code>{' '}
              <AggregateLink event={e} /> <span class="muted">{(e.metadata && e.metadata.source) || ''}</span>
              <TraceLink traceId={e.metadata && e.metadata.traceId} />
            </summary>
            <EventDetail event={e} />
          </details>
        </li>
      ))}
    </ol>
  );
}

// AggregateLink links an event's workflow or task timeline, or for an
// event of no aggregate (webhook.received) the events of its execution.
export function AggregateLink({ event }) {
  const id = aggregateOf(event);
  const execution = event.metadata && event.metadata.correlationId;
  if (id) {
    return (
      <a href={`${base}/timeline/${encodeURIComponent(id)}`} class="agg">
        {id}
      </a>
    );
  }
  return execution ? (
    <a href={`${base}/events?execution_id=${encodeURIComponent(execution)}`} class="agg">
      execution {execution}
    </a>
  ) : null;
}

export function EventDetail({ event }) {
  const { payload, ...envelope } = event;
  return (
    <div class="detail">
      <h4>Envelope</h4>
      <Json value={envelope} />
      <h4>Payload</h4>
      <Json value={payload} />
    </div>
  );
}

export function aggregateOf(e) {
  const p = e.payload || {};
  return p.workflowId || p.taskId || '';
}

export function isError(e) {
  return /failed|dead_letter/.test(e.eventType);
}
