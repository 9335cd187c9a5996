package preflight_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// machine is a PATH of stand-ins for the tools .ci/preflight looks for:
// each stub records its calls in calls.log; apt-get's install puts the
// tools of the packages it names on the PATH, as Debian's would.
type machine struct {
	t        *testing.T
	bin, log string
	// pkgs holds the tools apt-get installs: node, npm, chromium.
	pkgs string
}

func newMachine(t *testing.T, tools ...string) *machine {
	t.Helper()
	dir := t.TempDir()
	m := &machine{t: t, bin: filepath.Join(dir, "bin"), pkgs: filepath.Join(dir, "pkgs"), log: filepath.Join(dir, "calls.log")}
	require.NoError(t, os.Mkdir(m.bin, 0o755))
	require.NoError(t, os.Mkdir(m.pkgs, 0o755))
	// The shell and the few commands the script runs besides the tools.
	for _, name := range []string{"bash", "cat", "rm", "mktemp"} {
		p, err := exec.LookPath(name)
		require.NoError(t, err, "the preflight is a bash script")
		require.NoError(t, os.Symlink(p, filepath.Join(m.bin, name)))
	}
	for _, tool := range []string{"node", "npm", "chromium"} {
		m.stub(m.pkgs, tool)
	}
	for _, tool := range tools {
		m.stub(m.bin, tool)
	}
	return m
}

// stub writes a tool into dir; "node" answers --version with v20.20.2,
// "node@v18.19.0" with that version instead.
func (m *machine) stub(dir, tool string) {
	name, version, _ := strings.Cut(tool, "@")
	body := `echo "` + name + ` $*" >>` + m.log + "\n"
	switch name {
	case "node":
		if version == "" {
			version = "v20.20.2"
		}
		body += "echo " + version + "\n"
	case "apt-get":
		ln, err := exec.LookPath("ln")
		require.NoError(m.t, err)
		body += `[ "$1" = install ] || exit 0
for p; do
  case $p in -*|install) continue ;; nodejs) p=node ;; esac
  ` + ln + ` -s ` + m.pkgs + `/$p ` + m.bin + `/$p
done
`
	}
	require.NoError(m.t, os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body), 0o755))
}

// calls are the stubs' recorded invocations.
func (m *machine) calls() []string {
	raw, err := os.ReadFile(m.log)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(m.t, err)
	return strings.Split(strings.TrimSpace(string(raw)), "\n")
}

// preflight runs .ci/preflight with make test's needs on m, as uid.
func (m *machine) preflight(uid string, env ...string) (string, error) {
	cmd := exec.Command(filepath.Join(m.bin, "bash"), filepath.Join("..", "..", ".ci", "preflight"), "go", "node", "npm", "chromium")
	cmd.Env = append([]string{"PATH=" + m.bin, "HOME=" + m.t.TempDir(), "TMPDIR=" + m.t.TempDir(),
		"STREAMOPS_PREFLIGHT_UID=" + uid}, env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestPreflightInstallsAsRootOrNamesTheCommand: on a machine that lacks
// what make test needs, the preflight installs it with apt-get when it
// runs as root, and otherwise fails at once with the command to run,
// before any go command (the long steps) has run.
func TestPreflightInstallsAsRootOrNamesTheCommand(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tools []string
		uid   string
		env   []string
		// says is what the output must contain; calls the tools it ran
		// (apt-get, node --version), in order; ok whether it passes.
		says  []string
		calls []string
		ok    bool
	}{
		{name: "everything there", tools: []string{"go", "node", "npm", "chromium"}, uid: "1000", ok: true,
			calls: []string{"node --version"}},
		{name: "no chromium, not root", tools: []string{"go", "node", "npm", "apt-get"}, uid: "1000",
			says: []string{"missing chromium", "sudo apt-get install -y chromium", "CHROMIUM_PATH"}},
		{name: "no chromium or Node.js, not root", tools: []string{"go", "npm"}, uid: "1000",
			says: []string{"sudo apt-get install -y nodejs chromium"}},
		{name: "no chromium, root without apt-get", tools: []string{"go", "node", "npm"}, uid: "0",
			says: []string{"\n  apt-get install -y chromium\n"}},
		{name: "no chromium, root with apt-get", tools: []string{"go", "node", "npm", "apt-get"}, uid: "0", ok: true,
			says:  []string{"preflight: installing chromium"},
			calls: []string{"apt-get update -qq", "apt-get install -y -qq chromium", "node --version"}},
		{name: "no Node.js, npm or chromium, root with apt-get", tools: []string{"go", "apt-get"}, uid: "0", ok: true,
			calls: []string{"apt-get update -qq", "apt-get install -y -qq nodejs npm chromium", "node --version"}},
		{name: "CHROMIUM_PATH instead of chromium", tools: []string{"go", "node", "npm"}, uid: "1000", ok: true,
			env: []string{"CHROMIUM_PATH=/bin/sh"}, calls: []string{"node --version"}},
		{name: "CHROMIUM_PATH names nothing", tools: []string{"go", "node", "npm"}, uid: "1000",
			env: []string{"CHROMIUM_PATH=/nonexistent/chrome"}, says: []string{"sudo apt-get install -y chromium"}},
		{name: "Node.js too old", tools: []string{"go", "node@v18.19.0", "npm", "chromium"}, uid: "0",
			says: []string{"Node.js 20.19 or later is needed", "this is v18.19.0"}, calls: []string{"node --version"}},
		{name: "no Go", tools: []string{"node", "npm", "chromium"}, uid: "0",
			says: []string{"Go is missing", "https://go.dev/dl/"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMachine(t, tc.tools...)
			out, err := m.preflight(tc.uid, tc.env...)
			if tc.ok {
				require.NoError(t, err, out)
			} else {
				require.Error(t, err, out)
			}
			for _, s := range tc.says {
				assert.Contains(t, out, s)
			}
			calls := m.calls()
			for _, c := range calls {
				assert.False(t, strings.HasPrefix(c, "go "), "the preflight runs no go command: %q", c)
			}
			assert.Equal(t, tc.calls, calls, "what it ran and installed")
		})
	}
}

// TestMakeTestRunsThePreflightFirst: make builds a target's prerequisites
// left to right, so the preflight's failure stops make test before lint,
// the unit tests and the rest.
func TestMakeTestRunsThePreflightFirst(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "Makefile"))
	require.NoError(t, err)
	defer f.Close()
	rules := map[string][]string{}
	recipes := map[string][]string{}
	var current string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "\t") {
			recipes[current] = append(recipes[current], strings.TrimSpace(line))
			continue
		}
		target, prereqs, ok := strings.Cut(line, ":")
		if !ok || strings.ContainsAny(target, " =$#") || strings.HasPrefix(prereqs, "=") {
			current = ""
			continue
		}
		prereqs, _, _ = strings.Cut(prereqs, "##")
		current = target
		rules[target] = strings.Fields(prereqs)
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, rules["test"], "the Makefile has a test rule")
	assert.Equal(t, "preflight", rules["test"][0], "make test's first prerequisite")
	assert.Equal(t, []string{"@.ci/preflight go node npm chromium"}, recipes["preflight"])
}
