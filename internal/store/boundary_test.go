package store_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lifecycles are the leaf packages that define a lifecycle's statuses
// beside the code that decides them; the store persists them.
var lifecycles = []string{
	"internal/workflow/workflowstatus",
	"internal/task/taskstatus",
	"internal/ingest/webhookstatus",
	"internal/outbox/outboxstatus",
	"internal/outbox/partnerstatus",
	"internal/history/replaystatus",
	"internal/stream/deadletterstatus",
}

// TestLifecyclesAreOwnedByTheirDomainNotTheStore guards the rule that no
// package outside the store takes a status from the store to make a domain
// decision: the statuses live in the lifecycle packages (leaves, so the
// store can import them without a cycle), the store declares none of them,
// and no package compares a status field with a bare status string.
func TestLifecyclesAreOwnedByTheirDomainNotTheStore(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	const module = "github.com/streamops/streamops/"

	statuses := map[string][]string{} // value → the lifecycle packages that declare it
	for _, dir := range lifecycles {
		files := parseDir(t, filepath.Join(root, dir), false)
		require.NotEmpty(t, files, dir)
		for _, f := range files {
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				assert.False(t, strings.HasPrefix(path, module), "%s imports %s: a lifecycle package is a leaf, or the store could not import it", dir, path)
			}
			for name, value := range stringConsts(f) {
				if ast.IsExported(name) {
					statuses[value] = append(statuses[value], dir)
				}
			}
		}
	}
	require.NotEmpty(t, statuses)

	// Every leaf that calls itself a lifecycle package is in the table.
	require.NoError(t, filepath.WalkDir(filepath.Join(root, "internal"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() || !strings.HasSuffix(d.Name(), "status") {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		assert.Contains(t, lifecycles, filepath.ToSlash(rel), "a lifecycle package missing from the table")
		return nil
	}))

	// The store declares no status of a lifecycle.
	for _, f := range parseDir(t, filepath.Join(root, "internal/store"), false) {
		for name, value := range stringConsts(f) {
			if dir, ok := statuses[value]; ok && ast.IsExported(name) {
				t.Errorf("store declares %s = %q: a status belongs to its lifecycle package (%s)", name, value, strings.Join(dir, ", "))
			}
		}
	}

	// Outside the store and the lifecycle packages, no status field is
	// compared with a bare status string.
	require.NoError(t, filepath.WalkDir(root, func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, dir)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == ".":
		case rel == "infra", strings.HasPrefix(rel, "."), rel == "internal/store", strings.HasPrefix(rel, "internal/store/"), slices.Contains(lifecycles, rel):
			return filepath.SkipDir
		}
		for name, f := range parseDir(t, dir, true) {
			ast.Inspect(f, func(n ast.Node) bool {
				var pairs [][2]ast.Expr
				switch n := n.(type) {
				case *ast.BinaryExpr:
					if n.Op == token.EQL || n.Op == token.NEQ {
						pairs = append(pairs, [2]ast.Expr{n.X, n.Y}, [2]ast.Expr{n.Y, n.X})
					}
				case *ast.SwitchStmt:
					for _, c := range n.Body.List {
						for _, e := range c.(*ast.CaseClause).List {
							if n.Tag != nil {
								pairs = append(pairs, [2]ast.Expr{n.Tag, e})
							}
						}
					}
				}
				for _, p := range pairs {
					field, lit := p[0], p[1]
					sel, ok := field.(*ast.SelectorExpr)
					bl, isLit := lit.(*ast.BasicLit)
					if !ok || !isLit || bl.Kind != token.STRING || !statusField(sel.Sel.Name) {
						continue
					}
					if value, _ := strconv.Unquote(bl.Value); len(statuses[value]) > 0 {
						t.Errorf("%s: %s compared with %s: use the constant of its lifecycle package (%s)", path.Join(rel, name), sel.Sel.Name, bl.Value, strings.Join(statuses[value], ", "))
					}
				}
				return true
			})
		}
		return nil
	}))
}

func statusField(name string) bool {
	return name == "Status" || name == "State" || name == "EventStatus"
}

// parseDir parses a directory's Go files, its tests too when withTests, by
// file name.
func parseDir(t *testing.T, dir string, withTests bool) map[string]*ast.File {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	out := map[string]*ast.File{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || !withTests && strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		out[name] = f
	}
	return out
}

// stringConsts returns the string constants a file declares, by name.
func stringConsts(f *ast.File) map[string]string {
	out := map[string]string{}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if i >= len(vs.Values) {
					continue
				}
				if bl, ok := vs.Values[i].(*ast.BasicLit); ok && bl.Kind == token.STRING {
					out[name.Name], _ = strconv.Unquote(bl.Value)
				}
			}
		}
	}
	return out
}
