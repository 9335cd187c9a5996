import { useContext } from 'preact/hooks';
import { get } from '../api.js';
import { useLoad } from '../hooks.js';
import { Principal } from '../principal.js';
import { base, ErrorBox, fmtTime, fmtDuration, Badge, Json, Listing, ListTable } from '../ui.jsx';

// Partners lists the partners in the token's scope with their delivery
// endpoint (the deployment's partners file) and its breaker.
export function Partners() {
  const { data, error, loading } = useLoad(() => get('/api/partners'), []);
  return (
    <section>
      <h1>Partners</h1>
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

// Partner is one partner: its configuration (delivery endpoint, webhook
// routes), its endpoint's breaker and its deliveries (seed 000's partner
// history, newest first) with each one's attempt log.
export function Partner({ id }) {
  const principal = useContext(Principal);
  const ep = useLoad(() => get(`/api/partners/${encodeURIComponent(id)}/endpoint`), [id]);
  const evs = useLoad(() => get(`/api/partners/${encodeURIComponent(id)}/events`), [id]);
  return (
    <section>
      <h1>
        Partner <code>{id}</code>
      </h1>
      {!principal.admin && principal.partnerId !== id ? (
        <p class="muted">This token is scoped to partner {principal.partnerId}.</p>
      ) : null}
      <ErrorBox error={ep.error} />
      {ep.data ? <Config partnerId={id} config={ep.data.config} /> : null}
      {ep.data ? (
        <div class="state" data-testid="partner-endpoint">
          <p>
            Endpoint breaker <Badge value={ep.data.state} />, {ep.data.consecutiveFailures} consecutive failure
            {ep.data.consecutiveFailures === 1 ? '' : 's'}
            {ep.data.openUntil && ep.data.state !== 'closed' ? `, deliveries paused until ${fmtTime(ep.data.openUntil)}` : ''}
            {ep.data.lastSuccessAt ? `, last success ${fmtTime(ep.data.lastSuccessAt)}` : ''}
          </p>
          {ep.data.lastError ? <div class="error">last error: {ep.data.lastError}</div> : null}
        </div>
      ) : null}
      <h2>Deliveries</h2>
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
