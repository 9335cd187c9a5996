package handlers

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFunctionsLinkOnlyWhatTheyCall lists each Lambda's dependencies as
// `make build` compiles them and checks that none links a package only
// another function calls: every imported package's initialisation and data
// land in the bootstrap, whether or not the function calls it (docs/performance.md,
// Bootstraps). A function that needs one of these
// packages after all should say so here.
func TestFunctionsLinkOnlyWhatTheyCall(t *testing.T) {
	const mod = "github.com/streamops/streamops/"
	const (
		s3          = "github.com/aws/aws-sdk-go-v2/service/s3"
		ses         = "github.com/aws/aws-sdk-go-v2/service/sesv2"
		sdkConfig   = "github.com/aws/aws-sdk-go-v2/config"
		httpapi     = mod + "internal/httpapi"
		console     = mod + "internal/console"
		outbox      = mod + "internal/outbox"
		sweep       = mod + "internal/sweep"
		archive     = mod + "internal/archive"
		ingest      = mod + "internal/ingest"
		workflow    = mod + "internal/workflow"
		task        = mod + "internal/task"
		handlersPkg = mod + "internal/handlers"
		localStack  = mod + "internal/local"
	)
	everywhere := []string{sdkConfig, localStack}
	tests := []struct {
		function string
		mustNot  []string
	}{
		{"webhook", []string{s3, ses, console, outbox, sweep, archive, handlersPkg}},
		{"api", []string{ses}},
		{"workflow-processor", []string{s3, ses, httpapi, console, outbox, sweep, archive, ingest, handlersPkg}},
		{"task-processor", []string{httpapi, console, outbox, sweep, archive, ingest, handlersPkg}},
		{"kafka-topics", []string{s3, ses, httpapi, console, outbox, sweep, archive, ingest, workflow, task}},
	}
	for _, tc := range tests {
		t.Run(tc.function, func(t *testing.T) {
			cmd := exec.Command("go", "list", "-deps", "-tags", "lambda.norpc", "./functions/"+tc.function)
			cmd.Dir = "../.."
			cmd.Env = append(cmd.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
			out, err := cmd.Output()
			require.NoError(t, err, "go list -deps ./functions/%s", tc.function)
			deps := map[string]bool{}
			for _, p := range strings.Fields(string(out)) {
				deps[p] = true
			}
			require.True(t, deps[mod+"internal/app"], "the listing is the function's: it opens the app")
			for _, p := range append(tc.mustNot, everywhere...) {
				assert.False(t, deps[p], "%s links %s", tc.function, p)
			}
		})
	}
}

// TestPackagesDependOnlyDownward guards the package graph's layers, top
// to bottom: the mains (functions/, internal/cmd/), the load probe that
// drives the local stack (make soak, the latency row), the local stack, the
// handlers the mains and the local stack wire, the Lambda bootstrap
// (internal/app), and under them every other package. No package depends
// on a layer above its own, so no arrow runs back up; and package status
// depends on nothing of the module, so the store and the domains that
// import the store can all import it.
func TestPackagesDependOnlyDownward(t *testing.T) {
	const mod = "github.com/streamops/streamops/"
	layers := [][]string{ // top first, as package paths and the trees under them
		{"functions", "internal/cmd"},
		{"internal/loadprobe"},
		{"internal/local"},
		{"internal/handlers"},
		{"internal/app"},
	}
	matched := map[string]bool{}
	layer := func(pkg string) int {
		rel := strings.TrimPrefix(pkg, mod)
		for i, l := range layers {
			for _, p := range l {
				if rel == p || strings.HasPrefix(rel, p+"/") {
					matched[p] = true
					return i
				}
			}
		}
		return len(layers) // the bottom layer
	}
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, "./...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	require.NoError(t, err, "go list ./...")
	sawStatus := false
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, deps, _ := strings.Cut(line, " ")
		sawStatus = sawStatus || pkg == mod+"internal/status"
		for _, dep := range strings.Fields(deps) {
			switch {
			case !strings.HasPrefix(dep, mod):
			case pkg == mod+"internal/status":
				t.Errorf("package status depends on %s: it must be a leaf", dep)
			case layer(dep) < layer(pkg):
				t.Errorf("%s depends on %s, a layer above its own", pkg, dep)
			}
		}
	}
	assert.True(t, sawStatus, "package status is listed")
	for _, l := range layers {
		for _, p := range l {
			assert.True(t, matched[p], "%s names packages of the module", p)
		}
	}
}
