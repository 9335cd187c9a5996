package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/backoff"
	"github.com/streamops/streamops/internal/local"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/testenv"
)

// accepted is one request the stack answered 2xx, and how to see its
// final state.
type accepted struct {
	kind string // webhook, workflow, task
	id   string // webhookEventId, workflowId, taskId
}

// TestRestartMidRunLosesNothing stops the stack (as Ctrl-C does) while
// webhooks, workflows and tasks are arriving and being processed, starts it
// again on the same data directory, and checks that every request it
// answered 2xx reaches its final state, exactly once.
func TestRestartMidRunLosesNothing(t *testing.T) {
	dir := t.TempDir()
	x := &flaky{attempts: map[string]int{}}
	// Retries come 2 s after a failure: a task that failed before the stop
	// is retried by the stack that runs after it.
	const retryAfter = 2 * time.Second
	retryLater := local.WithTaskBackoff(backoff.Schedule{retryAfter})
	first := start(t, dir, x, retryLater)

	const perKind = 12
	var (
		mu       sync.Mutex
		acks     []accepted
		wg       sync.WaitGroup
		progress = make(chan string, 3*perKind)
	)
	send := func(i int, kind string) {
		defer wg.Done()
		time.Sleep(time.Duration(rand.IntN(400)) * time.Millisecond)
		var (
			status int
			body   []byte
			err    error
			out    struct {
				WebhookEventID string `json:"webhookEventId"`
				WorkflowID     string `json:"workflowId"`
				TaskID         string `json:"taskId"`
			}
		)
		switch kind {
		case "webhook":
			payload := strings.Replace(string(testenv.Testdata(t, "webhooks/stripe-invoice-finalized.json")),
				"evt_1QdXyZ2eZvKYlo2C8hTn4bLm", fmt.Sprintf("evt_restart_%02d", i), 1)
			status, body, err = first.do("POST", "/webhooks/stripe", []byte(payload), first.signedStripe([]byte(payload)))
		case "workflow":
			status, body, err = first.do("POST", "/api/workflows", fmt.Appendf(nil,
				`{"name":"Restart %d","steps":["validate","transform","store"],"priority":"medium","input":{"records":[{"n":%d}]}}`, i, i), nil)
		case "task":
			// Each fails once, so its retry goes through the retry-sweeper,
			// possibly across the restart.
			status, body, err = first.do("POST", "/api/tasks", []byte(`{"type":"report_generation","data":{"failTimes":1},"maxRetries":3}`), nil)
		}
		if err != nil || status/100 != 2 {
			return // refused while stopping: not accepted, nothing to check
		}
		if !assert.NoError(t, jsonUnmarshal(body, &out), "%s", body) {
			return
		}
		mu.Lock()
		acks = append(acks, accepted{kind, out.WebhookEventID + out.WorkflowID + out.TaskID})
		mu.Unlock()
		progress <- kind
	}
	for i := range perKind {
		wg.Add(3)
		go send(i, "webhook")
		go send(i, "workflow")
		go send(i, "task")
	}
	// Mid-run: stop once a third of the requests (two tasks among them)
	// were accepted, while the rest are arriving and being processed.
	for n, tasks := 0, 0; n < perKind || tasks < 2; n++ {
		select {
		case kind := <-progress:
			if kind == "task" {
				tasks++
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("only %d requests (%d tasks) were accepted", n, tasks)
		}
	}
	stopping := time.Now()
	require.NoError(t, first.Shutdown(context.Background()))
	stopTook := time.Since(stopping)
	wg.Wait()
	require.NotEmpty(t, acks, "some requests were accepted before the stop")
	t.Logf("%d of %d requests accepted before the stop; batches done before it: %+v", len(acks), 3*perKind, first.MappingStats())

	second := start(t, dir, x, retryLater)
	for _, a := range acks {
		switch a.kind {
		case "webhook":
			var evs []events.Envelope
			second.eventually(30*time.Second, func() bool {
				evs = second.events(url.Values{"execution_id": {a.id}})
				return typesOf(evs)[events.WorkflowCompleted] > 0
			}, "the workflow of webhook %s did not complete: %v", a.id, typesOf(evs))
			assertSeed003Sequence(t, evs)
			second.eventually(10*time.Second, func() bool { return webhookStatus(second, a.id) == status.WebhookCompleted },
				"webhook event %s is %q", a.id, webhookStatus(second, a.id))
		case "workflow":
			var wf store.Workflow
			second.eventually(30*time.Second, func() bool {
				second.call("GET", "/api/workflows/"+a.id, nil, nil, &wf)
				return wf.Status == status.WorkflowCompleted
			}, "workflow %s is %q", a.id, wf.Status)
			assert.Equal(t, map[events.Type]int{events.WorkflowCreated: 1, events.WorkflowProcessing: 1,
				events.WorkflowStepCompleted: 3, events.WorkflowCompleted: 1},
				typesOf(second.events(url.Values{"aggregate_id": {a.id}})), "workflow %s ran exactly once", a.id)
		case "task":
			var tk store.Task
			second.eventually(30*time.Second, func() bool {
				second.call("GET", "/api/tasks/"+a.id, nil, nil, &tk)
				return tk.Status == status.TaskCompleted
			}, "task %s is %q (retryCount %d)", a.id, tk.Status, tk.RetryCount)
			types := typesOf(second.events(url.Values{"aggregate_id": {a.id}}))
			assert.Equal(t, 1, types[events.TaskCompleted])
			assert.Equal(t, 1, types[events.TaskCreated], "task %s: its retry, even across the restart, is no new task.created", a.id)
			assert.Equal(t, 2, types[events.TaskProcessing], "task %s: attempt 0 and its retry, each once", a.id)
		}
	}
	after := second.MappingStats()
	t.Logf("batches done after the restart: %+v", after)
	if stopTook < retryAfter/2 { // a very slow stop (the race detector) may let the first stack finish everything
		assert.NotZero(t, after[local.FnTaskProcessor].Records, "work that was under way at the stop went on after the restart")
	}
	var stats struct {
		Collections map[string]map[string]map[string]int `json:"collections"`
	}
	require.Equal(t, http.StatusOK, second.call("GET", "/api/stats", nil, nil, &stats))
	assert.Empty(t, stats.Collections["dead_letters"]["status"], "nothing was dead-lettered")
}

// crashStack is the real `streamops run` binary as a child process.
type crashStack struct {
	t    *testing.T
	cmd  *exec.Cmd
	url  string
	done chan error
}

// buildStreamops builds the streamops command for this machine into dir.
func buildStreamops(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "streamops")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/streamops/streamops/internal/cmd/streamops").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

// freeAddr is a loopback address nothing listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().String()
}

// runStreamops starts `streamops run` with env only (nothing inherited but
// PATH and HOME, so a MONGODB_URI of the test's environment never leaks
// in) and waits until it serves HTTP.
func runStreamops(t *testing.T, bin, logPath string, env []string, httpAddr string) *crashStack {
	t.Helper()
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	require.NoError(t, err)
	t.Cleanup(func() { _ = logf.Close() })
	cmd := exec.Command(bin, "run")
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}, env...)
	cmd.Stdout, cmd.Stderr = logf, logf
	require.NoError(t, cmd.Start())
	s := &crashStack{t: t, cmd: cmd, url: "http://" + httpAddr, done: make(chan error, 1)}
	go func() { s.done <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-s.done })
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(s.url + "/api/openapi.json")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		select {
		case err := <-s.done:
			s.done <- err
			t.Fatalf("streamops run exited before serving: %v; log %s", err, logPath)
		case <-time.After(50 * time.Millisecond):
		}
		require.True(t, time.Now().Before(deadline), "streamops run did not serve within 60 s; log %s", logPath)
	}
}

// crashRig is how a crash test runs the binary: its data directory (and
// database, on MongoDB), its addresses, environment and log, the same for
// every run on that data.
type crashRig struct {
	t                   *testing.T
	bin, dir, logPath   string
	httpAddr, kafkaAddr string
	db                  store.Config
	env                 []string
}

// newCrashRig is a rig for bin on a fresh data directory (and database),
// with the schedules firing every second; the last log lines are shown
// when the test fails.
func newCrashRig(t *testing.T, bin string) *crashRig {
	t.Helper()
	tmp := t.TempDir()
	r := &crashRig{t: t, bin: bin, dir: filepath.Join(tmp, "data"), logPath: filepath.Join(tmp, "streamops.log"),
		httpAddr: freeAddr(t), kafkaAddr: freeAddr(t)}
	r.db = engineFor(t, r.dir)
	r.env = []string{
		"STREAMOPS_DATA_DIR=" + r.dir, "STREAMOPS_HTTP_ADDR=" + r.httpAddr, "STREAMOPS_KAFKA_ADDR=" + r.kafkaAddr,
		"STREAMOPS_ADMIN_TOKEN=" + adminToken, provider.SecretEnvVar("stripe") + "=" + stripeSecret,
		"STREAMOPS_SCHEDULE_INTERVAL=1s", "STREAMOPS_LOG_LEVEL=info",
	}
	if r.db.URI != "" {
		r.env = append(r.env, "MONGODB_URI="+r.db.URI, "MONGODB_DATABASE="+r.db.Database)
	}
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		if b, err := os.ReadFile(r.logPath); err == nil {
			lines := strings.Split(strings.TrimSpace(string(b)), "\n")
			t.Logf("last log lines:\n%s", strings.Join(lines[max(0, len(lines)-40):], "\n"))
		}
	})
	return r
}

// run starts the binary on the rig's data and waits until it serves.
func (r *crashRig) run() *crashStack {
	r.t.Helper()
	return runStreamops(r.t, r.bin, r.logPath, r.env, r.httpAddr)
}

// api is a client of the running binary's HTTP routes, as admin.
func (s *crashStack) api() testenv.API { return testenv.API{URL: s.url, Token: adminToken} }

// kill9 is a crash: SIGKILL, no shutdown of any kind.
func (s *crashStack) kill9() {
	require.NoError(s.t, s.cmd.Process.Signal(syscall.SIGKILL))
	<-s.done
	s.done <- nil
}

// stop is Ctrl-C, waited for.
func (s *crashStack) stop() {
	require.NoError(s.t, s.cmd.Process.Signal(os.Interrupt))
	select {
	case err := <-s.done:
		s.done <- err
		require.NoError(s.t, err, "streamops run exits cleanly on SIGINT")
	case <-time.After(60 * time.Second):
		s.t.Fatal("streamops run did not stop within 60 s of SIGINT")
	}
}

// completedExecutions pages GET /api/events for workflow.completed and
// returns their execution ids (the webhook event ids that started them).
func (s *crashStack) completedExecutions() map[string]bool {
	s.t.Helper()
	out := map[string]bool{}
	q := url.Values{"event_types": {string(events.WorkflowCompleted)}, "limit": {"1000"}}
	for range 100 {
		req, err := http.NewRequest("GET", s.url+"/api/events?"+q.Encode(), nil)
		require.NoError(s.t, err)
		req.Header.Set("Authorization", "Bearer "+adminToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return out
		}
		var page eventPage
		err = json.NewDecoder(resp.Body).Decode(&page)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			return out
		}
		for _, ev := range page.Events {
			if ev.Metadata != nil {
				out[ev.Metadata.CorrelationID] = true
			}
		}
		if page.NextCursor == "" || len(page.Events) == 0 {
			return out
		}
		q.Set("cursor", page.NextCursor)
	}
	return out
}

// TestKill9DuringAWebhookStreamLosesNothingAcknowledged is the crash test
// of the delivery contract: the real `streamops run` binary takes a steady
// stream of signed Stripe webhooks, is killed with SIGKILL in the middle of
// it, and is started again on the same data directory (and database, on
// MongoDB). Every webhook it answered 2xx must be stored (lost counts those
// that are not) and reach its final state, its workflow completed
// (stranded counts those that do not), exactly once: one workflow per
// webhook, seed 003's event sequence with no event doubled.
//
// STREAMOPS_STORE_FLUSH_INTERVAL is passed through, so the test shows what
// the background writer loses: STREAMOPS_STORE_FLUSH_INTERVAL=250ms go test
// -run Kill9 ./internal/local/e2e.
func TestKill9DuringAWebhookStreamLosesNothingAcknowledged(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the streamops binary twice (about 20 s); not under -short")
	}
	began := time.Now()
	rig := newCrashRig(t, buildStreamops(t, t.TempDir()))
	if v := os.Getenv("STREAMOPS_STORE_FLUSH_INTERVAL"); v != "" {
		rig.env = append(rig.env, "STREAMOPS_STORE_FLUSH_INTERVAL="+v)
	}
	dir, db, logPath := rig.dir, rig.db, rig.logPath
	first := rig.run()

	providers, err := provider.LoadProviders("")
	require.NoError(t, err)
	stripe, ok := providers.Provider("stripe")
	require.True(t, ok)
	template := string(testenv.Testdata(t, "webhooks/stripe-invoice-finalized.json"))

	// The stream: four senders, each webhook a new Stripe event id.
	var (
		mu     sync.Mutex
		acked  = map[string]string{} // webhookEventId → Stripe event id
		sent   atomic.Int64
		stop   = make(chan struct{})
		wg     sync.WaitGroup
		client = &http.Client{Timeout: 15 * time.Second}
	)
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				id := fmt.Sprintf("evt_crash_%d_%04d", w, i)
				body := []byte(strings.Replace(template, "evt_1QdXyZ2eZvKYlo2C8hTn4bLm", id, 1))
				h, err := stripe.Sign(body, stripeSecret, provider.SignOptions{Now: time.Now()})
				if !assert.NoError(t, err) {
					return
				}
				req, _ := http.NewRequest("POST", first.url+"/webhooks/stripe", strings.NewReader(string(body)))
				req.Header = h
				req.Header.Set("Content-Type", "application/json")
				sent.Add(1)
				resp, err := client.Do(req)
				if err != nil {
					time.Sleep(10 * time.Millisecond) // the stack is down: not acknowledged
					continue
				}
				var out struct {
					WebhookEventID string `json:"webhookEventId"`
				}
				_ = json.NewDecoder(resp.Body).Decode(&out)
				resp.Body.Close()
				if resp.StatusCode/100 == 2 && out.WebhookEventID != "" {
					mu.Lock()
					acked[out.WebhookEventID] = id
					mu.Unlock()
				}
			}
		})
	}
	ackedNow := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(acked)
	}
	// Kill once the stream is well under way: webhooks arriving, workflows
	// running, the store committing.
	for deadline := time.Now().Add(60 * time.Second); ackedNow() < 60; {
		require.True(t, time.Now().Before(deadline), "only %d webhooks acknowledged in 60 s; log %s", ackedNow(), logPath)
		time.Sleep(20 * time.Millisecond)
	}
	first.kill9()
	killedAt := time.Now()
	time.Sleep(200 * time.Millisecond) // the senders see the stack gone
	close(stop)
	wg.Wait()

	second := rig.run()
	restartTook := time.Since(killedAt)
	// Reconcile: wait (bounded) for every acknowledged webhook's workflow.
	var done map[string]bool
	pending := func() int {
		n := 0
		for id := range acked {
			if !done[id] {
				n++
			}
		}
		return n
	}
	settleBy := time.Now().Add(90 * time.Second)
	for {
		done = second.completedExecutions()
		if pending() == 0 || time.Now().After(settleBy) {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	settled := time.Since(killedAt)
	second.stop()

	// Precise figures from the store itself, the stack stopped.
	cfg := db
	if cfg.URI == "" {
		cfg = store.Config{DataDir: dir}
	}
	s, err := store.Open(context.Background(), cfg)
	require.NoError(t, err)
	defer s.Close(context.Background())
	ctx := context.Background()
	ids := make([]string, 0, len(acked))
	for id := range acked {
		ids = append(ids, id)
	}
	rows, err := s.GetWebhookEvents(ctx, ids)
	require.NoError(t, err)
	var lost, stranded, doubled []string
	for _, id := range ids {
		row, ok := rows[id]
		if !ok {
			lost = append(lost, acked[id])
			continue
		}
		evs, _, err := s.FindEvents(ctx, store.ReplayFilter{ExecutionID: id}, nil, 1000)
		require.NoError(t, err)
		types, workflows := map[string]int{}, map[string]bool{}
		for _, ev := range evs {
			types[ev.EventType]++
			if strings.HasPrefix(ev.EventType, "workflow.") {
				workflows[ev.AggregateID] = true
			}
		}
		if row.Status != status.WebhookCompleted || types[string(events.WorkflowCompleted)] == 0 {
			stranded = append(stranded, fmt.Sprintf("%s (webhook %s, events %v)", acked[id], row.Status, types))
		}
		want := map[string]int{string(events.WebhookReceived): 1, string(events.WorkflowCreated): 1,
			string(events.WorkflowProcessing): 1, string(events.WorkflowStepCompleted): 3, string(events.WorkflowCompleted): 1}
		if len(workflows) > 1 || (types[string(events.WorkflowCompleted)] > 0 && !assert.ObjectsAreEqual(want, types)) {
			doubled = append(doubled, fmt.Sprintf("%s (%d workflows, events %v)", acked[id], len(workflows), types))
		}
	}
	t.Logf("engine %s: %d webhooks sent, %d acknowledged before kill -9; lost %d, stranded %d, doubled %d; "+
		"restart took %s, all settled %s after the kill, test ran %s",
		s.Engine(), sent.Load(), len(acked), len(lost), len(stranded), len(doubled),
		restartTook.Round(time.Millisecond), settled.Round(time.Millisecond), time.Since(began).Round(time.Millisecond))
	assert.Empty(t, lost, "acknowledged webhooks not stored after the crash")
	assert.Empty(t, stranded, "acknowledged webhooks whose workflow did not complete")
	assert.Empty(t, doubled, "acknowledged webhooks whose work was doubled")
}
