package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/testenv"
)

// session is a ReplayResponse in the contract's JSON shape.
func session(id, status string, replayed, failed, total int64, extra map[string]any) map[string]any {
	done := replayed + failed
	pct := 100.0
	if total > 0 {
		pct = float64(done) * 100 / float64(total)
	}
	progress := map[string]any{"done": done, "total": total, "percent": pct, "rate_per_second": 20.0}
	if status == "running" && done < total {
		progress["eta_seconds"] = float64(total-done) / 20
	}
	s := map[string]any{
		"session_id": id, "status": status, "total_events": total, "replayed_events": replayed, "failed_events": failed,
		"config":   map[string]any{"filter": map[string]any{"eventType": "workflow.created"}, "batch_size": 500, "rate_per_second": 20},
		"errors":   []any{},
		"progress": progress, "created_at": "2025-01-02T03:04:05Z", "updated_at": "2025-01-02T03:04:05Z",
	}
	for k, v := range extra {
		s[k] = v
	}
	return s
}

// replayServer is an API that serves one replay session progressing
// through states: POST /api/replays answers the first, and each GET of
// the session the next (the last repeats). It records the requests.
type replayServer struct {
	srv    *httptest.Server
	states []map[string]any
	cancel func() (int, any) // POST /api/replays/{id}/cancel

	mu       sync.Mutex
	gets     int
	requests []string
	bodies   []map[string]any
}

func newReplayServer(t *testing.T, states ...map[string]any) *replayServer {
	t.Helper()
	rs := &replayServer{states: states}
	rs.srv = httptest.NewServer(http.HandlerFunc(rs.serve))
	t.Cleanup(rs.srv.Close)
	return rs
}

func (rs *replayServer) serve(w http.ResponseWriter, r *http.Request) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.requests = append(rs.requests, r.Method+" "+r.URL.RequestURI())
	reply := func(code int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(v)
	}
	if r.Header.Get("Authorization") != "Bearer "+token {
		reply(http.StatusUnauthorized, map[string]any{"error": map[string]any{"code": "unauthorized", "message": "no"}})
		return
	}
	id, _ := rs.states[0]["session_id"].(string)
	switch {
	case r.Method == "POST" && r.URL.Path == "/api/replays":
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		rs.bodies = append(rs.bodies, body)
		if body["dryRun"] == true {
			reply(http.StatusOK, map[string]any{"count": rs.states[0]["total_events"], "sample": []any{}})
			return
		}
		w.Header().Set("Location", "/api/replays/"+id)
		reply(http.StatusAccepted, rs.states[0])
	case r.Method == "GET" && r.URL.Path == "/api/replays":
		reply(http.StatusOK, map[string]any{"replays": rs.states})
	case r.Method == "GET" && r.URL.Path == "/api/replays/"+id:
		rs.gets++
		reply(http.StatusOK, rs.states[min(rs.gets, len(rs.states)-1)])
	case r.Method == "POST" && r.URL.Path == "/api/replays/"+id+"/cancel" && rs.cancel != nil:
		reply(rs.cancel())
	default:
		reply(http.StatusNotFound, map[string]any{"error": map[string]any{"code": "not_found", "message": "replay session not found"}})
	}
}

// run runs the command line against the server, on a terminal or not.
func (rs *replayServer) run(t *testing.T, ctx context.Context, tty bool, stdin string, args ...string) (int, string, string) {
	t.Helper()
	restore := isTerminal
	isTerminal = func(io.Writer) bool { return tty }
	t.Cleanup(func() { isTerminal = restore })
	args = append(args, "-url", rs.srv.URL, "-token", token)
	var out, errOut testenv.Output
	code := run(ctx, args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func (rs *replayServer) seen() []string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return append([]string(nil), rs.requests...)
}

const sid = "replay-0123"

func publishError(id string) map[string]any {
	return map[string]any{"timestamp": "2025-01-02T03:04:06Z", "error": "kafka: broker unavailable", "error_type": "PublishError", "event_id": id}
}

// TestOpsReplayFollowsTheSession starts replays against a session that
// progresses through states and checks what the operator sees and the
// exit code, on a terminal and in a log.
func TestOpsReplayFollowsTheSession(t *testing.T) {
	progressing := []map[string]any{
		session(sid, "running", 0, 0, 40, nil),
		session(sid, "running", 20, 0, 40, nil),
		session(sid, "completed", 40, 0, 40, map[string]any{"completed_at": "2025-01-02T03:04:07Z"}),
	}
	failed := []map[string]any{
		session(sid, "running", 0, 0, 40, nil),
		session(sid, "failed", 10, 3, 40, map[string]any{"errors_dropped": 7, "errors": []any{
			publishError("evt-1"), publishError("evt-2"),
			map[string]any{"timestamp": "2025-01-02T03:04:07Z", "error": "store: no server", "error_type": "StoreUnavailable"},
		}}),
	}
	cancelled := []map[string]any{
		session(sid, "running", 0, 0, 40, nil),
		session(sid, "running", 8, 0, 40, nil),
		session(sid, "cancelled", 12, 0, 40, nil),
	}
	someFailed := []map[string]any{
		session(sid, "running", 0, 0, 4, nil),
		session(sid, "completed", 3, 1, 4, map[string]any{"errors": []any{publishError("evt-9")}}),
	}
	start := []string{"replay", "-type", "workflow.created", "-yes", "-interval", "1ms"}
	tests := []struct {
		name     string
		states   []map[string]any
		tty      bool
		args     []string
		code     int
		want     []string // in this order in stdout
		notWant  []string
		stderr   string
		wantGets bool
	}{
		{name: "completes, log", states: progressing, args: start, code: 0, wantGets: true,
			want: []string{"dry run: 40 events match", "replay " + sid + " started: 40 events at most 20/s",
				sid + " running [                              ] 0/40   0.0%  20.0/s  ETA 2s  failed 0\n",
				sid + " running [==============>               ] 20/40  50.0%  20.0/s  ETA 1s  failed 0\n",
				sid + " completed [==============================] 40/40 100.0%  20.0/s  failed 0\n"},
			notWant: []string{"\r", "errors:"}},
		{name: "completes, terminal", states: progressing, tty: true, args: start, code: 0, wantGets: true,
			want: []string{"\r" + sid + " running [", "0/40", "\r" + sid + " running [", "20/40", "\r" + sid + " completed [", "40/40 100.0%", "failed 0      \n"}},
		{name: "failed: the errors and what was dropped", states: failed, args: start, code: 1, wantGets: true,
			want: []string{sid + " failed [", "13/40", "failed 3\n", "errors:\n",
				"  PublishError      evt-1      kafka: broker unavailable\n",
				"  PublishError      evt-2      kafka: broker unavailable\n",
				"  StoreUnavailable  (session)  store: no server\n",
				"  7 more errors not kept\n"},
			stderr: "replay " + sid + " failed: 10 of 40 events replayed"},
		{name: "cancelled", states: cancelled, args: start, code: 1, wantGets: true,
			want: []string{"8/40", sid + " cancelled [", "12/40"}, notWant: []string{"ETA 1s  failed 0\n" + sid + " cancelled"},
			stderr: "replay " + sid + " was cancelled: 12 of 40 events replayed"},
		{name: "completed with failed events", states: someFailed, args: start, code: 1, wantGets: true,
			want: []string{sid + " completed [", "4/4", "failed 1\n", "  PublishError  evt-9"}, stderr: "1 events were not replayed"},
		{name: "detach", states: progressing, args: append(start, "-detach"), code: 0,
			want:    []string{"replay " + sid + " started", "follow it: streamops replay status -watch " + sid, "cancel it: streamops replay cancel " + sid},
			notWant: []string{"[", "completed"}},
		{name: "declined", states: progressing, args: []string{"replay", "-type", "workflow.created"}, code: 1,
			want: []string{"dry run: 40 events match", "[y/N]"}, notWant: []string{"started"}, stderr: "aborted"},
		{name: "status: one snapshot", states: progressing, args: []string{"replay", "status", sid}, code: 0, wantGets: true,
			want: []string{sid + " running [", "20/40  50.0%"}, notWant: []string{"completed"}},
		{name: "status of a failed one", states: []map[string]any{failed[1]}, args: []string{"replay", "status", sid}, code: 0, wantGets: true,
			want: []string{sid + " failed [", "PublishError", "7 more errors not kept"}},
		{name: "status -watch follows to the end", states: progressing, args: []string{"replay", "status", "-watch", "-interval", "1ms", sid}, code: 0, wantGets: true,
			want: []string{"20/40  50.0%", sid + " completed ["}},
		{name: "status -watch, id first", states: cancelled, args: []string{"replay", "status", sid, "-watch", "-interval", "1ms"}, code: 1, wantGets: true,
			want: []string{sid + " cancelled ["}, stderr: "was cancelled"},
		{name: "status of an unknown session", states: progressing, args: []string{"replay", "status", "replay-nope"}, code: 1, wantGets: true, stderr: "404 not_found"},
		{name: "status without an id", states: progressing, args: []string{"replay", "status"}, code: 1, stderr: "name the replay session"},
		{name: "unknown subcommand", states: progressing, args: []string{"replay", "pause", sid}, code: 1, stderr: `unknown subcommand "pause"`},
		{name: "a negative rate", states: progressing, args: append(start, "-rate", "-3"), code: 1, stderr: "-rate -3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rs := newReplayServer(t, tc.states...)
			code, out, errOut := rs.run(t, context.Background(), tc.tty, "n\n", tc.args...)
			assert.Equal(t, tc.code, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
			rest := out
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if !assert.GreaterOrEqual(t, i, 0, "%q not in (the rest of) stdout:\n%s", w, out) {
					break
				}
				rest = rest[i+len(w):]
			}
			for _, w := range tc.notWant {
				assert.NotContains(t, out, w)
			}
			if tc.stderr != "" {
				assert.Contains(t, errOut, tc.stderr)
			}
			gets := 0
			for _, r := range rs.seen() {
				if strings.HasPrefix(r, "GET /api/replays/") {
					gets++
				}
			}
			assert.Equal(t, tc.wantGets, gets > 0, "polled the session: %v", rs.seen())
		})
	}
}

// TestOpsReplaySendsTheRate: -rate is the request's ratePerSecond, and
// without it the API's default applies (the field is left out).
func TestOpsReplaySendsTheRate(t *testing.T) {
	for _, c := range []struct {
		args []string
		want any
	}{
		{[]string{"-rate", "20"}, 20.0},
		{[]string{"-rate", "0.5"}, 0.5},
		{nil, nil},
	} {
		t.Run(fmt.Sprint(c.args), func(t *testing.T) {
			rs := newReplayServer(t, session(sid, "completed", 1, 0, 1, nil))
			args := append([]string{"replay", "-aggregate", "wf-1", "-yes", "-detach"}, c.args...)
			code, _, errOut := rs.run(t, context.Background(), false, "", args...)
			require.Equal(t, 0, code, errOut)
			require.Len(t, rs.bodies, 2, "the dry run, then the replay")
			assert.Nil(t, rs.bodies[0]["ratePerSecond"], "the dry run has no rate")
			assert.Equal(t, c.want, rs.bodies[1]["ratePerSecond"])
			assert.Equal(t, map[string]any{"aggregate_id": "wf-1"}, rs.bodies[1]["filter"])
		})
	}
}

// TestOpsReplayCtrlCDetaches: interrupting the command while it follows a
// session leaves the session running (no cancel request) and says how to
// follow and cancel it.
func TestOpsReplayCtrlCDetaches(t *testing.T) {
	for _, tty := range []bool{false, true} {
		t.Run(fmt.Sprint("tty=", tty), func(t *testing.T) {
			rs := newReplayServer(t, session(sid, "running", 0, 0, 40, nil), session(sid, "running", 5, 0, 40, nil))
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			var code int
			var out, errOut string
			go func() {
				defer close(done)
				code, out, errOut = rs.run(t, ctx, tty, "", "replay", "status", "-watch", "-interval", "5ms", sid)
			}()
			require.Eventually(t, func() bool { return len(rs.seen()) >= 3 }, 10*time.Second, 5*time.Millisecond)
			cancel() // Ctrl-C
			<-done
			assert.Equal(t, 0, code, errOut)
			assert.Contains(t, out, "5/40")
			assert.Contains(t, out, "\ndetached: replay "+sid+" goes on in the background.\n", "on a line of its own")
			assert.Contains(t, out, "cancel it: streamops replay cancel "+sid)
			for _, r := range rs.seen() {
				assert.NotContains(t, r, "/cancel")
			}
		})
	}
}

func TestOpsReplayCancel(t *testing.T) {
	tests := []struct {
		name   string
		status int
		answer any
		code   int
		out    string
		stderr string
	}{
		{"running: cancelled", http.StatusOK, session(sid, "cancelled", 12, 1, 40, nil), 0,
			"replay " + sid + " cancelled: 12 of 40 events replayed, 1 failed\n", ""},
		{"already ended: 409", http.StatusConflict,
			map[string]any{"error": map[string]any{"code": "status_conflict", "message": "replay session is completed", "field": "status"}}, 1,
			"", "cancel " + sid + ": 409 status_conflict: replay session is completed (field status)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rs := newReplayServer(t, session(sid, "running", 0, 0, 40, nil))
			rs.cancel = func() (int, any) { return tc.status, tc.answer }
			code, out, errOut := rs.run(t, context.Background(), false, "", "replay", "cancel", sid)
			assert.Equal(t, tc.code, code, errOut)
			assert.Equal(t, tc.out, out)
			assert.Contains(t, errOut, tc.stderr)
			assert.Contains(t, rs.seen(), "POST /api/replays/"+sid+"/cancel")
		})
	}
	rs := newReplayServer(t, session(sid, "running", 0, 0, 40, nil))
	code, _, errOut := rs.run(t, context.Background(), false, "", "replay", "cancel")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "name the replay session to cancel")
}

func TestOpsReplayList(t *testing.T) {
	rs := newReplayServer(t,
		session("replay-b", "running", 10, 2, 40, nil),
		session("replay-a", "completed", 5, 0, 5, nil))
	code, out, errOut := rs.run(t, context.Background(), false, "", "replay", "list", "-limit", "5")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, rs.seen(), "GET /api/replays?limit=5")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3, out)
	assert.Regexp(t, `^SESSION\s+STATUS\s+DONE\s+PERCENT\s+FAILED\s+CREATED$`, lines[0])
	assert.Regexp(t, `^replay-b\s+running\s+12/40\s+30\.0%\s+2\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$`, lines[1])
	assert.Regexp(t, `^replay-a\s+completed\s+5/5\s+100\.0%\s+0\s`, lines[2])

	// an API with no sessions answers an empty list
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `{"replays":[]}`)
	}))
	t.Cleanup(srv.Close)
	var o, e testenv.Output
	code = run(context.Background(), []string{"replay", "list", "-url", srv.URL, "-token", token}, strings.NewReader(""), &o, &e)
	assert.Equal(t, 0, code, e.String())
	assert.Equal(t, "no replay sessions.\n", o.String())
}

// TestProgressBarInALogPrintsStepsNotPolls: off a terminal, a line is
// printed on each 10 % step crossed and otherwise at most every
// plainEvery while the line changes, whatever the poll interval.
func TestProgressBarInALogPrintsStepsNotPolls(t *testing.T) {
	var out strings.Builder
	clock := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	bar := newProgressBar(&out, false)
	bar.now = func() time.Time { return clock }
	lines := func() int { return strings.Count(out.String(), "\n") }

	for done := int64(0); done <= 100; done++ { // one poll per event, no time passing
		bar.update(sessionView(t, session(sid, "running", done, 0, 200, nil)))
	}
	assert.Equal(t, 6, lines(), "0, 10, 20, 30, 40 and 50 %%:\n%s", out.String())

	bar.update(sessionView(t, session(sid, "running", 101, 0, 200, nil)))
	assert.Equal(t, 6, lines(), "no step, no time: nothing")
	clock = clock.Add(plainEvery)
	bar.update(sessionView(t, session(sid, "running", 101, 0, 200, nil)))
	bar.update(sessionView(t, session(sid, "running", 102, 0, 200, nil)))
	assert.Equal(t, 7, lines(), "after plainEvery, one line")
	assert.Contains(t, out.String(), "101/200")
	assert.NotContains(t, out.String(), "102/200", "within plainEvery of the last line")
	clock = clock.Add(plainEvery)
	bar.update(sessionView(t, session(sid, "running", 103, 0, 200, nil)))
	assert.Equal(t, 8, lines())
	clock = clock.Add(plainEvery)
	bar.update(sessionView(t, session(sid, "running", 103, 0, 200, nil)))
	assert.Equal(t, 8, lines(), "an unchanged line is not printed again")

	bar.finish(sessionView(t, session(sid, "completed", 200, 0, 200, nil)))
	assert.Equal(t, 9, lines())
	assert.True(t, strings.HasSuffix(out.String(), sid+" completed [==============================] 200/200 100.0%  20.0/s  failed 0\n"), out.String())
}

// TestProgressBarOnATerminalRedrawsOneLine: each update rewrites the line
// (\r), blanking what a longer line left; finish ends it.
func TestProgressBarOnATerminalRedrawsOneLine(t *testing.T) {
	var out strings.Builder
	bar := newProgressBar(&out, true)
	bar.update(sessionView(t, session(sid, "running", 1000, 0, 2000, nil)))
	first := out.String()
	bar.update(sessionView(t, session(sid, "running", 1999, 0, 2000, map[string]any{"progress": map[string]any{"done": 1999, "total": 2000, "percent": 99.95, "rate_per_second": 20}})))
	second := strings.TrimPrefix(out.String(), first)
	assert.NotContains(t, out.String(), "\n")
	assert.True(t, strings.HasPrefix(second, "\r"))
	assert.Len(t, second, len(first), "the shorter line (no ETA) is padded over the longer")
	bar.finish(sessionView(t, session(sid, "completed", 2000, 0, 2000, nil)))
	assert.True(t, strings.HasSuffix(out.String(), "failed 0\n"))
	assert.Equal(t, 1, strings.Count(out.String(), "\n"))
}

// sessionView decodes a contract-shaped session as the command does.
func sessionView(t *testing.T, m map[string]any) replaySession {
	t.Helper()
	b, err := json.Marshal(m)
	require.NoError(t, err)
	var s replaySession
	require.NoError(t, json.Unmarshal(b, &s))
	return s
}
