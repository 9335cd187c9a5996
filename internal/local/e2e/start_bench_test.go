package e2e

import (
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// BenchmarkStartToReady measures each function binary's cold start on
// this machine: from exec to its first GET /runtime/invocation/next on a
// Runtime API emulator, the moment Lambda could hand it an invocation
// (ms-to-ready is the median start).
// Nothing is reached over the network: the store is the embedded engine
// in a directory of its own, the brokers are not dialled before the first
// publish, and secrets come from the environment (no
// AWS_LAMBDA_FUNCTION_NAME, so nothing asks Secrets Manager). The store
// exists before the timed starts (one untimed start builds its indexes),
// as a deployed function's MongoDB does. The binaries are this machine's
// build with the Lambda build's tags.
func BenchmarkStartToReady(b *testing.B) {
	bin := buildFunctions(b)
	for _, function := range []string{"webhook", "api", "workflow-processor", "task-processor", "outbox-relay", "retry-sweeper", "archiver"} {
		b.Run("function="+function, func(b *testing.B) {
			ready := make(chan time.Time, 1)
			mux := http.NewServeMux()
			mux.HandleFunc("GET /2018-06-01/runtime/invocation/next", func(w http.ResponseWriter, r *http.Request) {
				select {
				case ready <- time.Now():
				default:
				}
				<-r.Context().Done() // no invocation: the function waits until it is stopped
			})
			env := append(runtimeEnv(b, serve(b, mux)),
				"STREAMOPS_DATA_DIR="+b.TempDir(), "KAFKA_BROKERS=127.0.0.1:9", "STREAMOPS_LOG_LEVEL=warn",
				"WEBHOOK_SECRET_STRIPE="+stripeSecret, "STREAMOPS_ADMIN_TOKEN=bench-admin-token")
			// startToReady runs the function until it asks for an invocation.
			startToReady := func() time.Duration {
				cmd := exec.Command(filepath.Join(bin, function))
				cmd.Env = env
				start := time.Now()
				p := startProcess(b, cmd)
				defer p.stop()
				select {
				case at := <-ready:
					return at.Sub(start)
				case <-p.done:
					b.Fatalf("%s exited before asking for an invocation: %v", function, p.err)
				case <-time.After(30 * time.Second):
					b.Fatalf("%s did not ask for an invocation in 30 s", function)
				}
				return 0
			}
			startToReady() // builds the store
			took := make([]time.Duration, b.N)
			b.ResetTimer()
			for i := range took {
				took[i] = startToReady()
			}
			// The median: on a busy machine one start in several waits
			// for a core, and a mean would report the neighbours.
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "ms-to-ready")
		})
	}
}
