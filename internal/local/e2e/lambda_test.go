package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"

	sevents "github.com/streamops/streamops/events"
	"github.com/streamops/streamops/internal/bus"
	"github.com/streamops/streamops/internal/provider"
	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
	"github.com/streamops/streamops/internal/testenv"
)

// runtimeAPI is a minimal Lambda Runtime API (2018-06-01): it hands out
// the invocations queued on it (next) and collects what the function
// answers (response, error, init error).
type runtimeAPI struct {
	addr     string
	function string
	queue    chan []byte
	results  chan result
}

// result is one answer of the function.
type result struct {
	kind      string // response, error or init-error
	requestID string
	body      []byte
}

func newRuntimeAPI(t *testing.T, function string) *runtimeAPI {
	t.Helper()
	rt := &runtimeAPI{function: function, queue: make(chan []byte, 4), results: make(chan result, 4)}
	mux := http.NewServeMux()
	const base = "/2018-06-01/runtime"
	mux.HandleFunc("GET "+base+"/invocation/next", func(w http.ResponseWriter, r *http.Request) {
		select {
		case payload := <-rt.queue:
			w.Header().Set("Lambda-Runtime-Aws-Request-Id", uuid.NewString())
			w.Header().Set("Lambda-Runtime-Deadline-Ms", strconv.FormatInt(time.Now().Add(30*time.Second).UnixMilli(), 10))
			w.Header().Set("Lambda-Runtime-Invoked-Function-Arn", "arn:aws:lambda:us-east-1:000000000000:function:streamops-"+function)
			w.Header().Set("Lambda-Runtime-Trace-Id", "Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1")
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(payload)
		case <-r.Context().Done(): // the function is being stopped
		}
	})
	answer := func(kind string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			var body bytes.Buffer
			_, _ = body.ReadFrom(r.Body)
			rt.results <- result{kind: kind, requestID: r.PathValue("id"), body: body.Bytes()}
			w.WriteHeader(http.StatusAccepted)
		}
	}
	mux.HandleFunc("POST "+base+"/invocation/{id}/response", answer("response"))
	mux.HandleFunc("POST "+base+"/invocation/{id}/error", answer("error"))
	mux.HandleFunc("POST "+base+"/init/error", answer("init-error"))
	rt.addr = serve(t, mux)
	return rt
}

// serve serves h on a free local port until the test ends and returns
// its address. (httptest.Server would wait on Close for the function's
// open GET .../invocation/next; http.Server.Close drops it.)
func serve(tb testing.TB, h http.Handler) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(tb, err)
	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(ln) }()
	tb.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().String()
}

// runtimeEnv is the environment Lambda gives a function, its Runtime API
// at addr.
func runtimeEnv(tb testing.TB, addr string) []string {
	return []string{
		"AWS_LAMBDA_RUNTIME_API=" + addr,
		"AWS_LAMBDA_FUNCTION_VERSION=$LATEST",
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE=512",
		"AWS_LAMBDA_LOG_STREAM_NAME=2026/01/04/[$LATEST]0123456789abcdef",
		"AWS_REGION=us-east-1",
		"AWS_EC2_METADATA_DISABLED=true",
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + tb.TempDir(),
	}
}

// process is a function binary started by a test.
type process struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has ended
	err  error         // how it ended, once done is closed
}

// startProcess starts cmd; the caller stops it.
func startProcess(tb testing.TB, cmd *exec.Cmd) *process {
	tb.Helper()
	require.NoError(tb, cmd.Start())
	p := &process{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p
}

// stop kills the process (when it still runs) and waits for its end.
func (p *process) stop() {
	_ = p.cmd.Process.Kill()
	<-p.done
}

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
	buildOut  []byte
)

// buildFunctions builds every function's main for this machine, the way
// the Lambda build does (-tags lambda.norpc), once per test binary.
func buildFunctions(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "streamops-functions-")
		if buildErr != nil {
			return
		}
		cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-tags", "lambda.norpc", "-o", binDir+string(filepath.Separator), "./functions/...")
		cmd.Dir = filepath.Join("..", "..", "..")
		buildOut, buildErr = cmd.CombinedOutput()
	})
	require.NoError(t, buildErr, "%s", buildOut)
	return binDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// storeEnv is the environment that points a function at the test's store:
// a data directory of its own on the embedded engine, a database of its own
// on MongoDB. On the embedded engine it opts in explicitly
// (STREAMOPS_ALLOW_EMBEDDED_STORE), since a function under the Runtime
// API, which sets AWS_LAMBDA_FUNCTION_NAME, refuses to start without
// MONGODB_URI otherwise (TestFunctionBinariesRefuseToStartOnLambdaWithoutMongoDB).
func storeEnv(t *testing.T) []string {
	cfg := storetest.Configure(t, store.Config{})
	if cfg.URI == "" {
		return []string{"STREAMOPS_DATA_DIR=" + t.TempDir(), "STREAMOPS_ALLOW_EMBEDDED_STORE=true"}
	}
	// The opt-in also lets the personal-data vault keep its keys in a
	// local key file, as there is no KMS here.
	return []string{"MONGODB_URI=" + cfg.URI, "MONGODB_DATABASE=" + cfg.Database,
		"STREAMOPS_DATA_DIR=" + t.TempDir(), "STREAMOPS_ALLOW_EMBEDDED_STORE=true"}
}

// invoke runs function's binary under the runtime API with env and one
// invocation of payload, and returns its answer and its output. A binary
// that exits before answering (a failed cold start) returns kind "exit".
func invoke(t *testing.T, function string, env []string, payload []byte) (result, string) {
	t.Helper()
	rt := newRuntimeAPI(t, function)
	rt.queue <- payload
	cmd := exec.Command(filepath.Join(buildFunctions(t), function))
	cmd.Env = append(runtimeEnv(t, rt.addr), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	p := startProcess(t, cmd)
	// The output is read only once the process has ended: until then its
	// copying goroutines still write to out.
	select {
	case res := <-rt.results:
		p.stop()
		return res, out.String()
	case <-p.done:
		return result{kind: "exit", body: []byte(fmt.Sprint(p.err))}, out.String()
	case <-time.After(60 * time.Second):
		p.stop()
		t.Fatalf("%s did not answer:\n%s", function, out.String())
		return result{}, ""
	}
}

// TestFunctionBinariesUnderTheLambdaRuntimeAPI runs the real mains of
// functions/ (built for this machine with the Lambda build's tags) under
// a Runtime API emulator with a testdata/ event each, against kfake and
// the embedded store: it proves each binary's wiring from the environment
// to its answer, not only its handler.
func TestFunctionBinariesUnderTheLambdaRuntimeAPI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the function binaries")
	}
	cluster := testenv.Broker(t)
	admin, err := bus.New(bus.Config{Brokers: cluster.ListenAddrs()})
	require.NoError(t, err)
	defer admin.Close()
	require.NoError(t, admin.EnsureTopics(context.Background()))

	scheduled := testenv.Testdata(t, "eventbridge/scheduled-retry-sweeper.json")
	tests := []struct {
		function string
		event    []byte
		env      []string
		// secretsFromEnv leaves AWS_LAMBDA_FUNCTION_NAME unset, so the
		// webhook reads its secret from WEBHOOK_SECRET_STRIPE instead of
		// Secrets Manager, which the test cannot reach.
		secretsFromEnv bool
		check          func(t *testing.T, res result, logs string)
	}{
		{"webhook", resigned(t, "apigw/webhooks-stripe.json", stripeSecret), []string{"WEBHOOK_SECRET_STRIPE=" + stripeSecret}, true,
			func(t *testing.T, res result, logs string) {
				resp := respondsHTTP(t, res, logs, http.StatusAccepted)
				assert.Contains(t, resp.Body, `"status":"accepted"`)
				env := consumeType(t, cluster.ListenAddrs(), sevents.TopicWorkflows, sevents.WorkflowCreated)
				assert.Equal(t, "webhook", env.Metadata.Source, "the invoice started its workflow")
			}},
		{"api", testenv.Testdata(t, "apigw/api-post-task.json"), []string{"STREAMOPS_ADMIN_TOKEN=lambda-test-admin-token"}, false,
			func(t *testing.T, res result, logs string) {
				resp := respondsHTTP(t, res, logs, http.StatusCreated)
				var receipt struct{ TaskID, EventID string }
				require.NoError(t, json.Unmarshal([]byte(resp.Body), &receipt))
				env := consumeKey(t, cluster.ListenAddrs(), sevents.TopicTasks, receipt.TaskID)
				assert.Equal(t, sevents.TaskCreated, env.EventType, "the task.created went to Kafka")
				assert.Equal(t, receipt.EventID, env.EventID)
			}},
		{"api", testenv.Testdata(t, "msk/workflows-pipeline.json"), []string{"STREAMOPS_ADMIN_TOKEN=lambda-test-admin-token"}, false,
			func(t *testing.T, res result, logs string) {
				// Not an HTTP API request: a function error naming it, not
				// an HTTP answer (it once was a 307 to /).
				require.Equal(t, "error", res.kind, "%s", res.body)
				assert.Contains(t, string(res.body), `a Kafka event (eventSource \"aws:kafka\")`)
				assert.Contains(t, string(res.body), "API Gateway HTTP API requests (payload format 2.0")
			}},
		{"webhook", testenv.Testdata(t, "eventbridge/scheduled-retry-sweeper.json"), []string{"WEBHOOK_SECRET_STRIPE=" + stripeSecret}, true,
			func(t *testing.T, res result, logs string) {
				require.Equal(t, "error", res.kind, "%s", res.body)
				assert.Contains(t, string(res.body), "an EventBridge event")
			}},
		{"workflow-processor", testenv.Testdata(t, "msk/workflows-pipeline.json"), nil, false,
			func(t *testing.T, res result, logs string) {
				respondsNull(t, res, logs)
				env := consumeKey(t, cluster.ListenAddrs(), sevents.TopicWorkflows, "wf-98160bf0-0cf3-490f-bf9b-09c9c0adb944")
				assert.Equal(t, sevents.WorkflowProcessing, env.EventType, "the workflow ran and published its lifecycle")
			}},
		{"task-processor", testenv.Testdata(t, "msk/tasks-email.json"), nil, false,
			func(t *testing.T, res result, logs string) {
				// On Lambda the executors need SES and S3; without them the
				// cold start fails rather than mailing into the sandbox's disk.
				assert.Equal(t, "exit", res.kind, "%s", res.body)
				assert.Contains(t, logs, "cold start failed")
				assert.Contains(t, logs, "STREAMOPS_EMAIL_SENDER is required on Lambda")
			}},
		{"outbox-relay", scheduled, nil, false, respondsNull},
		{"retry-sweeper", scheduled, nil, false, respondsNull},
		{"archiver", scheduled, nil, false, respondsNull},
	}
	for _, tc := range tests {
		t.Run(tc.function, func(t *testing.T) {
			env := append([]string{brokersEnv(cluster.ListenAddrs())}, storeEnv(t)...)
			env = append(env, tc.env...)
			if !tc.secretsFromEnv {
				env = append(env, "AWS_LAMBDA_FUNCTION_NAME=streamops-"+tc.function)
			}
			res, logs := invoke(t, tc.function, env, tc.event)
			tc.check(t, res, logs)
			if res.kind == "response" {
				assert.Contains(t, logs, `"msg":"cold start"`, "app.Open logged its cold start")
				assert.Contains(t, logs, fmt.Sprintf(`"store":%q`, storetest.Engine()))
			}
		})
	}
}

// TestFunctionBinariesRefuseToStartOnLambdaWithoutMongoDB: with
// AWS_LAMBDA_FUNCTION_NAME set and no MONGODB_URI, every function's cold
// start fails, naming what is missing, rather than accepting work into an
// instance's memory; with a broker, so the store is what it refuses for.
func TestFunctionBinariesRefuseToStartOnLambdaWithoutMongoDB(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the function binaries")
	}
	cluster := testenv.Broker(t)
	scheduled := testenv.Testdata(t, "eventbridge/scheduled-retry-sweeper.json")
	tests := []struct {
		function string
		event    []byte
	}{
		{"webhook", testenv.Testdata(t, "apigw/webhooks-stripe.json")},
		{"api", testenv.Testdata(t, "apigw/api-post-task.json")},
		{"workflow-processor", testenv.Testdata(t, "msk/workflows-pipeline.json")},
		{"task-processor", testenv.Testdata(t, "msk/tasks-email.json")},
		{"outbox-relay", scheduled},
		{"retry-sweeper", scheduled},
		{"archiver", scheduled},
	}
	for _, tc := range tests {
		t.Run(tc.function, func(t *testing.T) {
			env := []string{brokersEnv(cluster.ListenAddrs()), "AWS_LAMBDA_FUNCTION_NAME=streamops-" + tc.function,
				"STREAMOPS_DATA_DIR=" + t.TempDir(), "STREAMOPS_ADMIN_TOKEN=lambda-test-admin-token", "WEBHOOK_SECRET_STRIPE=" + stripeSecret}
			res, logs := invoke(t, tc.function, env, tc.event)
			assert.Equal(t, "exit", res.kind, "the function answered instead of refusing to start: %s", res.body)
			assert.Contains(t, logs, "cold start failed")
			assert.Contains(t, logs, "no store: set MONGODB_URI")
		})
	}
}

// brokersEnv is the KAFKA_BROKERS that points a function at addrs.
func brokersEnv(addrs []string) string { return "KAFKA_BROKERS=" + strings.Join(addrs, ",") }

// respondsHTTP checks that the function answered API Gateway a response
// of status, and returns it.
func respondsHTTP(t *testing.T, res result, logs string, status int) events.APIGatewayV2HTTPResponse {
	t.Helper()
	require.Equal(t, "response", res.kind, "%s\n%s", res.body, logs)
	var resp events.APIGatewayV2HTTPResponse
	require.NoError(t, json.Unmarshal(res.body, &resp))
	require.Equal(t, status, resp.StatusCode, resp.Body)
	return resp
}

func respondsNull(t *testing.T, res result, logs string) {
	t.Helper()
	require.Equal(t, "response", res.kind, "%s\n%s", res.body, logs)
	assert.Equal(t, "null", strings.TrimSpace(string(res.body)))
}

// resigned is the API Gateway event in testdata/path with its
// Stripe-Signature made now with secret: Stripe's 300 s tolerance rejects
// the fixture's own.
func resigned(t *testing.T, path, secret string) []byte {
	t.Helper()
	var req events.APIGatewayV2HTTPRequest
	require.NoError(t, json.Unmarshal(testenv.Testdata(t, path), &req))
	providers, err := provider.LoadProviders("")
	require.NoError(t, err)
	h := testenv.Sign(t, providers, "stripe", []byte(req.Body), secret, provider.SignOptions{Now: time.Now()})
	req.Headers["stripe-signature"] = h.Get("Stripe-Signature")
	out, err := json.Marshal(req)
	require.NoError(t, err)
	return out
}

// consumeType reads topic from the start until an event of type typ shows
// up.
func consumeType(t *testing.T, brokers []string, topic string, typ sevents.Type) sevents.Envelope {
	t.Helper()
	return consumeEvent(t, brokers, topic, func(r *kgo.Record, env sevents.Envelope) bool { return env.EventType == typ })
}

// consumeKey reads topic from the start until an event with key shows up.
func consumeKey(t *testing.T, brokers []string, topic, key string) sevents.Envelope {
	t.Helper()
	return consumeEvent(t, brokers, topic, func(r *kgo.Record, _ sevents.Envelope) bool { return string(r.Key) == key })
}

// consumeEvent reads topic from the start until match accepts an event.
func consumeEvent(t *testing.T, brokers []string, topic string, match func(*kgo.Record, sevents.Envelope) bool) sevents.Envelope {
	t.Helper()
	var env sevents.Envelope
	testenv.Consume(t, brokers, topic, 10*time.Second, func(r *kgo.Record) bool {
		var err error
		env, err = sevents.Decode(r.Value)
		return err == nil && match(r, env)
	})
	return env
}
