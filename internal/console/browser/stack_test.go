//go:build browser

package browser_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/local"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
	"github.com/streamops/streamops/internal/testenv"
)

const (
	adminToken   = "console-admin-token"
	acmeToken    = "console-acme-token"
	stripeSecret = "whsec_Y29uc29sZS1zdHJpcGUtc2VjcmV0"
	acmeSecret   = "console-acme-secret"
	// globexURL is a configured partner's delivery URL with credentials
	// in it: the console shows it as globexShown, to admins only.
	globexURL   = "https://svc:globex-password@hooks.globex.example/streamops?key=globex-key"
	globexShown = "https://REDACTED@hooks.globex.example/streamops?key=REDACTED"
)

// stack is the local stack the console is served by, and what the tests
// seeded into it through the public routes.
type stack struct {
	*local.Stack
	t       *testing.T
	logs    *testenv.Output
	api     testenv.API
	acmeURL string // acme's delivery endpoint (the partners file)

	stripeExecution string   // the webhook event id of the Stripe delivery
	stripeWorkflow  string   // the workflow it started
	acmeExecutions  []string // the acme deliveries' webhook event ids
	acmeWorkflows   []string // the workflows they started
	failedWebhook   string   // an acme delivery whose routing failed
	taskID          string
	failedWorkflow  string        // a submitted workflow whose deliver step has no target
	poison          []*kgo.Record // records dead-lettered by the task processor
}

// startStack starts the local stack on free ports with acme's partner
// endpoint answering 503 (so its deliveries fail and its breaker opens), a
// second partner globex nothing is delivered to, an acme partner token,
// and the schedules every 200 ms.
func startStack(t *testing.T) *stack {
	t.Helper()
	return startStackWith(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "acme is down for maintenance", http.StatusServiceUnavailable)
	}), "")
}

// startStackWith is startStack with acme's endpoint served by acme and
// acmeFields (such as `,"rateLimit":20`) added to acme's entry of the
// partners file.
func startStackWith(t *testing.T, acme http.Handler, acmeFields string) *stack {
	t.Helper()
	dir := t.TempDir()
	partner := httptest.NewServer(acme)
	t.Cleanup(partner.Close)
	partners := filepath.Join(dir, "partners.json")
	require.NoError(t, os.WriteFile(partners, fmt.Appendf(nil, `[{"id":"acme","name":"Acme Corp","url":%q%s},{"id":"globex","name":"Globex","url":%q}]`,
		partner.URL, acmeFields, globexURL), 0o600))
	env := map[string]string{
		provider.SecretEnvVar("stripe"): stripeSecret,
		provider.SecretEnvVar("acme"):   acmeSecret,
		"PARTNER_SECRET_ACME":           "whsec_YWNtZS1wYXJ0bmVyLXNpZ25pbmc=",
	}
	db := storetest.Configure(t, store.Config{})
	l := &testenv.Output{}
	s, err := local.Start(context.Background(), local.Config{
		DataDir: filepath.Join(dir, "data"), HTTPAddr: "127.0.0.1:0", KafkaAddr: "127.0.0.1:0",
		MongoURI: db.URI, Database: db.Database, ScheduleInterval: 200 * time.Millisecond,
		AdminToken: adminToken, PartnerTokens: "acme=" + acmeToken, PartnersFile: partners,
		LogOutput: l, Getenv: func(k string) string { return env[k] },
	})
	require.NoError(t, err)
	st := &stack{Stack: s, t: t, logs: l, api: testenv.API{URL: s.URL(), Token: adminToken}, acmeURL: partner.URL}
	t.Cleanup(func() {
		_ = s.Shutdown(context.Background())
		if t.Failed() {
			t.Logf("last log lines of the stack:\n%s", l.Tail(40))
		}
	})
	return st
}

// call sends a request (with the admin token on /api/ routes, unless
// header sets another Authorization) and decodes the JSON answer into out.
func (s *stack) call(method, path string, body []byte, header http.Header, out any) int {
	s.t.Helper()
	return s.api.Call(s.t, method, path, body, header, out)
}

// webhook delivers body to the named provider, signed with secret as that provider
// signs, and returns the status and the webhook event id.
func (s *stack) webhook(name, secret string, body []byte) (int, string) {
	s.t.Helper()
	h := testenv.Sign(s.t, s.Providers(), name, body, secret, provider.SignOptions{Now: time.Now()})
	var receipt struct {
		WebhookEventID string `json:"webhookEventId"`
	}
	return s.call(http.MethodPost, "/webhooks/"+name, body, h, &receipt), receipt.WebhookEventID
}

// eventually polls cond for up to d (testenv.Eventually).
func (s *stack) eventually(d time.Duration, cond func() bool, msg string) {
	s.t.Helper()
	testenv.Eventually(s.t, d, cond, "%s", msg)
}

// eventTypes lists the types of the events GET /api/events answers q with.
func (s *stack) eventTypes(q url.Values) []events.Type {
	s.t.Helper()
	var page struct {
		Events []events.Envelope `json:"events"`
	}
	q.Set("limit", "1000")
	require.Equal(s.t, http.StatusOK, s.call(http.MethodGet, "/api/events?"+q.Encode(), nil, nil, &page))
	out := make([]events.Type, len(page.Events))
	for i, e := range page.Events {
		out[i] = e.EventType
	}
	return out
}

// seed creates, through the public routes only, what the pages show: a
// Stripe webhook run to a completed workflow, five acme orders whose
// partner deliveries fail until acme's breaker opens, an acme delivery
// that cannot be routed (a failed webhook event), an email task, a
// workflow that fails (its deliver step has no target), and two records
// on tasks that are no envelope (dead letters).
func (s *stack) seed() {
	t := s.t
	code, id := s.webhook("stripe", stripeSecret, local.SampleInvoiceFinalized(time.Now()))
	require.Equal(t, http.StatusAccepted, code)
	s.stripeExecution = id
	for i := range 5 {
		body := fmt.Appendf(nil, `{"eventId":"acme-console-%d","eventType":"OR_MGMT","order":{"id":"order-%d","orderStatusLatest":"OR_PLC",`+
			`"customer":{"email":"grace@example.com"},"orderSummary":{"currency":"USD","total":%d.5}}}`, i, 1000+i, 100+i)
		code, id := s.webhook("acme", acmeSecret, body)
		require.Equal(t, http.StatusAccepted, code)
		s.acmeExecutions = append(s.acmeExecutions, id)
	}
	_, s.failedWebhook = s.webhook("acme", acmeSecret, []byte(`{"eventId":"acme-console-broken","eventType":"OR_MGMT","order":{}}`))
	var task struct {
		TaskID string `json:"taskId"`
	}
	require.Equal(t, http.StatusCreated, s.call(http.MethodPost, "/api/tasks",
		[]byte(`{"type":"email_notification","data":{"recipient":"ops@example.com","subject":"console","body":"hello"}}`), nil, &task))
	s.taskID = task.TaskID
	var wf struct {
		WorkflowID string `json:"workflowId"`
	}
	require.Equal(t, http.StatusCreated, s.call(http.MethodPost, "/api/workflows",
		[]byte(`{"name":"Broken Delivery","steps":["validate","deliver"],"priority":"low","input":{"records":[{"id":1}]}}`), nil, &wf))
	s.failedWorkflow = wf.WorkflowID

	cl, err := kgo.NewClient(kgo.SeedBrokers(s.Brokers()...))
	require.NoError(t, err)
	defer cl.Close()
	for i := range 2 {
		r := &kgo.Record{Topic: events.TopicTasks, Key: fmt.Appendf(nil, "poison-%d", i),
			Value: fmt.Appendf(nil, `{"console-poison":%d,"note":"not an envelope"}`, i)}
		require.NoError(t, cl.ProduceSync(context.Background(), r).FirstErr())
		s.poison = append(s.poison, r)
	}

	s.eventually(60*time.Second, func() bool {
		types := s.eventTypes(url.Values{"execution_id": {s.stripeExecution}})
		for _, typ := range types {
			if typ == events.WorkflowCompleted {
				return true
			}
		}
		return false
	}, "the Stripe webhook's workflow did not complete")
	s.stripeWorkflow = s.workflowOf(s.stripeExecution)
	for _, ex := range s.acmeExecutions {
		s.acmeWorkflows = append(s.acmeWorkflows, s.workflowOf(ex))
	}
	s.eventually(60*time.Second, func() bool {
		var tk struct {
			Status string `json:"status"`
		}
		return s.call(http.MethodGet, "/api/tasks/"+s.taskID, nil, nil, &tk) == http.StatusOK && tk.Status == status.TaskCompleted
	}, "the email task did not complete")
	s.eventually(60*time.Second, func() bool {
		var st struct {
			Status string `json:"status"`
		}
		return s.call(http.MethodGet, "/api/workflows/"+s.failedWorkflow, nil, nil, &st) == http.StatusOK && st.Status == status.WorkflowFailed
	}, "the workflow without a delivery target did not fail")
	s.eventually(60*time.Second, func() bool {
		var page struct {
			DeadLetters []store.DeadLetterEntry `json:"deadLetters"`
		}
		s.call(http.MethodGet, "/api/dead-letters?topic=tasks", nil, nil, &page)
		return len(page.DeadLetters) == 2
	}, "the poison records were not dead-lettered")
	s.eventually(60*time.Second, func() bool {
		var ep store.PartnerEndpoint
		s.call(http.MethodGet, "/api/partners/acme/endpoint", nil, nil, &ep)
		return ep.State == status.BreakerOpen
	}, "acme's breaker did not open")
}

// workflowOf is the workflow a webhook delivery started.
func (s *stack) workflowOf(execution string) string {
	s.t.Helper()
	var page struct {
		Events []events.Envelope `json:"events"`
	}
	s.call(http.MethodGet, "/api/events?event_types=workflow.created&execution_id="+execution, nil, nil, &page)
	require.Len(s.t, page.Events, 1, "the workflow.created of execution %s", execution)
	return page.Events[0].AggregateID()
}

// deadLetterOf is the dead letter of a poison record, found through the
// API by its origin.
func (s *stack) deadLetterOf(r *kgo.Record) store.DeadLetterEntry {
	s.t.Helper()
	var page struct {
		DeadLetters []store.DeadLetterEntry `json:"deadLetters"`
	}
	s.call(http.MethodGet, "/api/dead-letters?topic=tasks&status=all", nil, nil, &page)
	for _, d := range page.DeadLetters {
		if d.Partition == r.Partition && d.Offset == r.Offset {
			return d
		}
	}
	s.t.Fatalf("no dead letter of tasks-%d@%d", r.Partition, r.Offset)
	return store.DeadLetterEntry{}
}

// recordsWithValue reads topic from its start and counts the records
// whose value is value, until want are found or d has passed.
func (s *stack) recordsWithValue(topic string, value []byte, want int, d time.Duration) int {
	s.t.Helper()
	n := 0
	testenv.Scan(s.t, s.Brokers(), topic, d, func(r *kgo.Record) bool {
		if bytes.Equal(r.Value, value) {
			n++
		}
		return n >= want
	})
	return n
}
