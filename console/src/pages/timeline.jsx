import { useContext, useEffect, useState } from 'preact/hooks';
import { get, post } from '../api.js';
import { useConfirmed, useLoad } from '../hooks.js';
import { Principal } from '../principal.js';
import { Confirm, ErrorBox, Loading, fmtTime, fmtDuration, Badge, Json, Empty } from '../ui.jsx';
import { EventDetail, isError } from './events.jsx';
import { TraceLink } from './traces.jsx';

// Timeline is one workflow's or task's life: its events in causal order
// (the API returns an aggregate's events oldest first, in the order they
// were stored), the time between them, step progress and errors.
export function Timeline({ id }) {
  const principal = useContext(Principal);
  const evs = useLoad(() => allEvents(id), [id]);
  const kind = id.startsWith('wf-') ? 'workflows' : id.startsWith('task-') ? 'tasks' : '';
  const state = useLoad(
    () => (kind && principal.admin ? get(`/api/${kind}/${encodeURIComponent(id)}`) : Promise.resolve(null)),
    [id, kind],
  );
  // The events are read again after each answer about the workflow or task
  // itself, not beside it: a processor stores an attempt's events before
  // its state, so a state that says the attempt ended comes with all of
  // them (read side by side, the last events could miss the end).
  useEffect(() => {
    if (state.data) evs.reload();
  }, [state.data]);
  // While the workflow or task runs (a rerun just started, say), follow it:
  // it is read again every second until it ends.
  const running = ['pending', 'processing'].includes(state.data?.status);
  useEffect(() => {
    if (!running) return undefined;
    const timer = setInterval(() => state.reload(), 1000);
    return () => clearInterval(timer);
  }, [running]);
  return (
    <section>
      <h1>
        Timeline <code>{id}</code> <TraceLink traceId={traceOf(state.data, evs.data)} />
      </h1>
      <ErrorBox error={evs.error} />
      <Loading when={evs.loading} />
      {state.data && kind === 'workflows' ? (
        <WorkflowState
          wf={state.data}
          onRerun={() => state.reload()}
        />
      ) : null}
      {state.data && kind === 'tasks' ? <TaskState task={state.data} /> : null}
      {state.error && state.error.status !== 404 ? <ErrorBox error={state.error} /> : null}
      {evs.data ? <Steps events={evs.data} /> : null}
    </section>
  );
}

// traceOf is the workflow's or task's trace id (stored at its creation),
// else that of its first event that has one.
function traceOf(entity, events) {
  if (entity && entity.traceId) return entity.traceId;
  const e = (events || []).find((e) => e.metadata && e.metadata.traceId);
  return e ? e.metadata.traceId : '';
}

// allEvents pages through the aggregate's events (at most 10,000).
async function allEvents(id) {
  const out = [];
  let cursor = '';
  for (let i = 0; i < 10; i++) {
    const page = await get('/api/events', { aggregate_id: id, limit: 1000, cursor });
    out.push(...page.events);
    if (!page.nextCursor) break;
    cursor = page.nextCursor;
  }
  return out;
}

function WorkflowState({ wf, onRerun }) {
  return (
    <div class="state" data-testid="workflow-state">
      <p>
        <strong>{wf.name}</strong> <Badge value={wf.status} />{' '}
        <span data-testid="attempt">attempt {wf.attempt || 1}</span>, priority {wf.priority}, created {fmtTime(wf.createdAt)}
        {wf.completedAt ? `, finished ${fmtTime(wf.completedAt)}` : ''}
      </p>
      <ol class="progress">
        {wf.progress.map((s) => (
          <li class={`step s-${s.status}`}>
            <span class="step-name">{s.name}</span> <Badge value={s.status} />
            {s.result ? <span class="muted"> {fmtDuration(s.result.duration)}</span> : null}
          </li>
        ))}
      </ol>
      <Failure error={wf.error} />
      {wf.status === 'failed' || wf.status === 'completed' ? <Rerun wf={wf} onDone={onRerun} /> : null}
    </div>
  );
}

// Rerun starts a new attempt of a workflow that ended (POST
// /api/workflows/{id}/rerun): from the step chosen, by default the one
// that failed, after a confirmation. One Idempotency-Key per
// confirmation, so a double click starts one rerun.
function Rerun({ wf, onDone }) {
  const failed = wf.progress.find((s) => s.status === 'failed');
  const [from, setFrom] = useState(failed ? failed.name : wf.steps[0]);
  const [step, setStep, rerun] = useConfirmed(() => {
    const key = `console-${wf.workflowId}-${wf.attempt || 1}-${from}`;
    return post(`/api/workflows/${encodeURIComponent(wf.workflowId)}/rerun`, { fromStep: from }, { 'Idempotency-Key': key });
  }, onDone);
  return (
    <div class="rerun" data-testid="rerun">
      {step.phase === 'confirm' ? (
        <Confirm yes="Rerun" testid="rerun" onYes={rerun} onCancel={() => setStep({ phase: 'idle' })}>
          Rerun <code>{wf.workflowId}</code> from step <strong>{from}</strong> as attempt {(wf.attempt || 1) + 1}? The steps before it
          keep their results.
        </Confirm>
      ) : (
        <span>
          <label>
            from step{' '}
            <select name="fromStep" value={from} onChange={(e) => setFrom(e.currentTarget.value)}>
              {wf.steps.map((name, i) => (
                <option value={name} disabled={failed && i > failed.index}>
                  {name}
                </option>
              ))}
            </select>
          </label>{' '}
          <button onClick={() => setStep({ phase: 'confirm' })} disabled={step.phase === 'running'} data-testid="rerun-open">
            Rerun…
          </button>
        </span>
      )}
      {step.phase === 'done' ? <span class="ok"> Started attempt {step.result.attempt}.</span> : null}
      <ErrorBox error={step.error} />
    </div>
  );
}

function TaskState({ task }) {
  return (
    <div class="state" data-testid="task-state">
      <p>
        <strong>{task.type}</strong> <Badge value={task.status} /> attempt {task.retryCount + 1} of {task.maxRetries + 1}
        {task.nextRetryAt ? `, next retry ${fmtTime(task.nextRetryAt)}` : ''}
      </p>
      <Failure error={task.lastError} />
      {task.result ? <Json value={task.result} /> : null}
    </div>
  );
}

// Failure is the error a workflow failed with, or a task's last attempt's:
// its code and message.
function Failure({ error }) {
  if (!error) return null;
  return (
    <div class="error">
      {error.code}: {error.message}
    </div>
  );
}

function Steps({ events }) {
  if (events.length === 0) return <Empty what="events" />;
  const start = Date.parse(events[0].timestamp);
  return (
    <table class="timeline" data-testid="timeline">
      <thead>
        <tr>
          <th>#</th>
          <th>at</th>
          <th>+since start</th>
          <th>+since previous</th>
          <th>event</th>
          <th>step / duration / error</th>
          <th>attempt</th>
        </tr>
      </thead>
      <tbody>
        {events.map((e, i) => {
          const t = Date.parse(e.timestamp);
          const prev = i > 0 ? Date.parse(events[i - 1].timestamp) : t;
          const p = e.payload || {};
          const err = p.error || p.finalError;
          return (
            <tr class={isError(e) ? 'failed' : ''} key={e.eventId}>
              <td>{i + 1}</td>
              <td>{fmtTime(e.timestamp)}</td>
              <td>{fmtDuration(t - start)}</td>
              <td>{fmtDuration(t - prev)}</td>
              <td>
                <details>
                  <summary>
                    <code>{e.eventType}</code>
                  </summary>
                  <EventDetail event={e} />
                </details>
              </td>
              <td>
                {p.stepName !== undefined ? `step ${p.stepIndex + 1} ${p.stepName} ` : ''}
                {p.currentStep !== undefined ? `starting ${p.currentStep} ` : ''}
                {p.duration !== undefined ? `took ${fmtDuration(p.duration)} ` : ''}
                {p.retryCount !== undefined && p.maxRetries !== undefined ? `retry ${p.retryCount}/${p.maxRetries} ` : ''}
                {err ? <span class="error-text">{`${err.code || ''} ${err.message || ''}`}</span> : null}
              </td>
              <td class="attempt">{(e.metadata && e.metadata.attempt) || 1}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
