// The partner editor: a partner kept in the store is created, changed,
// given a new signing secret, disabled and enabled, deleted and sent a
// test from the console, each through the API's own route (docs/api.md,
// "Partners kept in the store"). A partner's own token is offered what the
// API lets it do: its URL and subscriptions, a rotation, a test.
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { del, get, patch, post } from '../api.js';
import { useConfirmed, useLoad } from '../hooks.js';
import { base, Badge, Confirm, ErrorBox, fmtDuration, fmtTime, ListTable, Loading } from '../ui.jsx';
import { eventCatalog } from './catalog.js';
import { formError, fromRows, rowOf, Subscriptions, toRows } from './subscriptions.jsx';

// clearChoices are the categories of personal data a partner may receive
// in clear (pii.Categories) and "all" (outbox.AllClearPersonalData); a
// test holds this list equal to the API's.
const clearChoices = ['all', 'email', 'phone', 'card', 'iban', 'name', 'address', 'birthdate', 'ip', 'government_id', 'account', 'secret', 'personal'];

// operatorFields are the fields only an admin may change: a partner's own
// token changes its url and subscriptions (the API answers 403 to the rest).
const operatorFields = ['name', 'rateLimit', 'maxInFlight', 'clearPersonalData'];

const partnerPath = (id) => `/api/partners/${encodeURIComponent(id)}`;

// handedOver is the secret a create answered, handed to the partner page
// the console goes to next: in memory only and taken once, so neither a
// reload nor a second visit shows it again.
let handedOver = null;

// takeSecret is the secret of partner id's create, once; null after.
export function takeSecret(id) {
  const h = handedOver;
  handedOver = null;
  return h && h.id === id ? h.secret : null;
}

// draftOf is a stored partner (or {} for a new one) as the form edits it:
// numbers and the subscriptions as text.
function draftOf(p) {
  return {
    id: p.id || '',
    name: p.name || '',
    url: p.url || '',
    rateLimit: p.rateLimit === undefined || p.rateLimit === null ? '' : String(p.rateLimit),
    maxInFlight: p.maxInFlight === undefined || p.maxInFlight === null ? '' : String(p.maxInFlight),
    clearPersonalData: p.clearPersonalData || [],
    rows: toRows(p.subscriptions),
  };
}

// limit reads a limit field: '' is none (null), anything else a number.
function limit(field, text) {
  const v = text.trim();
  if (v === '') return null;
  const n = Number(v);
  if (!Number.isFinite(n)) throw formError(field, `${JSON.stringify(v)} is not a number`);
  return n;
}

// specOf is a new partner's draft as POST /api/partners takes it.
function specOf(d) {
  const spec = { id: d.id.trim(), url: d.url.trim() };
  if (d.name.trim()) spec.name = d.name.trim();
  const rate = limit('rateLimit', d.rateLimit);
  if (rate !== null) spec.rateLimit = rate;
  const inFlight = limit('maxInFlight', d.maxInFlight);
  if (inFlight !== null) spec.maxInFlight = inFlight;
  if (d.clearPersonalData.length) spec.clearPersonalData = d.clearPersonalData;
  if (d.rows.length) spec.subscriptions = fromRows(d.rows);
  return spec;
}

// patchOf is the PATCH body of what the draft changed since was (the
// stored partner as the form first showed it), at version; null when
// nothing changed. Only changed fields are sent: the URL is shown without
// its credentials, and sending it back unchanged would replace them.
function patchOf(d, was, version) {
  const p = {};
  if (d.name.trim() !== was.name) p.name = d.name.trim();
  if (d.url.trim() !== was.url) p.url = d.url.trim();
  if (d.rateLimit.trim() !== was.rateLimit) p.rateLimit = limit('rateLimit', d.rateLimit);
  if (d.maxInFlight.trim() !== was.maxInFlight) p.maxInFlight = limit('maxInFlight', d.maxInFlight);
  if (JSON.stringify(d.clearPersonalData) !== JSON.stringify(was.clearPersonalData)) {
    p.clearPersonalData = d.clearPersonalData.length ? d.clearPersonalData : null;
  }
  if (JSON.stringify(d.rows) !== JSON.stringify(was.rows)) {
    const subs = fromRows(d.rows);
    p.subscriptions = subs.length ? subs : null;
  }
  if (Object.keys(p).length === 0) return null;
  p.version = version;
  return p;
}

// Fields are a partner's own fields; those in locked are shown but not
// offered (a partner token's view of what an operator sets).
function Fields({ d, set, create, locked }) {
  const lock = (f) => locked.includes(f);
  const input = (field, label, extra) => (
    <label class={lock(field) ? 'locked' : ''}>
      <span>{label}</span>
      <input name={field} value={d[field]} disabled={lock(field)} autocomplete="off" onInput={(e) => set({ [field]: e.currentTarget.value })} {...extra} />
    </label>
  );
  const toggle = (c, on) => {
    const chosen = new Set(d.clearPersonalData);
    if (on) chosen.add(c);
    else chosen.delete(c);
    set({ clearPersonalData: clearChoices.filter((x) => chosen.has(x)) });
  };
  return (
    <div class="fields">
      {create ? input('id', 'Id', { placeholder: 'acme' }) : null}
      {input('name', 'Name', { placeholder: 'Acme Corp' })}
      {input('url', 'Delivery URL', { placeholder: 'https://hooks.example/streamops', class: 'wide' })}
      {input('rateLimit', 'Rate limit (deliveries/s)', { placeholder: 'unlimited', inputmode: 'decimal' })}
      {input('maxInFlight', 'In flight at most', { placeholder: 'unlimited', inputmode: 'numeric' })}
      {!create && d.url.includes('REDACTED') ? (
        <p class="muted small wide-note">
          The URL is shown without its credentials: leave it as it is to keep them, or type the whole URL again.
        </p>
      ) : null}
      <fieldset class="clear" disabled={lock('clearPersonalData')} data-testid="clear-personal-data">
        <legend>Personal data it receives in clear (the rest as references)</legend>
        {clearChoices.map((c) => (
          <label key={c}>
            <input type="checkbox" name="clearPersonalData" value={c} checked={d.clearPersonalData.includes(c)} onChange={(e) => toggle(c, e.currentTarget.checked)} />{' '}
            {c}
          </label>
        ))}
      </fieldset>
      {locked.length ? (
        <p class="muted small wide-note" data-testid="locked-note">
          Its name, limits and the personal data it receives in clear are set by an operator; this token may change its URL and
          subscriptions.
        </p>
      ) : null}
    </div>
  );
}

// FormErrors shows an error next to the form unless it names a
// subscription, which shows it in that row.
function FormErrors({ error }) {
  return rowOf(error) < 0 ? <ErrorBox error={error} /> : null;
}

// NewPartner is the Partners page's create form (admins): on success the
// console goes to the new partner's page, which shows its signing secret
// this once; on an error nothing is created and the form keeps what was
// typed.
export function NewPartner() {
  const { route } = useLocation();
  const [open, setOpen] = useState(false);
  const [d, setD] = useState(() => draftOf({}));
  const [state, setState] = useState({ busy: false });
  // An error is about what was sent: an edit since makes it stale.
  const change = (next) => {
    setD(next);
    if (state.error) setState({ busy: false });
  };
  if (!open) {
    return (
      <button data-testid="new-partner" onClick={() => setOpen(true)}>
        New partner…
      </button>
    );
  }
  const create = async (e) => {
    e.preventDefault();
    let spec;
    try {
      spec = specOf(d);
    } catch (err) {
      setState({ error: err });
      return;
    }
    setState({ busy: true });
    try {
      const res = await post('/api/partners', spec);
      handedOver = { id: res.partner.id, secret: res.secret };
      route(`${base}/partners/${encodeURIComponent(res.partner.id)}`);
    } catch (err) {
      setState({ error: err });
    }
  };
  return (
    <form class="editor" data-testid="new-partner-form" onSubmit={create}>
      <h2>New partner</h2>
      <Fields d={d} set={(x) => change({ ...d, ...x })} create locked={[]} />
      <Subscriptions partnerId={d.id.trim()} rows={d.rows} onChange={(rows) => change({ ...d, rows })} error={state.error} />
      <FormErrors error={state.error} />
      <p class="muted small">StreamOps generates its signing secret and shows it once, on the partner's page after the create.</p>
      <button type="submit" data-testid="create-partner" disabled={state.busy}>
        {state.busy ? 'Creating…' : 'Create partner'}
      </button>{' '}
      <button type="button" class="secondary" onClick={() => setOpen(false)}>
        Cancel
      </button>
    </form>
  );
}

// SecretOnce shows a signing secret the API answered this once (a create
// or a rotation): the value to copy, and that it will not be shown again.
export function SecretOnce({ partnerId, secret, what, oldSecretsStop, onDone }) {
  const [copied, setCopied] = useState('');
  const copy = () => {
    const byHand = 'Select the value and copy it (Ctrl+C).';
    if (!navigator.clipboard || !navigator.clipboard.writeText) return setCopied(byHand);
    navigator.clipboard.writeText(secret.value).then(
      () => setCopied('Copied.'),
      () => setCopied(byHand),
    );
  };
  return (
    <div class="secret-once" role="status" data-testid="secret-once" data-secret-id={secret.id}>
      <p>
        <strong>
          {what} of {partnerId}, shown this once: you will not see it again.
        </strong>{' '}
        Copy it now and keep it where the partner keeps its secrets; the partner verifies each delivery's{' '}
        <code>webhook-signature</code> with it (Standard Webhooks). StreamOps stores it sealed and never answers it again.
      </p>
      <div class="secret-value">
        <input
          readonly
          value={secret.value}
          data-testid="secret-value"
          aria-label="signing secret"
          onFocus={(e) => e.currentTarget.select()}
          onClick={(e) => e.currentTarget.select()}
        />{' '}
        <button type="button" onClick={copy} data-testid="secret-copy">
          Copy
        </button>{' '}
        <span class="muted small">{copied}</span>
      </div>
      <p class="muted small">
        secret id <code>{secret.id}</code>
        {oldSecretsStop ? <span data-testid="old-secrets-stop">; the older secrets keep signing beside it until {fmtTime(oldSecretsStop)}</span> : null}
      </p>
      <button type="button" class="secondary" onClick={onDone} data-testid="secret-done">
        I have copied it
      </button>
    </div>
  );
}

// PartnerEditor is a stored partner's editor on its page: its fields and
// subscriptions (PATCH at the version read; a conflict says so and reads
// the partner again), its secrets and a rotation, a send-test, and for an
// admin its deletion. backlog is its waiting deliveries, which a delete
// cancels. It is folded (the page is first the deliveries' state) unless
// open, as it is right after the partner's create.
export function PartnerEditor({ id, admin, backlog, open, onChange, onDeleted }) {
  const stored = useLoad(() => get(partnerPath(id)), [id]);
  const [notice, setNotice] = useState(null);
  const changed = () => {
    stored.reload();
    onChange();
  };
  if (stored.error) return <ErrorBox error={stored.error} />;
  if (!stored.data) return <Loading when />;
  const p = stored.data;
  return (
    <details class="editor-section" data-testid="partner-editor" data-version={p.version} open={open}>
      <summary>
        <h2>Endpoint, subscriptions and secrets</h2>{' '}
        <span class="muted small">{admin ? 'edit, rotate the secret, send a test, delete' : 'edit its URL and subscriptions, rotate its secret, send a test'}</span>
      </summary>
      <p class="muted small">
        Kept in the store, version <strong data-testid="partner-version">{p.version}</strong>, changed {fmtTime(p.updatedAt)}; every relay
        sees a change within seconds.
        {p.source === 'file' ? (
          <span data-testid="source-note">
            {' '}
            Imported from the partners file at start: the store's copy wins, so what is changed here stays (the file's entry no longer
            applies to it).
          </span>
        ) : null}
      </p>
      {notice}
      <EditForm
        key={p.version}
        p={p}
        admin={admin}
        onSaving={() => setNotice(null)}
        onSaved={(saved, fields) => {
          setNotice(
            <p class="ok" data-testid="saved">
              Saved version {saved.version}: {fields.join(', ')} changed.
            </p>,
          );
          changed();
        }}
        onConflict={(err, version) => {
          setNotice(
            <div data-testid="conflict">
              <ErrorBox error={err} />
              <p class="warn-box">
                Partner {id} was changed after this form read it (version {version}), so nothing was saved. The form now shows the current
                version: make the change again.
              </p>
            </div>,
          );
          changed();
        }}
      />
      <h3>Signing secrets</h3>
      <Rotate p={p} onRotated={changed} />
      <h3>Send a test</h3>
      <SendTest partnerId={id} />
      {admin ? (
        <>
          <h3>Delete</h3>
          <DeletePartner id={id} backlog={backlog} onDeleted={onDeleted} />
        </>
      ) : null}
    </details>
  );
}

// EditForm edits p at its version; the editor gives it a new key when the
// version changes, so it starts again from what is stored.
function EditForm({ p, admin, onSaving, onSaved, onConflict }) {
  const [d, setD] = useState(() => draftOf(p));
  const [state, setState] = useState({ busy: false });
  // An error or a note is about what was sent: an edit since makes it stale.
  const change = (next) => {
    setD(next);
    if (state.error || state.note) setState({ busy: false });
  };
  const save = async (e) => {
    e.preventDefault();
    onSaving();
    let body;
    try {
      body = patchOf(d, draftOf(p), p.version);
    } catch (err) {
      setState({ error: err });
      return;
    }
    if (!body) {
      setState({ note: 'Nothing changed, nothing to save.' });
      return;
    }
    setState({ busy: true });
    try {
      const saved = await patch(partnerPath(p.id), body);
      setState({ busy: false });
      onSaved(
        saved,
        Object.keys(body).filter((k) => k !== 'version'),
      );
    } catch (err) {
      if (err.status === 409 && err.code === 'version_conflict') {
        setState({ busy: false });
        onConflict(err, p.version);
        return;
      }
      setState({ error: err });
    }
  };
  return (
    <form class="editor" data-testid="edit-partner" onSubmit={save}>
      <Fields d={d} set={(x) => change({ ...d, ...x })} locked={admin ? [] : operatorFields} />
      <Subscriptions partnerId={p.id} rows={d.rows} onChange={(rows) => change({ ...d, rows })} error={state.error} />
      <FormErrors error={state.error} />
      {state.note ? <p class="muted">{state.note}</p> : null}
      <button type="submit" data-testid="save-partner" disabled={state.busy}>
        {state.busy ? 'Saving…' : 'Save changes'}
      </button>{' '}
      <button type="button" class="secondary" data-testid="reset-partner" onClick={() => (setD(draftOf(p)), setState({ busy: false }))}>
        Undo my changes
      </button>
    </form>
  );
}

// Rotate lists the partner's secrets (ids and validity, never a value)
// and gives it a new one after a confirmation with the overlap the older
// ones keep signing for; the new secret is shown once.
function Rotate({ p, onRotated }) {
  const [overlap, setOverlap] = useState('24h');
  const [step, setStep, run] = useConfirmed(() => post(`${partnerPath(p.id)}/secrets/rotate`, { overlap: overlap.trim() || '24h' }), onRotated);
  return (
    <div class="rotate" data-testid="rotate">
      <ListTable testid="secrets" columns={['secret', 'created', 'signs until']}>
        {(p.secrets || []).map((s) => (
          <tr data-secret-id={s.id} key={s.id}>
            <td>
              <code>{s.id}</code>
            </td>
            <td>{fmtTime(s.createdAt)}</td>
            <td>{s.notAfter ? fmtTime(s.notAfter) : <span class="muted">no end</span>}</td>
          </tr>
        ))}
      </ListTable>
      {step.phase === 'done' ? (
        <SecretOnce
          partnerId={p.id}
          secret={step.result.secret}
          what="The new signing secret"
          oldSecretsStop={step.result.oldSecretsStop}
          onDone={() => setStep({ phase: 'idle' })}
        />
      ) : step.phase === 'confirm' || step.phase === 'running' ? (
        <Confirm yes={step.phase === 'running' ? 'Rotating…' : 'Rotate the secret'} testid="rotate" busy={step.phase === 'running'} onYes={run} onCancel={() => setStep({ phase: 'idle' })}>
          Give {p.id} a new signing secret? StreamOps generates it and shows it once. The current secrets keep signing beside it for{' '}
          <input class="narrow" name="overlap" data-testid="rotate-overlap" value={overlap} onInput={(e) => setOverlap(e.currentTarget.value)} />{' '}
          (a duration: <code>24h</code>, <code>0s</code> stops them at once, at most <code>720h</code>), so the partner can switch without
          a failed delivery.
        </Confirm>
      ) : (
        <button data-testid="rotate-start" onClick={() => setStep({ phase: 'confirm' })}>
          Rotate secret…
        </button>
      )}
      <ErrorBox error={step.error} />
    </div>
  );
}

// SendTest sends the catalog's example of a type to the partner's
// endpoint at once (POST /api/partners/{id}/test) and shows its answer.
function SendTest({ partnerId }) {
  const cat = useLoad(eventCatalog, []);
  const [eventType, setEventType] = useState('workflow.completed');
  const [state, setState] = useState({ busy: false });
  const send = async () => {
    setState({ busy: true });
    try {
      setState({ busy: false, result: await post(`${partnerPath(partnerId)}/test`, { eventType }) });
    } catch (err) {
      setState({ busy: false, error: err });
    }
  };
  const types = cat.data ? cat.data.map((t) => t.eventType) : [eventType];
  return (
    <div class="send-test" data-testid="send-test">
      <label>
        <span>Event type </span>
        <select name="testEventType" data-testid="send-test-type" value={eventType} onChange={(e) => setEventType(e.currentTarget.value)}>
          {types.map((t) => (
            <option value={t}>{t}</option>
          ))}
        </select>
      </label>{' '}
      <button data-testid="send-test-run" disabled={state.busy} onClick={send}>
        {state.busy ? 'Sending…' : 'Send test'}
      </button>{' '}
      <span class="muted small">
        the catalog's example, signed with its live secrets, to its endpoint at once; no delivery is recorded, and its breaker, pause
        and limits are left alone
      </span>
      <ErrorBox error={state.error || cat.error} />
      {state.result ? <TestAnswer r={state.result} /> : null}
    </div>
  );
}

// TestAnswer is what the partner's endpoint answered a test send.
function TestAnswer({ r }) {
  return (
    <dl class="config" data-testid="send-test-result" data-delivered={r.delivered ? 'true' : 'false'}>
      <dt>answer</dt>
      <dd>
        <Badge value={r.delivered ? 'delivered' : 'not delivered'} />{' '}
        {r.statusCode ? (
          <>
            status <code data-testid="send-test-status">{r.statusCode}</code>
          </>
        ) : (
          <span class="muted">no answer</span>
        )}{' '}
        after {fmtDuration(r.durationMs)}
        {r.retryAfter ? (
          <>
            , <code>Retry-After: {r.retryAfter}</code>
          </>
        ) : null}
      </dd>
      {r.error ? (
        <>
          <dt>error</dt>
          <dd class="error-text" data-testid="send-test-error">
            {r.error}
          </dd>
        </>
      ) : null}
      {r.responseBody ? (
        <>
          <dt>body</dt>
          <dd>
            <pre class="body" data-testid="send-test-body">
              {r.responseBody}
            </pre>
          </dd>
        </>
      ) : null}
      <dt>sent</dt>
      <dd>
        <code class="type">{r.eventType}</code> <code>{r.eventId}</code> at {fmtTime(r.at)} as <code>webhook-id: {r.webhookId}</code>
      </dd>
    </dl>
  );
}

// EnableControls disable a partner (with an optional reason) or enable
// it, each after a confirmation; backlog is how many deliveries wait.
export function EnableControls({ partnerId, disabled, backlog, onChange }) {
  const [reason, setReason] = useState('');
  const [step, setStep, run] = useConfirmed(
    () => (disabled ? post(`${partnerPath(partnerId)}/enable`) : post(`${partnerPath(partnerId)}/disable`, reason.trim() ? { reason: reason.trim() } : {})),
    () => {
      setStep({ phase: 'idle' });
      setReason('');
      onChange();
    },
  );
  const waiting = `${backlog} waiting deliver${backlog === 1 ? 'y' : 'ies'}`;
  if (step.phase === 'confirm' || step.phase === 'running') {
    return (
      <div class="controls">
        {disabled ? (
          <Confirm yes="Enable" testid="enable" busy={step.phase === 'running'} onYes={run} onCancel={() => setStep({ phase: 'idle' })}>
            Enable {partnerId}? Its {waiting} go out under its limits.
          </Confirm>
        ) : (
          <Confirm yes="Disable deliveries" testid="disable" busy={step.phase === 'running'} onYes={run} onCancel={() => setStep({ phase: 'idle' })}>
            Disable {partnerId}? Nothing is sent to it until it is enabled; its deliveries wait ({waiting} now).{' '}
            <label>
              <span>Reason </span>
              <input name="disableReason" data-testid="disable-reason" value={reason} placeholder="endpoint migration" onInput={(e) => setReason(e.currentTarget.value)} />
            </label>
          </Confirm>
        )}
      </div>
    );
  }
  return (
    <div class="controls">
      <button data-testid={disabled ? 'enable' : 'disable'} onClick={() => setStep({ phase: 'confirm' })}>
        {disabled ? 'Enable…' : 'Disable…'}
      </button>
      <ErrorBox error={step.error} />
    </div>
  );
}

// DeletePartner deletes the partner after a confirmation saying that its
// waiting deliveries are cancelled; onDeleted gets the API's answer.
function DeletePartner({ id, backlog, onDeleted }) {
  const [step, setStep, run] = useConfirmed(async () => onDeleted(await del(partnerPath(id))));
  return (
    <div class="delete" data-testid="delete">
      {step.phase === 'confirm' || step.phase === 'running' ? (
        <Confirm yes="Delete the partner" testid="delete" busy={step.phase === 'running'} onYes={run} onCancel={() => setStep({ phase: 'idle' })}>
          Delete {id}? It is disabled for good and its id stays taken. Its{' '}
          <strong data-testid="delete-backlog">{backlog}</strong> waiting deliver{backlog === 1 ? 'y' : 'ies'} (pending, or failed and waiting
          for a retry) are cancelled: dead-lettered with <code>cancelled: partner deleted</code>. Its history and deliveries stay readable.
        </Confirm>
      ) : (
        <button class="danger" data-testid="delete-start" onClick={() => setStep({ phase: 'confirm' })}>
          Delete partner…
        </button>
      )}
      <ErrorBox error={step.error} />
    </div>
  );
}

// NotEditable says why a partner's page offers no editor: it is deleted
// (deleted, when this page deleted it, is the API's answer), or the store
// does not keep it.
export function NotEditable({ id, managed, deleted }) {
  if (managed && managed.deletedAt) {
    return (
      <div class="warn-box" data-testid="read-only-note" data-deleted="true">
        Partner {id} was deleted at {fmtTime(managed.deletedAt)}
        {deleted ? (
          <span data-testid="deleted-cancelled">
            {' '}
            ({deleted.cancelled} waiting deliver{deleted.cancelled === 1 ? 'y' : 'ies'} cancelled)
          </span>
        ) : null}
        : it is disabled for good and its id stays taken. Its history and deliveries below stay readable; nothing here changes it.
      </div>
    );
  }
  return (
    <p class="muted" data-testid="read-only-note" data-deleted="false">
      Partner {id} is not kept in the store, so this page shows it read-only: what configures it is the deployment's (its delivery endpoint
      the partners file, its webhook routes the providers file), changed there and deployed. A deployment with the personal-data keys
      imports the partners file into the store at start, where a partner can be edited here.
    </p>
  );
}
