// The StreamOps operations console: a client of the /api routes, served by
// the api function under /console. Every page is a URL whose query string
// is its filter; every action goes through the API's own routes.
import { render } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';
import { LocationProvider, Router, Route, useLocation } from 'preact-iso/router';
import './app.css';
import { get, signedOutEvent, token } from './api.js';
import { useLoad } from './hooks.js';
import { Principal } from './principal.js';
import { base, ErrorBox } from './ui.jsx';
import { Overview } from './pages/overview.jsx';
import { Events } from './pages/events.jsx';
import { Timeline } from './pages/timeline.jsx';
import { Webhooks } from './pages/webhooks.jsx';
import { DeadLetters } from './pages/deadletters.jsx';
import { Replays, ReplaySession } from './pages/replays.jsx';
import { Partners, Partner } from './pages/partners.jsx';
import { Traces, Trace, TraceSearch } from './pages/traces.jsx';
import { Subjects } from './pages/subjects.jsx';

// pages: path, title, and whether a partner token may open it (the API
// answers 403 to the others; the console does not offer them).
const pages = [
  { path: base, title: 'Overview', component: Overview, admin: true },
  { path: `${base}/events`, title: 'Events', component: Events },
  { path: `${base}/webhooks`, title: 'Webhook events', component: Webhooks, admin: true },
  { path: `${base}/dead-letters`, title: 'Dead letters', component: DeadLetters, admin: true },
  { path: `${base}/replays`, title: 'Replays', component: Replays, admin: true },
  { path: `${base}/traces`, title: 'Traces', component: Traces, admin: true },
  { path: `${base}/partners`, title: 'Partners', component: Partners },
  { path: `${base}/subjects`, title: 'Subjects', component: Subjects, admin: true },
];

function App() {
  const [state, setState] = useState({ tok: token.get(), refused: null });
  useEffect(() => {
    const refused = (e) => setState({ tok: '', refused: e.detail });
    window.addEventListener(signedOutEvent, refused);
    return () => window.removeEventListener(signedOutEvent, refused);
  }, []);
  if (!state.tok) return <SignIn onToken={(tok) => setState({ tok, refused: null })} error={state.refused} />;
  return <Session tok={state.tok} onSignOut={() => (token.clear(), setState({ tok: '', refused: null }))} />;
}

// Session asks the API who the token is (GET /api/me) and shows what that
// scope may read. A token the API refuses (401, on any call) leads back
// to the sign-in form.
function Session({ tok, onSignOut }) {
  const me = useLoad(() => get('/api/me'), [tok]);
  if (me.error) return <ErrorBox error={me.error} />;
  if (!me.data) return <p class="muted">Loading…</p>;
  const principal = me.data;
  const visible = pages.filter((p) => principal.admin || !p.admin);
  return (
    <Principal.Provider value={principal}>
      <LocationProvider scope={base}>
        <Nav pages={visible} principal={principal} onSignOut={onSignOut} />
        <main>
          <Router>
            {visible.map((p) => (
              <Route path={p.path} component={p.component} />
            ))}
            <Route path={`${base}/timeline/:id`} component={Timeline} />
            <Route path={`${base}/partners/:id`} component={Partner} />
            {principal.admin ? <Route path={`${base}/replays/:id`} component={ReplaySession} /> : null}
            {principal.admin ? <Route path={`${base}/traces/:id`} component={Trace} /> : null}
            <Route default component={principal.admin ? NotFound : PartnerHome} />
          </Router>
        </main>
      </LocationProvider>
    </Principal.Provider>
  );
}

function Nav({ pages, principal, onSignOut }) {
  const { path } = useLocation();
  return (
    <header>
      <a class="brand" href={base}>
        StreamOps
      </a>
      <nav>
        {pages.map((p) => (
          <a href={p.path} class={path === p.path || (p.path !== base && path.startsWith(p.path + '/')) ? 'active' : ''}>
            {p.title}
          </a>
        ))}
      </nav>
      {principal.admin ? <TraceSearch compact /> : null}
      <span class="who" data-testid="principal">
        {principal.admin ? 'admin' : `partner ${principal.partnerId}`}
      </span>
      <button class="secondary" onClick={onSignOut}>
        Sign out
      </button>
    </header>
  );
}

function SignIn({ onToken, error }) {
  const submit = (e) => {
    e.preventDefault();
    const t = new FormData(e.currentTarget).get('token');
    if (String(t).trim()) {
      token.set(String(t));
      onToken(token.get());
    }
  };
  return (
    <main class="signin">
      <h1>StreamOps console</h1>
      <p>
        Paste a token of the API: locally the admin token <code>make run</code> prints (or a partner token of{' '}
        <code>STREAMOPS_PARTNER_TOKENS</code>); on AWS a JWT of the configured issuer. It is kept for this tab only.
      </p>
      <ErrorBox error={error} />
      <form onSubmit={submit}>
        <input name="token" type="password" autocomplete="off" placeholder="Bearer token" aria-label="token" />
        <button type="submit">Sign in</button>
      </form>
    </main>
  );
}

function NotFound() {
  return (
    <section>
      <h1>Not found</h1>
      <p>
        <a href={base}>Overview</a>
      </p>
    </section>
  );
}

// PartnerHome: a partner token's start page is its own partner page.
function PartnerHome() {
  const principal = useContext(Principal);
  return <Partner id={principal.partnerId} />;
}

render(<App />, document.getElementById('app'));
