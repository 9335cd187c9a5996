import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { post } from '../api.js';
import { useConfirmed, useLoad } from '../hooks.js';
import { base, Badge, Confirm, ErrorBox, fmtTime, ListTable, Loading } from '../ui.jsx';

// A data subject is one person whose personal data StreamOps holds only as
// references sealed to the subject's key. This page answers an access
// request (POST /api/subjects/lookup: counts and places, never values) and
// carries out a deletion request (POST /api/subjects/erase: the keys are
// destroyed, so no copy of the data opens anywhere again).

// subjectRequest names the subject as the API reads an id: an email holds
// an @, a phone number starts with + or is digits and separators, anything
// else is a subject id (internal/httpapi subjectRequest).
export function subjectRequest(id) {
  const s = String(id || '').trim();
  if (s.includes('@')) return { email: s };
  if (s.startsWith('+') || /^[0-9 ().-]+$/.test(s)) return { phone: s };
  return { subjectId: s };
}

const kinds = { email: 'email address', phone: 'phone number', subjectId: 'subject id' };

// Subjects is the lookup box, what is held for the subjects it reaches,
// and the erasure with its confirmation and receipt. Only a subject id
// goes into the URL (?subject=…): an email or phone number typed here is
// kept in the page alone, so it is in no browser history, shared link or
// access log.
export function Subjects() {
  const { path, query, route } = useLocation();
  const [id, setId] = useState(query.subject || '');
  useEffect(() => {
    if (query.subject) setId(query.subject);
  }, [query.subject]);
  const lookup = useLoad(() => (id ? post('/api/subjects/lookup', subjectRequest(id)) : Promise.resolve(null)), [id]);
  const [step, setStep, erase] = useConfirmed(() => post('/api/subjects/erase', subjectRequest(id)), lookup.reload);
  useEffect(() => setStep({ phase: 'idle' }), [id]);
  const onSubmit = (e) => {
    e.preventDefault();
    const v = String(new FormData(e.currentTarget).get('subject') || '').trim();
    if (!v) return;
    setStep({ phase: 'idle' });
    if (v === id) lookup.reload();
    setId(v);
    const byId = subjectRequest(v).subjectId;
    route(byId ? `${path}?${new URLSearchParams({ subject: byId })}` : path);
  };
  const subjects = lookup.data && !lookup.loading ? lookup.data.subjects : null;
  const live = subjects ? subjects.filter((s) => s.live) : [];
  const kind = id ? Object.keys(subjectRequest(id))[0] : '';
  return (
    <section data-testid="subjects">
      <h1>Subjects</h1>
      <p class="muted">
        For an access or deletion request: look a person up by email address, phone number or subject id to see what StreamOps
        holds for them (counts by kind and by where it came in, never the values), and erase them everywhere at once.
      </p>
      <form class="search" role="search" onSubmit={onSubmit} data-testid="subject-search" key={query.subject || ''}>
        <input
          name="subject"
          type="search"
          aria-label="Email, phone number or subject id"
          placeholder="Email, phone number or subject id"
          autocomplete="off"
          spellcheck={false}
          defaultValue={query.subject || ''}
        />
        <button type="submit">Look up</button>
      </form>
      <ErrorBox error={lookup.error} />
      <Loading when={id && lookup.loading} />
      {subjects && subjects.length === 0 ? (
        <p class="muted empty" data-testid="subject-none">
          Nothing is held for this {kinds[kind]}.
        </p>
      ) : null}
      {live.length > 0 && step.phase !== 'done' ? (
        <div class="bulk" data-testid="erase">
          {step.phase === 'confirm' ? (
            <Confirm yes="Erase" testid="erase" onYes={erase} onCancel={() => setStep({ phase: 'idle' })}>
              Erase {live.length === 1 ? 'this subject' : `these ${live.length} subjects`} everywhere StreamOps keeps their data
              (history, archive, outbox, delivery logs, dead letters, exports, the topics)? Their keys are destroyed: no copy can be
              read again, and this cannot be undone.
            </Confirm>
          ) : (
            <button class="danger" onClick={() => setStep({ phase: 'confirm' })} disabled={step.phase === 'running'} data-testid="erase-open">
              {step.phase === 'running' ? 'Erasing…' : 'Erase…'}
            </button>
          )}
        </div>
      ) : null}
      <ErrorBox error={step.error} />
      {step.phase === 'done' ? <Receipt receipt={step.result} /> : null}
      {subjects ? subjects.map((s) => <Subject subject={s} key={`${s.subjectId}-${s.generation}`} />) : null}
    </section>
  );
}

// Subject is what is held for one subject: its state, when it was seen,
// its counts and places, how often its references were resolved, and its
// erasures.
function Subject({ subject: s }) {
  return (
    <div class="state subject" data-testid="subject" data-subject-id={s.subjectId} data-live={s.live ? 'true' : 'false'}>
      <h2>
        Subject <code>{s.subjectId}</code> <span class="muted">generation {s.generation}</span>{' '}
        <Badge value={s.live ? 'live' : 'erased'} />
      </h2>
      <dl class="config">
        <dt>first seen</dt>
        <dd>{fmtTime(s.createdAt)}</dd>
        <dt>last seen</dt>
        <dd>{fmtTime(s.lastSeenAt)}</dd>
        <dt>key</dt>
        <dd>{!s.live ? 'destroyed' : s.expireAt ? `expires ${fmtTime(s.expireAt)}, with the last of its data` : 'kept until erased'}</dd>
        <dt>resolutions</dt>
        <dd data-testid="resolutions">{s.resolutions}</dd>
      </dl>
      <div class="grid">
        <Counts caption="held" testid="held" counts={s.held} />
        <Counts caption="places" testid="places" counts={s.places} />
      </div>
      <h3>Erasures</h3>
      {s.erasures.length === 0 ? (
        <p class="muted">none</p>
      ) : (
        <ListTable testid="erasures" columns={['receipt', 'generation', 'erased at', 'by']}>
          {s.erasures.map((e) => (
            <tr>
              <td>
                <code>{e.receiptId}</code>
              </td>
              <td class="num">{e.generation}</td>
              <td class="nowrap">{fmtTime(e.erasedAt)}</td>
              <td>{e.erasedBy}</td>
            </tr>
          ))}
        </ListTable>
      )}
    </div>
  );
}

// Counts is a table of name → count, names in order.
function Counts({ caption, testid, counts }) {
  const rows = Object.entries(counts || {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return (
    <table class="counts" data-testid={testid}>
      <caption>{caption}</caption>
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

// Receipt is an erasure's answer: its id, when, by whom, how the subject
// was named, and each subject erased with what it held. A repeated
// erasure answers the first one's receipt, and says so.
function Receipt({ receipt: rc }) {
  return (
    <div class="state receipt" role="status" data-testid="receipt" data-receipt-id={rc.receiptId} data-repeated={rc.repeated ? 'true' : 'false'}>
      <h2>Erasure receipt</h2>
      {rc.repeated ? (
        <p class="warn-box" data-testid="receipt-repeated">
          Already erased: this is the first erasure's receipt; nothing more was held.
        </p>
      ) : null}
      <dl class="config">
        <dt>receipt</dt>
        <dd>
          <code data-testid="receipt-id">{rc.receiptId}</code>
        </dd>
        <dt>erased at</dt>
        <dd>{fmtTime(rc.erasedAt)}</dd>
        <dt>by</dt>
        <dd data-testid="receipt-by">{rc.erasedBy}</dd>
        <dt>named by</dt>
        <dd>{kinds[rc.request] || rc.request}</dd>
      </dl>
      {rc.subjects.length === 0 ? (
        <p class="muted">Nothing was held for this subject.</p>
      ) : (
        <ListTable testid="receipt-subjects" columns={['subject', 'generation', 'held', 'places']}>
          {rc.subjects.map((s) => (
            <tr>
              <td>
                <a href={`${base}/subjects?${new URLSearchParams({ subject: s.subjectId })}`}>
                  <code>{s.subjectId}</code>
                </a>
              </td>
              <td class="num">{s.generation}</td>
              <td>{summary(s.held)}</td>
              <td>{summary(s.places)}</td>
            </tr>
          ))}
        </ListTable>
      )}
    </div>
  );
}

// summary is counts as "name n, name n", names in order, or "none".
function summary(counts) {
  const rows = Object.entries(counts || {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return rows.length === 0 ? 'none' : rows.map(([k, n]) => `${k} ${n}`).join(', ');
}
