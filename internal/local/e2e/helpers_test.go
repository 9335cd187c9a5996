package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/backoff"
	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/local"
	"github.com/streamops/streamops/internal/outbox"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
	"github.com/streamops/streamops/internal/task"
	"github.com/streamops/streamops/internal/testenv"
)

const (
	adminToken   = "e2e-admin-token"
	stripeSecret = "whsec_e2e_c3RyZWFtb3BzLWUyZQ=="
	// githubSecret and standardSecret sign the GitHub and Standard
	// Webhooks (Svix) deliveries of the tests.
	githubSecret   = "e2e-github-secret"
	standardSecret = "whsec_c3RyZWFtb3BzLWUyZS1zdGFuZGFyZA=="
	// interval is the schedules' period: short, so retries and sweeps
	// happen within a test.
	interval = 100 * time.Millisecond
)

// flaky is the report_generation executor of the tests: a task whose data
// says {"failTimes": n} fails its first n attempts (retryably), then
// succeeds.
type flaky struct {
	mu       sync.Mutex
	attempts map[string]int
}

func (f *flaky) Execute(_ context.Context, a task.Attempt) (task.Result, error) {
	var data struct {
		FailTimes int `json:"failTimes"`
	}
	_ = json.Unmarshal(a.Data, &data)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.attempts[a.TaskID]++
	if n := f.attempts[a.TaskID]; n <= data.FailTimes {
		return nil, fault.Retryable(task.CodeReport, fmt.Errorf("report store unavailable (attempt %d of %d failing)", n, data.FailTimes))
	}
	return task.Result{"attempts": f.attempts[a.TaskID]}, nil
}

func (f *flaky) count(taskID string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.attempts[taskID]
}

// stack is a running local stack and a client for it.
type stack struct {
	*local.Stack
	t     *testing.T
	dir   string
	flaky *flaky
	logs  *testenv.Output
	api   testenv.API
}

// databases remembers the store each data directory's stacks use, so a
// restart on the same directory finds the same data on MongoDB too.
var databases sync.Map // dir → store.Config

// engineFor is the store configuration of the stacks on dir: the embedded
// engine in dir, or a MongoDB database of its own (storetest).
func engineFor(t *testing.T, dir string) store.Config {
	if cfg, ok := databases.Load(dir); ok {
		return cfg.(store.Config)
	}
	cfg := storetest.Configure(t, store.Config{})
	databases.Store(dir, cfg)
	return cfg
}

// withPartners is a configure of startWith: the stack's outbox relay
// delivers to partners (a partners file of the test's own), signing with
// standardSecret.
func withPartners(t *testing.T, partners ...outbox.Partner) func(*local.Config) {
	t.Helper()
	raw, err := json.Marshal(partners)
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "partners.json")
	require.NoError(t, os.WriteFile(file, raw, 0o600))
	return func(cfg *local.Config) {
		cfg.PartnersFile = file
		getenv := cfg.Getenv
		cfg.Getenv = func(k string) string {
			if strings.HasPrefix(k, "PARTNER_SECRET_") {
				return standardSecret
			}
			return getenv(k)
		}
	}
}

// start starts a stack on dir (a fresh temporary directory when empty),
// stopped when the test ends; extra options override the defaults.
func start(t *testing.T, dir string, x *flaky, extra ...local.Option) *stack {
	t.Helper()
	return startWith(t, dir, x, nil, extra...)
}

// startWith is start with configure, when not nil, changing the stack's
// configuration last.
func startWith(t *testing.T, dir string, x *flaky, configure func(*local.Config), extra ...local.Option) *stack {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	if x == nil {
		x = &flaky{attempts: map[string]int{}}
	}
	l := &testenv.Output{}
	db := engineFor(t, dir)
	env := map[string]string{provider.SecretEnvVar("stripe"): stripeSecret,
		provider.SecretEnvVar("github"): githubSecret, provider.SecretEnvVar("standard"): standardSecret}
	opts := append([]local.Option{
		local.WithExecutors(task.Executors{events.TaskReportGeneration: x}),
		local.WithTaskBackoff(backoff.Schedule{50 * time.Millisecond}),
		local.WithBatchRetry(backoff.Schedule{50 * time.Millisecond}),
	}, extra...)
	cfg := local.Config{
		DataDir: dir, HTTPAddr: "127.0.0.1:0", KafkaAddr: "127.0.0.1:0", MongoURI: db.URI, Database: db.Database,
		ScheduleInterval: interval, AdminToken: adminToken, LogOutput: l, LogLevel: "debug",
		Getenv: func(k string) string { return env[k] },
	}
	if configure != nil {
		configure(&cfg)
	}
	s, err := local.Start(context.Background(), cfg, opts...)
	require.NoError(t, err)
	st := &stack{Stack: s, t: t, dir: dir, flaky: x, logs: l, api: testenv.API{URL: s.URL(), Token: adminToken}}
	t.Cleanup(func() {
		_ = s.Shutdown(context.Background())
		if t.Failed() {
			t.Logf("last log lines of the stack on %s:\n%s", dir, l.Tail(60))
		}
	})
	return st
}

// do sends a request and returns the status and body.
func (s *stack) do(method, path string, body []byte, header http.Header) (int, []byte, error) {
	return s.api.Do(method, path, body, header)
}

// call is do that fails the test on a transport error and decodes a JSON
// answer into out (when not nil).
func (s *stack) call(method, path string, body []byte, header http.Header, out any) int {
	s.t.Helper()
	return s.api.Call(s.t, method, path, body, header, out)
}

// signedStripe signs body as Stripe would, now.
func (s *stack) signedStripe(body []byte) http.Header {
	s.t.Helper()
	return testenv.Sign(s.t, s.Providers(), "stripe", body, stripeSecret, provider.SignOptions{Now: time.Now()})
}

// eventPage is GET /api/events.
type eventPage struct {
	Events     []events.Envelope `json:"events"`
	NextCursor string            `json:"nextCursor"`
}

// events pages through GET /api/events with query q.
func (s *stack) events(q url.Values) []events.Envelope {
	s.t.Helper()
	return allEvents(s.t, s.api, q)
}

// allEvents pages through api's GET /api/events with query q.
func allEvents(t *testing.T, api testenv.API, q url.Values) []events.Envelope {
	t.Helper()
	var out []events.Envelope
	q.Set("limit", "1000")
	for {
		var page eventPage
		require.Equal(t, http.StatusOK, api.Call(t, "GET", "/api/events?"+q.Encode(), nil, nil, &page))
		out = append(out, page.Events...)
		if page.NextCursor == "" {
			return out
		}
		q.Set("cursor", page.NextCursor)
	}
}

// typesOf counts events by type.
func typesOf(evs []events.Envelope) map[events.Type]int {
	out := map[events.Type]int{}
	for _, e := range evs {
		out[e.EventType]++
	}
	return out
}

// eventually polls cond for up to d (testenv.Eventually).
func (s *stack) eventually(d time.Duration, cond func() bool, msg string, args ...any) {
	s.t.Helper()
	testenv.Eventually(s.t, d, cond, msg, args...)
}

// kafka is a plain franz-go client of the stack's broker, for what a user
// would do with kcat.
func (s *stack) kafka() *kgo.Client {
	s.t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(s.Brokers()...), kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)))
	require.NoError(s.t, err)
	s.t.Cleanup(cl.Close)
	return cl
}

// endOffsets sums the end offsets of topic's partitions.
func (s *stack) endOffsets(topic string) map[int32]int64 {
	s.t.Helper()
	ends, err := kadm.NewClient(s.kafka()).ListEndOffsets(context.Background(), topic)
	require.NoError(s.t, err)
	out := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) { out[o.Partition] = o.Offset })
	return out
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
