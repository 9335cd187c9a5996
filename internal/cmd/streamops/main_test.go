package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/history"
	"github.com/streamops/streamops/internal/httpapi"
	"github.com/streamops/streamops/internal/local"
	"github.com/streamops/streamops/internal/objects"
	"github.com/streamops/streamops/internal/opsevents"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/status"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/submit"
	"github.com/streamops/streamops/internal/testenv"
	"github.com/streamops/streamops/internal/traceview"
	"github.com/streamops/streamops/internal/traceview/traceviewtest"
	"github.com/streamops/streamops/internal/vault"
)

// TestRunStartsTheStackAndStopsOnSignal runs `streamops run` as make run
// does (configured by the environment), sends the banner's curl request,
// and stops it as Ctrl-C would.
func TestRunStartsTheStackAndStopsOnSignal(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("STREAMOPS_DATA_DIR", dir)
	t.Setenv("STREAMOPS_HTTP_ADDR", "127.0.0.1:0")
	t.Setenv("STREAMOPS_KAFKA_ADDR", "127.0.0.1:0")
	t.Setenv("STREAMOPS_LOG_LEVEL", "error")
	t.Setenv("KAFKA_BROKERS", "")
	t.Setenv("MONGODB_URI", "")
	t.Setenv("STREAMOPS_ADMIN_TOKEN", "")
	t.Setenv("WEBHOOK_SECRET_STRIPE", "")

	var out, errOut testenv.Output
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() { done <- run(ctx, []string{"run"}, strings.NewReader(""), &out, &errOut) }()
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "Ctrl-C stops the stack") }, 30*time.Second, 10*time.Millisecond, errOut.String())

	banner := out.String()
	assert.Regexp(t, `STREAMOPS_ADMIN_TOKEN=so_local_\S+`, banner)
	assert.Contains(t, banner, "kcat -b 127.0.0.1:")
	sig := regexp.MustCompile(`-H 'Stripe-Signature: ([^']+)'`).FindStringSubmatch(banner)
	body := regexp.MustCompile(`--data-raw '([^']+)'`).FindStringSubmatch(banner)
	url := regexp.MustCompile(`-X POST '([^']+)'`).FindStringSubmatch(banner)
	require.NotNil(t, sig, banner)
	require.NotNil(t, body)
	require.NotNil(t, url)
	req, _ := http.NewRequest("POST", url[1], strings.NewReader(body[1]))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Stripe-Signature", sig[1])
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusAccepted, resp.StatusCode, "the banner's curl is accepted")

	cancel() // SIGINT
	select {
	case code := <-done:
		assert.Equal(t, 0, code, errOut.String())
	case <-time.After(30 * time.Second):
		t.Fatal("the stack did not stop")
	}
	assert.Contains(t, out.String(), "stopped.")

	// `streamops curl` signs with the secret the stack generated.
	code, curl, curlErr := runCLI("", "curl", "-url", "http://example.test")
	require.Equal(t, 0, code, curlErr)
	secret, err := local.WebhookSecret(dir, "stripe", func(string) string { return "" })
	require.NoError(t, err)
	providers, err := provider.LoadProviders("")
	require.NoError(t, err)
	p, _ := providers.Provider("stripe")
	sig = regexp.MustCompile(`-H 'Stripe-Signature: ([^']+)'`).FindStringSubmatch(curl)
	body = regexp.MustCompile(`--data-raw '([^']+)'`).FindStringSubmatch(curl)
	require.NotNil(t, sig, curl)
	assert.NoError(t, p.Verify(http.Header{"Stripe-Signature": {sig[1]}}, []byte(body[1]), []string{secret}, time.Now()))
	assert.Contains(t, curl, "'http://example.test/webhooks/stripe'")
}

func TestOpenAPIPrintsTheDocumentTheAPIServes(t *testing.T) {
	code, out, errOut := runCLI("", "openapi")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, string(httpapi.OpenAPIDocument()), out)
}

const token = "ops-test-token"

// api is an httptest server running the real API handler over kfake and
// the embedded store.
type api struct {
	*testenv.Env
	srv      *httptest.Server
	client   testenv.API
	replayer *history.Replayer
}

func newAPI(t *testing.T) *api {
	t.Helper()
	env := testenv.New(t, testenv.Options{})
	vlt, err := vault.NewInMemory(env.Store)
	require.NoError(t, err)
	sub, err := submit.New(env.Store, env.Emitter, submit.Limits{}, nil, env.Logger)
	require.NoError(t, err)
	sub = sub.WithVault(vlt)
	replayer := &history.Replayer{Store: env.Store, Emitter: env.Emitter, Logger: env.Logger}
	h := httpapi.API(httpapi.APIConfig{
		Submit: sub, Store: env.Store, Logger: env.Logger,
		Replayer: replayer,
		Exporter: &history.Exporter{Store: env.Store, Objects: objects.Files{Dir: t.TempDir()}, Logger: env.Logger},
		Requeuer: &history.Requeuer{Store: env.Store, Publisher: env.Bus},
		Partners: map[string]httpapi.PartnerConfig{"acme": {ID: "acme", Name: "Acme", URL: "https://hooks.acme.example/in"}},
		Auth:     httpapi.TokenAuth{AdminToken: token},

		Operations: opsevents.New(env.Emitter, env.Logger),
		Subjects:   vlt,
	})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &api{Env: env, srv: srv, client: testenv.API{URL: srv.URL, Token: token}, replayer: replayer}
}

// runReplays runs the replay jobs as the retry-sweeper does, on a tick,
// until the test ends.
func (a *api) runReplays(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			_, _ = a.replayer.RunDue(ctx)
			select {
			case <-ctx.Done():
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
}

// submitWorkflow submits a workflow through the API and returns its id.
func (a *api) submitWorkflow(t *testing.T, name string) string {
	t.Helper()
	var out struct{ WorkflowID string }
	require.Equal(t, http.StatusCreated, a.client.Call(t, "POST", "/api/workflows",
		fmt.Appendf(nil, `{"name":%q,"steps":["validate","store"],"priority":"low"}`, name), nil, &out))
	return out.WorkflowID
}

// ops runs the command line against the API with the given stdin and
// returns the exit code, stdout and stderr.
func (a *api) ops(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	head := 1 // the flags go after the command words
	if (args[0] == "dead-letters" || args[0] == "outbox" || args[0] == "partners" || args[0] == "replay" || args[0] == "subjects") && len(args) > 1 && !strings.HasPrefix(args[1], "-") {
		head = 2
	}
	args = append(append(slices.Clone(args[:head]), "-url", a.srv.URL, "-token", token), args[head:]...)
	return runCLI(stdin, args...)
}

// runCLI runs the command line with args and stdin, and returns the exit
// code, stdout and stderr.
func runCLI(stdin string, args ...string) (int, string, string) {
	var out, errOut testenv.Output
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestOpsStatsShowsCountsPerCollection(t *testing.T) {
	a := newAPI(t)
	a.submitWorkflow(t, "one")
	a.submitWorkflow(t, "two")
	code, out, errOut := a.ops(t, "", "stats", "-window", "1h")
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `(?m)^workflows\s+status\s+pending\s+2$`, out)
	assert.Regexp(t, `(?m)^events\s+event_type\s+workflow.created\s+2$`, out)
	assert.Contains(t, out, "(1h)")
	assert.Contains(t, out, "open dead letters: 0\n")
}

func TestOpsTailPrintsHistoryOnceAndFollowsNewEvents(t *testing.T) {
	a := newAPI(t)
	first := []string{a.submitWorkflow(t, "a"), a.submitWorkflow(t, "b"), a.submitWorkflow(t, "c")}

	// -limit 1 makes every page full, so paging goes through cursors.
	code, out, errOut := a.ops(t, "", "tail", "-once", "-from-start", "-limit", "1")
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3, out)
	for i, id := range first {
		assert.Contains(t, lines[i], id, "oldest first")
		assert.Contains(t, lines[i], "workflow.created")
	}

	var buf testenv.Output
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"tail", "-url", a.srv.URL, "-token", token, "-from-start", "-limit", "2",
			"-interval", "20ms", "-type", "workflow.created", "-json"}, strings.NewReader(""), &buf, &buf)
	}()
	require.Eventually(t, func() bool { return strings.Count(buf.String(), "\n") == 3 }, 10*time.Second, 10*time.Millisecond)
	later := a.submitWorkflow(t, "d")
	require.Eventually(t, func() bool { return strings.Contains(buf.String(), later) }, 10*time.Second, 10*time.Millisecond)
	time.Sleep(100 * time.Millisecond) // a few more polls
	cancel()
	assert.Equal(t, 0, <-done)
	ids := regexp.MustCompile(`"eventId":"([^"]+)"`).FindAllStringSubmatch(buf.String(), -1)
	seen := map[string]bool{}
	for _, m := range ids {
		assert.False(t, seen[m[1]], "event %s printed twice", m[1])
		seen[m[1]] = true
	}
	assert.Len(t, seen, 4)
}

func TestOpsReplayDryRunsThenAsks(t *testing.T) {
	a := newAPI(t)
	wf := a.submitWorkflow(t, "replay me")
	replays := func() int {
		n := 0
		for _, e := range a.Envelopes(t, events.TopicWorkflows) {
			if e.Metadata != nil && e.Metadata.ReplayOf != "" {
				n++
			}
		}
		return n
	}

	code, out, errOut := a.ops(t, "n\n", "replay", "-aggregate", wf)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "dry run: 1 events match")
	assert.Contains(t, out, wf)
	assert.Contains(t, errOut, "aborted")
	assert.Zero(t, replays(), "declined: nothing replayed")

	// Started and not yet run: -detach returns with the session running,
	// status shows it, cancel ends it (twice: the same answer), and a
	// cancelled session is not run.
	code, out, errOut = a.ops(t, "", "replay", "-aggregate", wf, "-yes", "-detach", "-rate", "20")
	require.Equal(t, 0, code, errOut)
	id := regexp.MustCompile(`replay (replay-\S+) started: 1 events at most 20/s\n`).FindStringSubmatch(out)
	require.NotNil(t, id, out)
	assert.Contains(t, out, "streamops replay status -watch "+id[1])
	code, out, errOut = a.ops(t, "", "replay", "status", id[1])
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `^`+id[1]+` running \[ +\] 0/1 +0\.0%`, out)
	for range 2 {
		code, out, errOut = a.ops(t, "", "replay", "cancel", id[1])
		require.Equal(t, 0, code, errOut)
		assert.Equal(t, "replay "+id[1]+" cancelled: 0 of 1 events replayed, 0 failed\n", out)
	}
	code, out, errOut = a.ops(t, "", "replay", "list")
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `(?m)^`+id[1]+`\s+cancelled\s+0/1\s`, out)

	// Run by the sweeper, it completes; the command follows it to the end.
	a.runReplays(t)
	code, out, errOut = a.ops(t, "y\n", "replay", "-aggregate", wf, "-interval", "10ms")
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `replay-\S+ completed \[=+\] 1/1 100\.0%.*failed 0\n$`, out)
	assert.Equal(t, 1, replays(), "the replay is published as a new event marked replayOf")
	done := regexp.MustCompile(`(replay-\S+) completed `).FindStringSubmatch(out)
	require.NotNil(t, done)
	code, _, errOut = a.ops(t, "", "replay", "cancel", done[1])
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "409", "an ended session cannot be cancelled")

	code, _, errOut = a.ops(t, "", "replay")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "no filter")
}

func TestOpsListsAndRequeuesDeadLetters(t *testing.T) {
	a := newAPI(t)
	ctx := context.Background()
	_, err := a.Store.InsertDeadLetters(ctx,
		store.DeadLetterEntry{Processor: "task-processor", Topic: events.TopicTasks, Partition: 1, Offset: 7, Key: "task-1",
			Value: []byte(`{"broken":`), Reason: "undecodable", Error: "value is not JSON", RecordTimestamp: time.Now()},
		store.DeadLetterEntry{Processor: "workflow-processor", Topic: events.TopicWorkflows, Partition: 0, Offset: 3,
			Value: []byte(`{"eventType":"nope"}`), Reason: "schema-invalid", Error: "unknown type", RecordTimestamp: time.Now()},
	)
	require.NoError(t, err)
	taskDL := store.DeadLetterID(events.TopicTasks, 1, 7)

	code, out, errOut := a.ops(t, "", "dead-letters")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, taskDL)
	assert.Contains(t, out, "tasks-1@7")
	assert.Contains(t, out, "workflows-0@3")

	code, out, errOut = a.ops(t, "", "dead-letters", "list", "-topic", "tasks")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "tasks-1@7")
	assert.NotContains(t, out, "workflows-0@3")

	// -json prints each dead letter in the API's shape, not the store's.
	code, out, errOut = a.ops(t, "", "dead-letters", "list", "-json")
	require.Equal(t, 0, code, errOut)
	var page struct{ DeadLetters []json.RawMessage }
	require.Equal(t, http.StatusOK, a.client.Call(t, "GET", "/api/dead-letters?limit=100&status=open", nil, nil, &page))
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, len(page.DeadLetters))
	for i, line := range lines {
		assert.JSONEq(t, string(page.DeadLetters[i]), line)
	}

	code, out, errOut = a.ops(t, "", "dead-letters", "requeue", taskDL)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "requeued "+taskDL)
	assert.Contains(t, out, "1 requeue(s)")
	recs := a.Records(t, events.TopicTasks)
	require.Len(t, recs, 1, "the record went back to its topic")
	assert.Equal(t, `{"broken":`, string(recs[0].Value))

	code, out, _ = a.ops(t, "", "dead-letters", "list", "-topic", "tasks")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "no dead letters", "a requeued dead letter is no longer open")

	code, out, errOut = a.ops(t, "y\n", "dead-letters", "requeue", "-all", "-topic", "workflows")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "workflows-0@3")
	assert.Contains(t, out, "requeued 1 dead letters.")

	// -status all lists and requeues the replayed ones too (the API reads
	// "all" as no filter, and refuses a status it does not know).
	code, out, errOut = a.ops(t, "", "dead-letters", "list", "-topic", "tasks", "-status", "all")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "tasks-1@7")
	code, out, errOut = a.ops(t, "y\n", "dead-letters", "requeue", "-all", "-topic", "tasks", "-status", "all")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "requeued 1 dead letters.")
	assert.Len(t, a.Records(t, events.TopicTasks), 2, "the replayed dead letter went back again")
	code, _, errOut = a.ops(t, "", "dead-letters", "list", "-status", "closed")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "open, replayed, discarded, all")

	code, _, errOut = a.ops(t, "", "dead-letters", "requeue", "no-such-id")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "404")
}

func TestOpsReportsAPIErrors(t *testing.T) {
	a := newAPI(t)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"bad token", []string{"stats", "-url", a.srv.URL, "-token", "wrong"}, "401"},
		{"no token", []string{"stats", "-url", a.srv.URL}, "no token"},
		{"bad url", []string{"stats", "-url", "not a url", "-token", token}, "is not a URL"},
		{"bad window", []string{"stats", "-url", a.srv.URL, "-token", token, "-window", "-1h"}, "field window"},
		{"unknown command", []string{"frobnicate"}, "unknown command"},
	}
	t.Setenv("STREAMOPS_ADMIN_TOKEN", "")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runCLI("", tc.args...)
			assert.NotEqual(t, 0, code)
			assert.Contains(t, errOut, tc.want)
		})
	}
}

// TestOpsOutboxRequeueStartsANewRound: `streamops outbox requeue ID`
// requeues a dead-lettered outbox entry; an entry in another status and
// an unknown id are the API's errors, named.
func TestOpsOutboxRequeueStartsANewRound(t *testing.T) {
	a := newAPI(t)
	id := a.OutboxEntryIn(t, "evt-ops-requeue", "acme", "dead_letter")

	code, out, errOut := a.ops(t, "", "outbox", "requeue", id)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "requeued "+id+": now pending, a new round of 5 attempts, 1 requeue(s)\n", out)
	e, err := a.Store.GetOutboxEntry(context.Background(), id)
	require.NoError(t, err)
	assert.Equal(t, "pending", e.Status)
	assert.Equal(t, "admin", e.RequeuedBy, "the token's principal")

	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"already requeued", []string{"outbox", "requeue", id}, "409 status_conflict: outbox entry \"" + id + "\": store: status is pending; requeue applies to dead_letter only (field status)"},
		{"unknown id", []string{"outbox", "requeue", "no-such-entry"}, "404 not_found"},
		{"no id", []string{"outbox", "requeue"}, "name the dead-lettered outbox entries"},
		{"no subcommand", []string{"outbox"}, "name a subcommand: show, requeue, resend"},
		{"unknown subcommand", []string{"outbox", "list"}, `unknown subcommand "list"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, errOut := a.ops(t, "", c.args...)
			assert.Equal(t, 1, code)
			assert.Contains(t, errOut, c.want)
		})
	}
}

// TestOpsRerunStartsANewAttempt: `streamops rerun WF` reruns a failed
// workflow from its failed step and prints attempt 2; -key repeated
// answers the same rerun, -from-step past the failed step and an unknown
// workflow are the API's errors, named.
func TestOpsRerunStartsANewAttempt(t *testing.T) {
	a := newAPI(t)
	id := a.submitWorkflow(t, "rerun me")
	now := time.Now().UTC()
	_, err := a.Store.SaveWorkflowCheckpoints(context.Background(), store.WorkflowCheckpoint{Workflow: store.Workflow{
		WorkflowID: id, Status: status.WorkflowFailed, CurrentStepIndex: 1, StartedAt: &now, CompletedAt: &now,
		StepResults: []store.StepProgress{{StepName: "validate", StepIndex: 0, CompletedAt: now}},
		Error:       &events.WorkflowError{Code: "STORE_ERROR", Message: "down", Stack: "s"}}})
	require.NoError(t, err)

	code, _, errOut := a.ops(t, "", "rerun", "-from-step", "deliver", id)
	assert.NotEqual(t, 0, code)
	assert.Contains(t, errOut, "field fromStep")
	code, out, errOut := a.ops(t, "", "rerun", "-key", "k1", id)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, fmt.Sprintf("rerun %s: attempt 2, pending from step store (timeline: /console/timeline/%s)\n", id, id), out)
	code, again, errOut := a.ops(t, "", "rerun", "-key", "k1", id)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, out, again, "the same key, the same rerun")
	code, _, errOut = a.ops(t, "", "rerun", id)
	assert.NotEqual(t, 0, code)
	assert.Contains(t, errOut, "409 status_conflict")
	code, _, errOut = a.ops(t, "", "rerun", "wf-unknown")
	assert.NotEqual(t, 0, code)
	assert.Contains(t, errOut, "404 not_found")
}

// TestOpsTracePrintsTheTree: `streamops trace ID` prints the stored trace
// as the API draws it, a node per line indented by depth, with offset,
// duration, kind, name, status and an attempt's error; -json prints the
// answer as it is; a bad id and an unknown trace are the API's errors.
func TestOpsTracePrintsTheTree(t *testing.T) {
	a := newAPI(t)
	f := traceviewtest.Store(t, a.Store, nil)

	code, out, errOut := a.ops(t, "", "trace", traceviewtest.TraceID)
	require.Equal(t, 0, code, errOut)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	assert.Regexp(t, `^trace `+traceviewtest.TraceID+`: 24 nodes, `, lines[0])
	assert.Regexp(t, `^OFFSET\s+DURATION\s+NODE$`, lines[1])
	require.Len(t, lines, 2+24)
	for _, want := range []string{
		`(?m)^\+0ms\s+-\s+webhook stripe invoice\.finalized  received$`,
		`(?m)^\+1ms\s+-\s+  event webhook\.received$`,
		`(?m)^\+3ms\s+47ms\s+  workflow Invoice Sync  completed$`,
		`(?m)^\+22ms\s+18ms\s+    step deliver  completed$`,
		`(?m)^\+\S+\s+-\s+      delivery acme  pending$`,
		`(?m)^\+41ms\s+40ms\s+        attempt HTTP 500  failed  \(HTTP 500\)$`,
		`(?m)^\+90ms\s+5ms\s+        attempt no answer  failed  \(connection refused\)$`,
		`(?m)^\+150ms\s+12ms\s+        attempt HTTP 200  completed$`,
		`(?m)^\+12ms\s+-\s+      deadletter task\.failed processing-failed  open$`,
		`(?m)^\+70ms\s+-\s+    event workflow\.created \(replay\)$`,
	} {
		assert.Regexp(t, want, out)
	}

	code, out, errOut = a.ops(t, "", "trace", "-json", traceviewtest.TraceID)
	require.Equal(t, 0, code, errOut)
	var v traceview.View
	require.NoError(t, json.Unmarshal([]byte(out), &v))
	assert.Len(t, v.Nodes, 24)
	assert.Equal(t, "webhook:"+f.WebhookID, v.Nodes[0].ID)

	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"uppercase", []string{"trace", strings.ToUpper(traceviewtest.TraceID)}, "400 invalid_trace_id"},
		{"unknown trace", []string{"trace", strings.Repeat("ab", 16)}, "404 not_found"},
		{"no id", []string{"trace"}, "name one trace id"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, errOut := a.ops(t, "", c.args...)
			assert.Equal(t, 1, code)
			assert.Contains(t, errOut, c.want)
		})
	}
}

// TestOpsPartnersPauseAndResume: `streamops partners pause ID -reason R`
// pauses the partner and prints the state and what waits; pausing again
// shows the first pause; resume ends it; an unknown partner and bad usage
// are errors, named.
func TestOpsPartnersPauseAndResume(t *testing.T) {
	a := newAPI(t)
	a.OutboxEntryIn(t, "evt-ops-pause", "acme", "pending")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string // stdout on success, a part of stderr on failure
	}{
		{"pause", []string{"partners", "pause", "acme", "-reason", "maintenance"}, 0,
			`^acme is paused since \S+ by admin \(maintenance\): 1 deliveries wait, the oldest \d+s old\n$`},
		{"pause again keeps the first", []string{"partners", "pause", "acme", "-reason", "other"}, 0, `\(maintenance\)`},
		{"resume", []string{"partners", "resume", "acme"}, 0, `^acme is delivering \(resumed \S+ by admin\): 1 deliveries waiting, the oldest \d+s old\n$`},
		{"resume again", []string{"partners", "resume", "acme"}, 0, `^acme is delivering`},
		{"unknown partner", []string{"partners", "pause", "beta"}, 1, `404 partner_not_found`},
		{"no id", []string{"partners", "pause"}, 1, `name one partner id`},
		{"two ids", []string{"partners", "resume", "acme", "beta"}, 1, `name one partner id`},
		{"resume takes no reason", []string{"partners", "resume", "acme", "-reason", "x"}, 1, `flag provided but not defined: -reason`},
		{"no subcommand", []string{"partners"}, 1, `name a subcommand: pause, resume, requeue`},
		{"unknown subcommand", []string{"partners", "list"}, 1, `unknown subcommand "list"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := a.ops(t, "", tc.args...)
			require.Equal(t, tc.code, code, errOut)
			if tc.code == 0 {
				assert.Regexp(t, tc.want, out)
			} else {
				assert.Regexp(t, tc.want, errOut)
			}
		})
	}
	eps, err := a.Store.PartnerEndpoints(context.Background(), "acme")
	require.NoError(t, err)
	assert.False(t, eps["acme"].Paused)
	assert.Equal(t, "admin", eps["acme"].ResumedBy)
}
