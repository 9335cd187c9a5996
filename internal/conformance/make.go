package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// GoTest is one `go test` command a make target runs.
type GoTest struct {
	// Target is the make target whose recipe runs it.
	Target string
	// Dir is the directory it runs in, relative to the repository root
	// ("" for the root, "infra" after `cd infra &&`).
	Dir string
	// Patterns are its package patterns (./..., ./internal/x/...).
	Patterns []string
	// Tags are its -tags.
	Tags []string
	// Skip is its -skip pattern, if any.
	Skip string
}

var (
	goTestCmd  = regexp.MustCompile(`(?:\$\(GO\)|\bgo) test\b(.*)`)
	cdPrefix   = regexp.MustCompile(`\bcd ([A-Za-z0-9_./-]+) &&`)
	tagsFlag   = regexp.MustCompile(`-tags[ =]([A-Za-z0-9_,]+)`)
	skipFlag   = regexp.MustCompile(`-skip[ =]'([^']*)'`)
	runFlag    = regexp.MustCompile(`-run[ =]`)
	targetLine = regexp.MustCompile(`^([a-z][a-z0-9-]*):([^=].*)?$`)
	makeVar    = regexp.MustCompile(`^([A-Z_]+)\s*[:?]?=\s*(.*)$`)
)

// makefile is a Makefile's targets, prerequisites, recipes and variables.
type makefile struct {
	prereqs, recipes map[string][]string
	vars             map[string]string
}

func readMakefile(root string) (*makefile, error) {
	b, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		return nil, err
	}
	prereqs := map[string][]string{}
	recipes := map[string][]string{}
	vars := map[string]string{}
	cur := ""
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "\t") {
			if cur != "" {
				recipes[cur] = append(recipes[cur], strings.TrimSpace(line))
			}
			continue
		}
		cur = ""
		if m := makeVar.FindStringSubmatch(line); m != nil {
			vars[m[1]] = strings.TrimSpace(m[2])
			continue
		}
		if m := targetLine.FindStringSubmatch(line); m != nil {
			cur = m[1]
			deps, _, _ := strings.Cut(m[2], "##")
			prereqs[cur] = strings.Fields(deps)
		}
	}
	return &makefile{prereqs: prereqs, recipes: recipes, vars: vars}, nil
}

// lines calls fn with every recipe line of target and of its
// prerequisites, lines continued with a backslash joined.
func (m *makefile) lines(target string, fn func(target, line string)) {
	seen := map[string]bool{}
	var walk func(t string)
	walk = func(t string) {
		if seen[t] {
			return
		}
		seen[t] = true
		for _, d := range m.prereqs[t] {
			walk(d)
		}
		joined := strings.ReplaceAll(strings.Join(m.recipes[t], "\n"), "\\\n", " ")
		for _, line := range strings.Split(joined, "\n") {
			fn(t, line)
		}
	}
	walk(target)
}

// MakeTestRuns reads the Makefile at root and returns the go test commands
// that target runs, following its prerequisites. A command with -run
// selects tests by name and is left out: it runs only what it names.
func MakeTestRuns(root, target string) ([]GoTest, error) {
	mf, err := readMakefile(root)
	if err != nil {
		return nil, err
	}
	var out []GoTest
	mf.lines(target, func(t, line string) {
		m := goTestCmd.FindStringSubmatch(line)
		if m == nil {
			return
		}
		args := m[1]
		if runFlag.MatchString(args) {
			return
		}
		gt := GoTest{Target: t}
		if c := cdPrefix.FindStringSubmatch(line); c != nil {
			gt.Dir = filepath.Clean(c[1])
		}
		if tm := tagsFlag.FindStringSubmatch(args); tm != nil {
			gt.Tags = strings.Split(tm[1], ",")
		}
		if sm := skipFlag.FindStringSubmatch(args); sm != nil {
			gt.Skip = expandVars(sm[1], mf.vars)
		}
		for _, f := range strings.Fields(args) {
			if strings.HasPrefix(f, "./") || f == "." {
				gt.Patterns = append(gt.Patterns, f)
			}
		}
		if len(gt.Patterns) > 0 {
			out = append(out, gt)
		}
	})
	if len(out) == 0 {
		return nil, fmt.Errorf("conformance: the Makefile's %q target runs no go test over a package pattern (./...): the table's tests cannot be shown to run in it", target)
	}
	return out, nil
}

var (
	envAssign = regexp.MustCompile(`\b([A-Z][A-Z0-9_]+)=`)
	envNeeded = regexp.MustCompile(`test -n "\$\$([A-Z][A-Z0-9_]+)"`)
)

// MakeEnv is the environment variables the recipes of targets (and their
// prerequisites) set, or require set before they run (test -n "$$X").
func MakeEnv(root string, targets ...string) (map[string]bool, error) {
	mf, err := readMakefile(root)
	if err != nil {
		return nil, err
	}
	env := map[string]bool{}
	for _, t := range targets {
		mf.lines(t, func(_, line string) {
			for _, re := range []*regexp.Regexp{envAssign, envNeeded} {
				for _, m := range re.FindAllStringSubmatch(line, -1) {
					env[m[1]] = true
				}
			}
		})
	}
	return env, nil
}

func expandVars(s string, vars map[string]string) string {
	return regexp.MustCompile(`\$\(([A-Z_]+)\)`).ReplaceAllStringFunc(s, func(v string) string {
		return vars[v[2:len(v)-1]]
	})
}

// Covers reports whether the command runs the package in dir (relative to
// the repository root), whose module root is modDir.
func (g GoTest) Covers(dir, modDir string) bool {
	base := g.Dir
	if filepath.Clean(modDir) != filepath.Clean(base) && !(modDir == "" && base == ".") {
		return false // go test ./... stops at a nested module
	}
	for _, el := range strings.Split(dir, "/") {
		if el == "testdata" || strings.HasPrefix(el, "_") || strings.HasPrefix(el, ".") {
			return false
		}
	}
	for _, p := range g.Patterns {
		p = filepath.ToSlash(filepath.Join(base, p))
		if p == "." {
			p = ""
		}
		if rest, ok := strings.CutSuffix(p, "/..."); ok {
			if rest == "." || rest == "" || dir == rest || strings.HasPrefix(dir, rest+"/") {
				return true
			}
			continue
		}
		if p == "..." || dir == p {
			return true
		}
	}
	return false
}
