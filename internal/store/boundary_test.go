package store_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStatusesAreWrittenOnceInPackageStatus guards the rule that every
// lifecycle's statuses are package status's constants: the store declares
// none of its own, and outside the store and package status no status
// field is compared with a bare status string. (That package status is a
// leaf the store can import is TestPackagesDependOnlyDownward's, in
// internal/handlers.)
func TestStatusesAreWrittenOnceInPackageStatus(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	statuses := map[string][]string{} // value → the constants of package status holding it
	for _, f := range parseDir(t, filepath.Join(root, "internal/status"), false) {
		for name, value := range stringConsts(f) {
			if ast.IsExported(name) {
				statuses[value] = append(statuses[value], "status."+name)
			}
		}
	}
	require.NotEmpty(t, statuses)

	for _, f := range parseDir(t, filepath.Join(root, "internal/store"), false) {
		for name, value := range stringConsts(f) {
			if names, ok := statuses[value]; ok && ast.IsExported(name) {
				t.Errorf("store declares %s = %q: a status is package status's (%s)", name, value, strings.Join(names, ", "))
			}
		}
	}

	require.NoError(t, filepath.WalkDir(root, func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, dir)
		rel = filepath.ToSlash(rel)
		switch {
		case rel == ".":
		case rel == "infra", strings.HasPrefix(rel, "."), rel == "internal/status", rel == "internal/store", strings.HasPrefix(rel, "internal/store/"):
			return filepath.SkipDir
		}
		for name, f := range parseDir(t, dir, true) {
			for _, p := range comparisons(f) {
				sel, ok := p[0].(*ast.SelectorExpr)
				bl, isLit := p[1].(*ast.BasicLit)
				if !ok || !isLit || bl.Kind != token.STRING || !statusField(sel.Sel.Name) {
					continue
				}
				if value, _ := strconv.Unquote(bl.Value); len(statuses[value]) > 0 {
					t.Errorf("%s: %s compared with %s: use %s", path.Join(rel, name), sel.Sel.Name, bl.Value, strings.Join(statuses[value], " or "))
				}
			}
		}
		return nil
	}))
}

// comparisons lists the operand pairs f compares for equality (==, != and
// a switch's tag with each case), each pair both ways round.
func comparisons(f *ast.File) [][2]ast.Expr {
	var pairs [][2]ast.Expr
	ast.Inspect(f, func(n ast.Node) bool {
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
		return true
	})
	return pairs
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
