//go:build browser

package browser_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/partners/partner"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/subscribe"
	"github.com/streamops/streamops/internal/testenv"
)

// hookAnswer is what the created partner's endpoint answers every
// request: the send test shows it.
const hookAnswer = `{"received":true}`

// hookEndpoint is the created partner's endpoint: it answers 202 with
// hookAnswer and keeps every request it got.
type hookEndpoint struct {
	mu  sync.Mutex
	got []hookRequest
}

// hookRequest is one request the endpoint got.
type hookRequest struct {
	header http.Header
	body   []byte
}

func (h *hookEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	h.mu.Lock()
	h.got = append(h.got, hookRequest{r.Header.Clone(), body})
	h.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusAccepted)
	_, _ = io.WriteString(w, hookAnswer)
}

// find is the first request whose webhook-id header has the prefix and
// whose body holds want, or false.
func (h *hookEndpoint) find(idPrefix, want string) (hookRequest, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range h.got {
		if strings.HasPrefix(r.header.Get("webhook-id"), idPrefix) && strings.Contains(string(r.body), want) {
			return r, true
		}
	}
	return hookRequest{}, false
}

// jsonOf is v as JSON, for assert.JSONEq.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// input sets the value of the form field sel selects as typing does: its
// input and change events fire, so the page's state follows.
func input(sel, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.value = %q; `+
		`e.dispatchEvent(new Event('input', {bubbles: true})); e.dispatchEvent(new Event('change', {bubbles: true})); })()`, sel, value))
}

// scrollTo brings the element sel selects to the top of the viewport,
// for a screenshot of it.
func scrollTo(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).scrollIntoView({block: 'start'})`, sel))
}

// openEditor unfolds the partner page's editor, as a person clicks it
// open.
func (tb *tab) openEditor(t *testing.T) {
	t.Helper()
	tb.waitFor(t, `document.querySelector('[data-testid=partner-editor]')`, "the editor")
	if !eval[bool](t, tb, `document.querySelector('[data-testid=partner-editor]').open`) {
		tb.do(t, click(`[data-testid=partner-editor] > summary`))
	}
	tb.waitFor(t, `document.querySelector('[data-testid=partner-editor]').open`, "the editor open")
}

// reload opens url in a new document, also when the tab shows it
// already, and waits for cond there: the old document is marked, so a
// condition it meets does not stand for the new one's.
func (tb *tab) reload(t *testing.T, url, cond, what string) {
	t.Helper()
	tb.do(t, chromedp.Evaluate[chromedp.Void](`window.leftForReload = true`))
	tb.open(t, url, `!window.leftForReload && (`+cond+`)`, what)
}

// value is the value of the form field sel selects.
func value(t *testing.T, tb *tab, sel string) string {
	t.Helper()
	return eval[string](t, tb, fmt.Sprintf(`document.querySelector(%q).value`, sel))
}

// TestConsolePartnerEditor drives the partner editor against the local
// stack, a table of cases in order on one partner: an admin creates it
// from the Partners page (the filter tester of the create form shows
// which stored events a subscription matches; the secret is shown once,
// and not after a reload), edits it at its version (a change made
// elsewhere in between is a 409 version_conflict the page says and
// reloads from), saves a filter the API refuses (the error names
// subscriptions[0].filter.payload.name.$regex next to the row) and one
// it takes (the tester shows the matching events, and a new matching
// event reaches the endpoint), rotates its secret (the new one shown
// once, the old one signing beside it), sends a test (the endpoint's
// answer shown; the request verifies with both secrets), disables and
// enables it, and deletes it (its waiting delivery cancelled). acme's
// own token edits only its URL and subscriptions, and a partner the
// store does not keep is read-only.
// Screenshots: partner-new, partner-created, partner-editor,
// partner-rotate, partner-token-editor.
func TestConsolePartnerEditor(t *testing.T) {
	hook := &hookEndpoint{}
	endpoint := httptest.NewServer(hook)
	t.Cleanup(endpoint.Close)
	s := startStack(t)
	b := newBrowser(t)
	admin := b.newTab(t)
	admin.signIn(t, s.URL(), adminToken, "admin")

	const id = "orders-hub"
	page := s.URL() + "/console/partners/" + id
	stored := func(id string) partner.View {
		var p partner.View
		require.Equal(t, http.StatusOK, s.call(http.MethodGet, "/api/partners/"+id, nil, nil, &p))
		return p
	}
	// workflow submits a one-step workflow named name and waits for its
	// workflow.completed, which it returns.
	workflow := func(t *testing.T, name string) events.Envelope {
		var wf struct {
			WorkflowID string `json:"workflowId"`
		}
		require.Equal(t, http.StatusCreated, s.call(http.MethodPost, "/api/workflows",
			fmt.Appendf(nil, `{"name":%q,"steps":["validate"],"priority":"low","input":{"records":[{"id":1}]}}`, name), nil, &wf))
		var done events.Envelope
		testenv.Eventually(t, 60*time.Second, func() bool {
			var res struct {
				Events []events.Envelope `json:"events"`
			}
			s.call(http.MethodGet, "/api/events?event_types=workflow.completed&limit=1000", nil, nil, &res)
			for _, e := range res.Events {
				if e.AggregateID() == wf.WorkflowID {
					done = e
					return true
				}
			}
			return false
		}, "workflow "+name+" did not complete")
		return done
	}
	row := func(form string, i int) string {
		return fmt.Sprintf(`[data-testid=%s] [data-testid=subscription][data-index="%d"]`, form, i)
	}
	editor := `[data-testid=edit-partner]`

	orders := []events.Envelope{workflow(t, "orders"), workflow(t, "orders")}
	refunds := workflow(t, "refunds")
	var firstSecret, secondSecret string

	cases := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"CreateShowsTheSecretOnce", func(t *testing.T) {
			admin.open(t, s.URL()+"/console/partners", `document.querySelector('[data-testid=new-partner]')`, "the New partner button")
			admin.do(t, click(`[data-testid=new-partner]`))
			admin.waitFor(t, `document.querySelector('[data-testid=new-partner-form]')`, "the create form")
			form := `[data-testid=new-partner-form]`
			admin.do(t, input(form+` input[name=id]`, id), input(form+` input[name=name]`, "Orders Hub"),
				input(form+` input[name=url]`, endpoint.URL+"/in"), input(form+` input[name=rateLimit]`, "5"),
				input(form+` input[name=maxInFlight]`, "2"), click(form+` input[name=clearPersonalData][value=email]`),
				click(form+` [data-testid=sub-add]`))
			admin.waitFor(t, fmt.Sprintf(`document.querySelector(%q)`, row("new-partner-form", 0)), "a subscription row")
			admin.do(t, input(row("new-partner-form", 0)+` [data-testid=sub-types]`, "workflow.completed"),
				input(row("new-partner-form", 0)+` [data-testid=sub-filter]`, `{"payload.name": "orders"}`),
				click(row("new-partner-form", 0)+` [data-testid=sub-test]`))
			// The partner does not exist yet: the tester tries the form's
			// subscription all the same.
			admin.do(t, input(`[data-testid=tester-last]`, "1000"), click(`[data-testid=tester-run]`))
			admin.waitFor(t, `document.querySelector('[data-testid=tester-result]')?.dataset.matched === '2'`, "the two orders workflows match")
			admin.screenshot(t, "partner-new")

			admin.do(t, click(`[data-testid=create-partner]`))
			admin.waitFor(t, fmt.Sprintf(`location.pathname === '/console/partners/%s' && document.querySelector('[data-testid=secret-value]')?.value.startsWith('whsec_')`, id),
				"the partner's page with its secret")
			firstSecret = value(t, admin, `[data-testid=secret-value]`)
			contains(t, admin, "shown this once: you will not see it again")
			p := stored(id)
			require.Len(t, p.Secrets, 1)
			assert.Equal(t, p.Secrets[0].ID, eval[string](t, admin, `document.querySelector('[data-testid=secret-once]').dataset.secretId`))
			assert.Equal(t, "Orders Hub", p.Name)
			assert.Equal(t, endpoint.URL+"/in", p.URL)
			assert.Equal(t, 5.0, *p.RateLimit)
			assert.Equal(t, 2, *p.MaxInFlight)
			assert.Equal(t, []string{"email"}, p.ClearPersonalData)
			require.Len(t, p.Subscriptions, 1)
			assert.JSONEq(t, `{"eventTypes":["workflow.completed"],"filter":{"payload.name":"orders"}}`, jsonOf(t, p.Subscriptions[0]))
			admin.waitFor(t, `document.querySelector('[data-testid=partner-editor]')?.open`, "the editor, open after the create")
			admin.screenshot(t, "partner-created")

			// Gone after a reload, and kept nowhere in the page or the tab.
			admin.reload(t, page, `document.querySelector('[data-testid=partner-editor]')`, "the partner's page again")
			assert.Zero(t, count(t, admin, `[data-testid=secret-once]`))
			assert.False(t, eval[bool](t, admin, `document.querySelector('[data-testid=partner-editor]').open`), "folded on a later visit")
			admin.openEditor(t)
			assert.False(t, eval[bool](t, admin, fmt.Sprintf(`document.documentElement.outerHTML.includes(%q) || `+
				`JSON.stringify(sessionStorage).includes(%q) || JSON.stringify(localStorage).includes(%q) || location.href.includes(%q)`,
				firstSecret, firstSecret, firstSecret, firstSecret)), "the secret is nowhere after a reload")
			admin.noConsoleErrors(t)
		}},
		{"EditSavesTheChangedFields", func(t *testing.T) {
			before := stored(id)
			assert.Equal(t, fmt.Sprint(before.Version), texts(t, admin, `[data-testid=partner-version]`)[0])
			admin.do(t, input(editor+` input[name=name]`, "Orders Hub EU"), input(editor+` input[name=maxInFlight]`, ""),
				click(`[data-testid=save-partner]`))
			admin.waitFor(t, `document.querySelector('[data-testid=saved]')`, "saved")
			after := stored(id)
			assert.Equal(t, before.Version+1, after.Version)
			assert.Equal(t, "Orders Hub EU", after.Name)
			assert.Nil(t, after.MaxInFlight, "an emptied limit is cleared")
			assert.Equal(t, 5.0, *after.RateLimit, "an unchanged field stays")
			assert.Equal(t, before.URL, after.URL)
			contains(t, admin, "name, maxInFlight changed")
			admin.waitFor(t, fmt.Sprintf(`document.querySelector('[data-testid=partner-version]').textContent === '%d' && `+
				`document.querySelector(%q).value === 'Orders Hub EU'`, after.Version, editor+` input[name=name]`), "the form at the new version")
			admin.noConsoleErrors(t)
		}},
		{"VersionConflictSaysSoAndReloads", func(t *testing.T) {
			read := stored(id)
			// Someone else changes the partner after the page read it.
			require.Equal(t, http.StatusOK, s.call(http.MethodPatch, "/api/partners/"+id, []byte(`{"name":"Renamed elsewhere"}`), nil, nil))
			admin.do(t, input(editor+` input[name=rateLimit]`, "7"), click(`[data-testid=save-partner]`))
			admin.waitFor(t, `document.querySelector('[data-testid=conflict] [role=alert]')`, "the conflict")
			assert.Contains(t, texts(t, admin, `[data-testid=conflict] [role=alert]`)[0], "409 version_conflict")
			contains(t, admin, "nothing was saved")
			admin.waitFor(t, fmt.Sprintf(`document.querySelector(%q).value === 'Renamed elsewhere' && document.querySelector(%q).value === '5' && `+
				`document.querySelector('[data-testid=partner-version]').textContent === '%d'`, editor+` input[name=name]`, editor+` input[name=rateLimit]`, read.Version+1),
				"the form reloaded at the current version")
			p := stored(id)
			assert.Equal(t, 5.0, *p.RateLimit, "nothing of the refused change was saved")
			assert.Equal(t, read.Version+1, p.Version)
			admin.noConsoleErrors(t, regexp.MustCompile(`status of 409 .*/api/partners/`+id))
		}},
		{"BadFilterNamesTheField", func(t *testing.T) {
			before := stored(id)
			filter := row("edit-partner", 0) + ` [data-testid=sub-filter]`
			// Not JSON: the page says so and sends nothing.
			admin.do(t, input(filter, `{"payload.name": `), click(`[data-testid=save-partner]`))
			admin.waitFor(t, fmt.Sprintf(`document.querySelector(%q)?.textContent.includes('subscriptions[0].filter')`, row("edit-partner", 0)+` [role=alert]`), "the JSON error in the row")
			// JSON, but an operator the API refuses: its 400 names the field.
			admin.do(t, input(filter, `{"payload.name": {"$regex": "^ord"}}`), click(`[data-testid=save-partner]`))
			admin.waitFor(t, fmt.Sprintf(`document.querySelector(%q)?.textContent.includes('400 validation_failed')`, row("edit-partner", 0)+` [role=alert]`), "the API's refusal in the row")
			assert.Contains(t, texts(t, admin, row("edit-partner", 0)+` [role=alert]`)[0], "(field subscriptions[0].filter.payload.name.$regex)")
			assert.Equal(t, before.Version, stored(id).Version, "nothing saved")
			assert.Equal(t, before.Subscriptions, stored(id).Subscriptions)
			// The tester names the tested subscription's field the same way.
			admin.do(t, click(row("edit-partner", 0)+` [data-testid=sub-test]`), click(`[data-testid=tester-run]`))
			admin.waitFor(t, `document.querySelector('[data-testid=filter-tester] [role=alert]')?.textContent.includes('subscription.filter.payload.name.$regex')`, "the tester's refusal")
			admin.noConsoleErrors(t, regexp.MustCompile(`status of 400 .*/api/partners/`+id))
		}},
		{"GoodFilterTesterShowsMatches", func(t *testing.T) {
			filter := row("edit-partner", 0) + ` [data-testid=sub-filter]`
			admin.do(t, input(row("edit-partner", 0)+` [data-testid=sub-types]`, "workflow.completed, task.*"),
				input(filter, `{"payload.name": "orders"}`), input(`[data-testid=tester-last]`, "1000"), click(`[data-testid=tester-run]`))
			admin.waitFor(t, `document.querySelector('[data-testid=tester-result]')?.dataset.matched === '2'`, "two matches")
			assert.ElementsMatch(t, []string{orders[0].EventID, orders[1].EventID},
				eval[[]string](t, admin, `[...document.querySelectorAll('[data-testid=tester-matched] tr[data-event-id]')].map(r => r.dataset.eventId)`),
				"the orders workflows' completions, and only those")
			assert.Equal(t, "filter", eval[string](t, admin, fmt.Sprintf(`document.querySelector('[data-testid=tester-unmatched] tr[data-event-id=%q]').dataset.reason`, refunds.EventID)),
				"the refunds workflow fails on the filter")
			admin.do(t, scrollTo(`[data-testid=partner-editor]`))
			admin.screenshot(t, "partner-editor")

			// A pasted event: the refunds workflow's completion does not match.
			refundsJSON, err := json.Marshal(refunds)
			require.NoError(t, err)
			admin.do(t, click(`[data-testid=tester-source-event]`))
			admin.waitFor(t, `document.querySelector('[data-testid=tester-event]')`, "the event box")
			admin.do(t, input(`[data-testid=tester-event]`, string(refundsJSON)), click(`[data-testid=tester-run]`))
			admin.waitFor(t, `document.querySelector('[data-testid=tester-result]')?.dataset.evaluated === '1' && `+
				`document.querySelector('[data-testid=tester-result]').dataset.matched === '0'`, "one event, no match")

			admin.do(t, click(`[data-testid=save-partner]`))
			admin.waitFor(t, `document.querySelector('[data-testid=saved]')`, "saved")
			p := stored(id)
			require.Len(t, p.Subscriptions, 1)
			assert.JSONEq(t, `{"eventTypes":["workflow.completed","task.*"],"filter":{"payload.name":"orders"}}`, jsonOf(t, p.Subscriptions[0]))
			// Saved is live: once the partner directory has it (within
			// STREAMOPS_PARTNERS_REFRESH), the next orders workflow reaches
			// the endpoint.
			testenv.Eventually(t, 30*time.Second, func() bool {
				var res struct {
					Subscriptions []subscribe.Subscription `json:"subscriptions"`
				}
				return s.call(http.MethodPost, "/api/partners/"+id+"/subscriptions/test", []byte(`{"last":1}`), nil, &res) == http.StatusOK &&
					len(res.Subscriptions) == 1 && jsonOf(t, res.Subscriptions[0]) == jsonOf(t, p.Subscriptions[0])
			}, "the partner directory has the saved subscription")
			next := workflow(t, "orders")
			testenv.Eventually(t, 60*time.Second, func() bool { _, ok := hook.find("", next.AggregateID()); return ok }, "the next orders completion delivered")
			admin.noConsoleErrors(t)
		}},
		{"RotateShowsTheNewSecretOnce", func(t *testing.T) {
			admin.do(t, click(`[data-testid=rotate-start]`))
			admin.waitFor(t, `document.querySelector('[data-testid=rotate-confirm]')`, "the confirmation")
			assert.Equal(t, "24h", value(t, admin, `[data-testid=rotate-overlap]`), "the default overlap")
			admin.do(t, input(`[data-testid=rotate-overlap]`, "1h"), click(`[data-testid=rotate-yes]`))
			admin.waitFor(t, `document.querySelector('[data-testid=rotate] [data-testid=secret-value]')?.value.startsWith('whsec_')`, "the new secret")
			secondSecret = value(t, admin, `[data-testid=rotate] [data-testid=secret-value]`)
			assert.NotEqual(t, firstSecret, secondSecret)
			assert.Equal(t, 1, count(t, admin, `[data-testid=old-secrets-stop]`), "when the old one stops")
			p := stored(id)
			require.Len(t, p.Secrets, 2)
			var ends []time.Time
			for _, sec := range p.Secrets {
				if sec.NotAfter != nil {
					ends = append(ends, *sec.NotAfter)
				}
			}
			require.Len(t, ends, 1, "the old secret ends, the new one does not")
			assert.WithinDuration(t, time.Now().Add(time.Hour), ends[0], 5*time.Minute, "after the overlap asked for")
			admin.waitFor(t, `document.querySelectorAll('[data-testid=secrets] tbody tr').length === 2`, "both secrets listed")
			admin.do(t, scrollTo(`[data-testid=rotate]`))
			admin.screenshot(t, "partner-rotate")
			admin.do(t, click(`[data-testid=secret-done]`))
			admin.waitFor(t, `!document.querySelector('[data-testid=secret-once]')`, "the secret hidden")
			assert.False(t, eval[bool](t, admin, fmt.Sprintf(`document.documentElement.outerHTML.includes(%q)`, secondSecret)))
			admin.noConsoleErrors(t)
		}},
		{"SendTestShowsTheAnswer", func(t *testing.T) {
			admin.do(t, input(`[data-testid=send-test-type]`, string(events.WorkflowCompleted)), click(`[data-testid=send-test-run]`))
			admin.waitFor(t, `document.querySelector('[data-testid=send-test-result]')?.dataset.delivered === 'true'`, "the test's answer")
			assert.Equal(t, "202", texts(t, admin, `[data-testid=send-test-status]`)[0])
			assert.Equal(t, hookAnswer, texts(t, admin, `[data-testid=send-test-body]`)[0])
			got, ok := hook.find("test-", `"workflow.completed"`)
			require.True(t, ok, "the endpoint got the test")
			for _, secret := range []string{firstSecret, secondSecret} {
				wh, err := standardwebhooks.NewWebhook(secret)
				require.NoError(t, err)
				assert.NoError(t, wh.Verify(got.body, got.header), "signed with each live secret the page showed")
			}
			admin.noConsoleErrors(t)
		}},
		{"DisableAndEnable", func(t *testing.T) {
			admin.do(t, click(`[data-testid=disable]`))
			admin.waitFor(t, `document.querySelector('[data-testid=disable-confirm]')`, "the confirmation")
			admin.do(t, input(`[data-testid=disable-reason]`, "moving data centres"), click(`[data-testid=disable-yes]`))
			admin.waitFor(t, `document.querySelector('[data-testid=disabled-state]').dataset.disabled === 'true' && `+
				`document.querySelector('[data-testid=disabled-reason]')?.textContent === 'moving data centres'`, "disabled, and why")
			p := stored(id)
			assert.True(t, p.Disabled)
			assert.Equal(t, "moving data centres", p.DisabledReason)
			admin.do(t, click(`[data-testid=enable]`))
			admin.waitFor(t, `document.querySelector('[data-testid=enable-confirm]')`, "the confirmation")
			contains(t, admin, "waiting deliveries go out under its limits")
			admin.do(t, click(`[data-testid=enable-yes]`))
			admin.waitFor(t, `document.querySelector('[data-testid=disabled-state]').dataset.disabled === 'false'`, "enabled")
			assert.False(t, stored(id).Disabled)
			admin.noConsoleErrors(t)
		}},
		{"PartnerTokenEditsItsURLAndSubscriptionsOnly", func(t *testing.T) {
			acme := b.newTab(t)
			acme.signIn(t, s.URL(), acmeToken, "partner acme")
			acme.open(t, s.URL()+"/console/partners/acme", `document.querySelector('[data-testid=partner-editor]')`, "its editor")
			acme.openEditor(t)
			for _, field := range []string{"name", "rateLimit", "maxInFlight"} {
				assert.True(t, eval[bool](t, acme, fmt.Sprintf(`document.querySelector('%s input[name=%s]').disabled`, editor, field)), field+" not offered")
			}
			assert.True(t, eval[bool](t, acme, `document.querySelector('[data-testid=clear-personal-data]').disabled`), "clearPersonalData not offered")
			assert.False(t, eval[bool](t, acme, fmt.Sprintf(`document.querySelector('%s input[name=url]').disabled`, editor)), "its url is")
			for _, sel := range []string{`[data-testid=disable]`, `[data-testid=enable]`, `[data-testid=delete-start]`, `[data-testid=pause]`} {
				assert.Zero(t, count(t, acme, sel), sel)
			}
			for _, sel := range []string{`[data-testid=rotate-start]`, `[data-testid=send-test-run]`, `[data-testid=sub-add]`, `[data-testid=locked-note]`} {
				assert.Equal(t, 1, count(t, acme, sel), sel)
			}
			before := stored("acme")
			acme.do(t, input(editor+` input[name=url]`, endpoint.URL+"/acme"), click(`[data-testid=sub-add]`))
			acme.waitFor(t, fmt.Sprintf(`document.querySelector(%q)`, row("edit-partner", 0)), "a subscription row")
			acme.do(t, input(row("edit-partner", 0)+` [data-testid=sub-types]`, "task.*"), click(`[data-testid=save-partner]`))
			acme.waitFor(t, `document.querySelector('[data-testid=saved]')`, "saved")
			after := stored("acme")
			assert.Equal(t, endpoint.URL+"/acme", after.URL)
			require.Len(t, after.Subscriptions, 1)
			assert.JSONEq(t, `{"eventTypes":["task.*"]}`, jsonOf(t, after.Subscriptions[0]))
			assert.Equal(t, before.Name, after.Name, "what an operator sets stays")
			acme.do(t, scrollTo(`[data-testid=partner-editor]`))
			acme.screenshot(t, "partner-token-editor")
			acme.reload(t, s.URL()+"/console/partners", `document.querySelector('[data-testid=partner-list]')`, "its partner list")
			assert.Zero(t, count(t, acme, `[data-testid=new-partner]`), "no create for a partner token")
			acme.noConsoleErrors(t)
		}},
		{"DeleteCancelsWaitingDeliveries", func(t *testing.T) {
			// Paused, the partner's next matching event waits as a delivery.
			require.Equal(t, http.StatusOK, s.call(http.MethodPost, "/api/partners/"+id+"/pause", []byte(`{}`), nil, nil))
			waiting := workflow(t, "orders")
			admin.reload(t, page, `document.querySelector('[data-testid=backlog]')?.dataset.count === '1' && document.querySelector('[data-testid=delete-start]')`,
				"one waiting delivery, and the editor")
			admin.openEditor(t)
			admin.do(t, click(`[data-testid=delete-start]`))
			admin.waitFor(t, `document.querySelector('[data-testid=delete-confirm]')`, "the confirmation")
			assert.Equal(t, "1", texts(t, admin, `[data-testid=delete-backlog]`)[0])
			contains(t, admin, "are cancelled")
			admin.do(t, click(`[data-testid=delete-yes]`))
			admin.waitFor(t, `document.querySelector('[data-testid=read-only-note]')?.dataset.deleted === 'true' && document.querySelector('[data-testid=deleted-cancelled]')`,
				"deleted, read-only")
			assert.Contains(t, texts(t, admin, `[data-testid=deleted-cancelled]`)[0], "1 waiting delivery cancelled")
			assert.Zero(t, count(t, admin, `[data-testid=partner-editor]`), "no editor for a deleted partner")
			assert.NotNil(t, stored(id).DeletedAt)
			var res struct {
				Deliveries []struct {
					Status    string `json:"status"`
					LastError string `json:"lastError"`
				} `json:"deliveries"`
			}
			require.Equal(t, http.StatusOK, s.call(http.MethodGet, "/api/partners/"+id+"/deliveries?status=dead_letter", nil, nil, &res))
			require.Len(t, res.Deliveries, 1, "the waiting delivery of %s", waiting.EventID)
			assert.Equal(t, status.OutboxDeadLetter, res.Deliveries[0].Status)
			assert.Contains(t, res.Deliveries[0].LastError, "partner deleted")
			admin.noConsoleErrors(t)
		}},
		{"NotKeptIsReadOnly", func(t *testing.T) {
			admin.reload(t, s.URL()+"/console/partners/nobody-keeps-me", `document.querySelector('[data-testid=read-only-note]')`, "the note")
			assert.Equal(t, "false", eval[string](t, admin, `document.querySelector('[data-testid=read-only-note]').dataset.deleted`))
			contains(t, admin, "is not kept in the store")
			for _, sel := range []string{`[data-testid=partner-editor]`, `[data-testid=disable]`, `[data-testid=send-test]`} {
				assert.Zero(t, count(t, admin, sel), sel)
			}
			admin.noConsoleErrors(t)
		}},
	}
	for _, tc := range cases {
		if !t.Run(tc.name, tc.run) {
			t.Fatalf("%s failed; the cases after it build on it", tc.name)
		}
	}
}
