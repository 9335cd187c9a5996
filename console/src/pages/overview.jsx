import { useLocation } from 'preact-iso/router';
import { get } from '../api.js';
import { useLoad } from '../hooks.js';
import { base, ErrorBox, Loading, fmtDuration, fmtTime, FilterForm, Badge } from '../ui.jsx';

const windows = ['15m', '1h', '6h', '24h', '168h'];

// Counted names the overview shows for each collection, in this order.
const panels = [
  ['events', 'event_type', 'Events by type'],
  ['webhook_events', 'status', 'Webhook events by status'],
  ['webhook_events', 'provider', 'Webhook events by provider'],
  ['workflows', 'status', 'Workflows by status'],
  ['tasks', 'status', 'Tasks by status'],
  ['tasks', 'type', 'Tasks by type'],
  ['integration_outbox', 'status', 'Outbox by status'],
  ['dead_letters', 'status', 'Dead letters by status'],
  ['partner_events', 'event_status', 'Partner events by status (all time)'],
];

export function Overview() {
  const { query } = useLocation();
  const window = query.window || '1h';
  const { data, error, loading } = useLoad(() => get('/api/stats', { window }), [window]);
  return (
    <section>
      <h1>Overview</h1>
      <FilterForm fields={[{ name: 'window', label: 'Window', options: windows, default: '1h' }]} />
      <ErrorBox error={error} />
      <Loading when={loading && !data} />
      {data ? <Stats data={data} /> : null}
    </section>
  );
}

function Stats({ data }) {
  const age = data.oldestPendingOutboxAgeSeconds;
  return (
    <>
      <div class="cards">
        <a class="card" href={`${base}/dead-letters?status=open`} data-testid="open-dead-letters">
          <span class="big">{data.openDeadLetters}</span>
          <span>open dead letters</span>
        </a>
        <div class="card" data-testid="outbox-age">
          <span class="big">{age === undefined ? '—' : fmtDuration(age * 1000)}</span>
          <span>oldest pending outbox entry</span>
        </div>
        <a class="card" href={`${base}/partners`} data-testid="open-breakers">
          <span class="big">{data.openBreakers.length}</span>
          <span>partners with an open breaker</span>
          {data.openBreakers.map((b) => (
            <span class="small">
              {b.partnerId} <Badge value={b.state} /> until {fmtTime(b.openUntil)}
            </span>
          ))}
        </a>
      </div>
      {data.eventRate ? <RateChart rate={data.eventRate} /> : null}
      <p class="muted">
        Counts since {fmtTime(data.since)} ({data.window}).
      </p>
      <div class="grid">
        {panels.map(([coll, field, title]) => (
          <Counts title={title} counts={(data.collections[coll] || {})[field] || {}} />
        ))}
      </div>
    </>
  );
}

function Counts({ title, counts }) {
  const rows = Object.entries(counts).sort((a, b) => b[1] - a[1]);
  return (
    <table class="counts">
      <caption>{title}</caption>
      <tbody>
        {rows.length === 0 ? (
          <tr>
            <td class="muted">none</td>
          </tr>
        ) : (
          rows.map(([k, n]) => (
            <tr>
              <td>{k}</td>
              <td class="num">{n}</td>
            </tr>
          ))
        )}
      </tbody>
    </table>
  );
}

// RateChart draws the events-per-bucket series as SVG bars: one rect per
// bucket, scaled to the largest.
function RateChart({ rate }) {
  const counts = rate.counts;
  const peak = Math.max(1, ...counts);
  const w = 720,
    h = 120,
    bw = w / counts.length;
  const perMinute = rate.bucketSeconds / 60;
  const total = counts.reduce((a, b) => a + b, 0);
  const label = perMinute === 1 ? 'Events per minute' : `Events per ${perMinute} minutes`;
  return (
    <figure class="chart" data-testid="event-rate">
      <figcaption>
        {label}: {total} in the window, peak {peak === 1 && total === 0 ? 0 : peak}
      </figcaption>
      <svg viewBox={`0 0 ${w} ${h}`} preserveAspectRatio="none" role="img" aria-label={label}>
        <line x1="0" y1={h} x2={w} y2={h} class="axis" />
        {counts.map((n, i) => {
          const bh = (n / peak) * (h - 4);
          const at = new Date(Date.parse(rate.since) + i * rate.bucketSeconds * 1000);
          return (
            <rect x={i * bw + 0.5} y={h - bh} width={Math.max(1, bw - 1)} height={bh} class="bar">
              <title>{`${fmtTime(at)}: ${n}`}</title>
            </rect>
          );
        })}
      </svg>
      <div class="ticks">
        <span>{fmtTime(rate.since)}</span>
        <span>now</span>
      </div>
    </figure>
  );
}
