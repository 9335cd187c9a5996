package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"go.mongodb.org/mongo-driver/bson"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/local"
	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/pii"
	"github.com/streamops/streamops/internal/testenv"
	"github.com/streamops/streamops/internal/vault"
)

// jane's data, in the forms the issue names: none of it may be stored or
// published in clear anywhere.
var jane = map[string]string{
	"email": "jane.doe@example.com", "phone": "+44 20 7946 0958", "card": "4242 4242 4242 4242",
	"iban": "DE89 3704 0044 0532 0130 00", "surname": "Featherstonehaugh", "ip": "203.0.113.77",
}

// bob is another person, whose data must still open after jane's erasure.
var bob = map[string]string{"email": "bob@example.org", "surname": "Okonkwo"}

// personalProviders routes Stripe's customer.created to an email task to
// the customer: the task's recipient is read from the protected payload.
const personalProviders = `{"providers":[{"name":"stripe","signature":{"scheme":"stripe"},
	"routes":[{"match":"customer.created","task":{"type":"email_notification","data":{"recipient":"data.object.email"}}}]}]}`

// recordingPartner keeps every body a partner endpoint received.
type recordingPartner struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies []string
}

func newRecordingPartner(t *testing.T) *recordingPartner {
	p := &recordingPartner{}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		p.mu.Lock()
		p.bodies = append(p.bodies, string(body))
		p.mu.Unlock()
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *recordingPartner) received() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.bodies...)
}

// TestPersonalDataIsNeverKeptInClearAndErasesEverywhere follows one
// person's data (an email, a phone number, a card number, an IBAN, a
// name under surname, an IP address under remote_addr) in through a
// signed webhook, an API workflow and an API task: every collection,
// every topic and the stack's log output hold none of it in clear; the
// webhook-routed email and the API's email go to the real recipient; a
// partner allowed clear values receives them, another receives
// references. Then the person is erased: no reference of theirs opens
// anywhere (the store, an export made before, the Kafka records), another
// person's still does, and a second erasure answers the same receipt.
func TestPersonalDataIsNeverKeptInClearAndErasesEverywhere(t *testing.T) {
	crm, plain := newRecordingPartner(t), newRecordingPartner(t)
	providers := filepath.Join(t.TempDir(), "providers.json")
	require.NoError(t, os.WriteFile(providers, []byte(personalProviders), 0o600))
	withList := withPartners(t,
		outbox.Partner{ID: "crm", Name: "CRM", URL: crm.srv.URL, ClearPersonalData: []string{outbox.AllClearPersonalData}},
		outbox.Partner{ID: "plain", Name: "Plain", URL: plain.srv.URL})
	s := startWith(t, "", nil, func(cfg *local.Config) {
		withList(cfg)
		cfg.ProvidersFile = providers
	})
	ctx := context.Background()

	hook := []byte(fmt.Sprintf(`{"id":"evt_pii_1","object":"event","type":"customer.created","created":1733100000,
		"data":{"object":{"id":"cus_PII1","object":"customer","email":%q,"phone":%q,
		"description":"card %s, iban %s","surname":%q,"remote_addr":%q}}}`,
		jane["email"], jane["phone"], jane["card"], jane["iban"], jane["surname"], jane["ip"]))
	require.Equal(t, http.StatusAccepted, s.call(http.MethodPost, "/webhooks/stripe", hook, s.signedStripe(hook), nil))
	record := fmt.Sprintf(`{"id":"r-1","amount":129.90,"sentAtMs":1655292809853,"contact":%q,"phone":%q,
		"note":"card %s iban %s","surname":%q,"remote_addr":%q}`,
		jane["email"], jane["phone"], jane["card"], jane["iban"], jane["surname"], jane["ip"])
	for _, target := range []string{"crm", "plain"} {
		body := []byte(fmt.Sprintf(`{"name":"Contact Sync","steps":["deliver"],"priority":"high",
			"input":{"deliver":{"target":%q},"records":[%s]}}`, target, record))
		require.Equal(t, http.StatusCreated, s.call(http.MethodPost, "/api/workflows", body, nil, nil), target)
	}
	bobs := []byte(fmt.Sprintf(`{"name":"Contact Sync","steps":["deliver"],"priority":"high",
		"input":{"deliver":{"target":"crm"},"records":[{"id":"r-2","contact":%q,"surname":%q}]}}`, bob["email"], bob["surname"]))
	require.Equal(t, http.StatusCreated, s.call(http.MethodPost, "/api/workflows", bobs, nil, nil))
	// A name in free text is no datum a detector can know; under surname it is.
	task := []byte(fmt.Sprintf(`{"type":"email_notification","data":{"recipient":%q,"subject":"Your order","body":"Hello","surname":%q}}`,
		jane["email"], jane["surname"]))
	require.Equal(t, http.StatusCreated, s.call(http.MethodPost, "/api/tasks", task, nil, nil))

	mails := func() []string {
		files, _ := filepath.Glob(filepath.Join(s.dir, "mail", "*.eml"))
		var out []string
		for _, f := range files {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			out = append(out, string(b))
		}
		return out
	}
	s.eventually(90*time.Second, func() bool { return len(mails()) == 2 && len(crm.received()) == 2 && len(plain.received()) == 1 },
		"2 emails, 2 CRM and 1 plain delivery: %d, %d, %d", len(mails()), len(crm.received()), len(plain.received()))

	for _, m := range mails() {
		assert.Contains(t, m, "To: <"+jane["email"]+">", "the email goes to the real recipient")
	}
	for _, b := range crm.received() {
		if strings.Contains(b, bob["email"]) {
			continue
		}
		for kind, v := range jane {
			assert.Contains(t, b, v, "the CRM may receive %s in clear", kind)
		}
	}
	for kind, v := range jane {
		assert.NotContains(t, plain.received()[0], v, "the plain partner receives references: %s", kind)
	}
	assert.Contains(t, plain.received()[0], "pii:email:")

	// Everything StreamOps keeps or publishes, and what it logged.
	copies := s.everyCopy(t)
	copies["log output"] = s.logs.String()
	for where, text := range copies {
		for kind, v := range jane {
			assert.NotContains(t, text, v, "%s holds jane's %s in clear", where, kind)
		}
		for kind, v := range bob {
			assert.NotContains(t, text, v, "%s holds bob's %s in clear", where, kind)
		}
	}

	code, export, err := s.do(http.MethodGet, "/api/events/export?format=ndjson", nil, nil)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, code, "%s", export)

	var rc vault.Receipt
	require.Equal(t, http.StatusOK, s.call(http.MethodPost, "/api/subjects/erase", []byte(`{"email":"Jane.Doe@example.com"}`), nil, &rc))
	require.NotEmpty(t, rc.Subjects)
	assert.False(t, rc.Repeated)
	assert.Equal(t, "email", rc.Request)
	var again vault.Receipt
	require.Equal(t, http.StatusOK, s.call(http.MethodPost, "/api/subjects/erase", []byte(`{"email":"jane.doe@example.com"}`), nil, &again))
	assert.True(t, again.Repeated)
	assert.Equal(t, rc.ReceiptID, again.ReceiptID, "a second erasure answers the same receipt")

	after := s.everyCopy(t)
	after["the export made before the erasure"] = string(export)
	opened := map[string]bool{}
	for where, text := range after {
		for _, value := range s.openEvery(t, text) {
			opened[value] = true
			for kind, v := range jane {
				assert.NotContains(t, value, v, "%s: a reference to jane's %s still opens", where, kind)
			}
		}
	}
	assert.True(t, opened[`"`+bob["email"]+`"`] || opened[bob["email"]], "bob's email still opens: %v", opened)
	assert.True(t, opened[`"`+bob["surname"]+`"`] || opened[bob["surname"]], "bob's name still opens")

	var erased int
	for _, text := range s.topicCopies(t) {
		if strings.Contains(text, `"eventType":"subject.erased"`) && strings.Contains(text, rc.ReceiptID) {
			erased++
		}
	}
	assert.Equal(t, 1, erased, "one subject.erased on operations")
	_ = ctx
}

// everyCopy is every document of every collection and every record of
// every topic, as text, named by where it is.
func (s *stack) everyCopy(t *testing.T) map[string]string {
	t.Helper()
	ctx := context.Background()
	out := s.topicCopies(t)
	counts, err := s.Store().DocumentCounts(ctx)
	require.NoError(t, err)
	for coll := range counts {
		docs, err := s.Store().Documents(ctx, coll)
		require.NoError(t, err)
		for i, d := range docs {
			raw, err := bson.MarshalExtJSON(d, false, false)
			require.NoError(t, err)
			out[fmt.Sprintf("%s[%d]", coll, i)] = string(raw)
		}
	}
	return out
}

// topicCopies is every record of every topic (key, headers and value).
func (s *stack) topicCopies(t *testing.T) map[string]string {
	t.Helper()
	ctx := context.Background()
	adm := kadm.NewClient(s.kafka())
	topics, err := adm.ListTopics(ctx)
	require.NoError(t, err)
	out := map[string]string{}
	for _, r := range testenv.ReadAll(t, s.Brokers(), 20*time.Second, topics.Names()...) {
		var b strings.Builder
		b.Write(r.Key)
		for _, h := range r.Headers {
			b.WriteString(" " + h.Key + "=" + string(h.Value))
		}
		b.WriteString(" " + string(r.Value))
		out[fmt.Sprintf("%s/%d@%d", r.Topic, r.Partition, r.Offset)] = b.String()
	}
	return out
}

// openEvery opens every reference in text with the stack's vault and
// returns the values that opened; one that does not open must be erased.
func (s *stack) openEvery(t *testing.T, text string) []string {
	t.Helper()
	var out []string
	for from := 0; from < len(text); {
		start, end := pii.FindReference(text, from)
		if start < 0 {
			break
		}
		from = end
		value, _, err := s.Vault().Resolve(context.Background(), text[start:end], vault.Purpose{Who: "test", Why: "erasure sweep"})
		switch {
		case err == nil:
			out = append(out, value)
		case errors.Is(err, vault.ErrErased):
		default:
			t.Errorf("reference %s: %v", text[start:end], err)
		}
	}
	return out
}

var _ = events.SubjectErased

// TestRotatingThePersonalDataKeyAtStartKeepsEveryReference: a stack
// restarted with RotatePIIKey (streamops run -rotate-pii-key) wraps every
// data subject's key with the key file's new generation before it
// serves, and what was stored before still opens.
func TestRotatingThePersonalDataKeyAtStartKeepsEveryReference(t *testing.T) {
	dir := t.TempDir()
	s := start(t, dir, nil)
	task := []byte(`{"type":"email_notification","data":{"recipient":"rota@example.com","subject":"hi","body":"hello"}}`)
	var created struct {
		TaskID string `json:"taskId"`
	}
	require.Equal(t, http.StatusCreated, s.call(http.MethodPost, "/api/tasks", task, nil, &created))
	require.NoError(t, s.Shutdown(context.Background()))

	r := startWith(t, dir, nil, func(cfg *local.Config) { cfg.RotatePIIKey = true })
	stored, err := r.Store().GetTask(context.Background(), created.TaskID)
	require.NoError(t, err)
	require.NotContains(t, string(stored.Data), "rota@example.com")
	back, err := r.Vault().ResolveDocument(context.Background(), stored.Data, vault.Purpose{Who: "test"}, nil)
	require.NoError(t, err)
	assert.Contains(t, string(back), `"rota@example.com"`, "stored before the rotation, opened after it")
	var rc struct {
		Subjects []struct {
			SubjectID string `json:"subjectId"`
		} `json:"subjects"`
	}
	require.Equal(t, http.StatusOK, r.call(http.MethodPost, "/api/subjects/lookup", []byte(`{"email":"rota@example.com"}`), nil, &rc))
	require.Len(t, rc.Subjects, 1)
	sub, err := r.Store().PIISubject(context.Background(), rc.Subjects[0].SubjectID)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(sub.WrappedKey), "k2:"), "wrapped by the new generation")
	assert.Len(t, r.logs.Records("personal-data key rotated: every data subject's key is wrapped by the new generation"), 1)
}
