package store_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// listedPackage is what `go list -export -json` says of a package.
type listedPackage struct {
	ImportPath string
	Dir        string
	Export     string
	GoFiles    []string
	Standard   bool
}

// decision is a store document field read where a decision is made.
type decision struct {
	file, pos string
	doc       string // the store document type, e.g. store.Task
	field     string
}

func (d decision) String() string {
	return fmt.Sprintf("%s:%s: %s.%s", d.file, d.pos, d.doc, d.field)
}

// storeDecisions type-checks every non-test package of the module outside
// the store and returns, by package, every place a field of a store
// document (a struct type the store declares with bson tags) is read in a
// decision: an if, for or switch condition, a case, a comparison, or an
// operand of &&, || or !, calls inside them included. Ids (fields named
// …ID) are left out. A domain package's
// persist.go, the one place its State meets the store's document, is not
// scanned.
func storeDecisions(t *testing.T, root string) map[string][]decision {
	t.Helper()
	const module = "github.com/streamops/streamops"
	cmd := exec.Command("go", "list", "-export", "-deps", "-json=ImportPath,Dir,Export,GoFiles,Standard", "./...")
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go list -export")
	exports := map[string]string{}
	var mine []listedPackage
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else {
			require.NoError(t, err)
		}
		exports[p.ImportPath] = p.Export
		if !p.Standard && (p.ImportPath == module || strings.HasPrefix(p.ImportPath, module+"/")) {
			mine = append(mine, p)
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		if exports[path] == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(exports[path])
	})

	storePkg, err := imp.Import(module + "/internal/store")
	require.NoError(t, err)
	docFields := map[*types.Var]string{} // field → its document type
	for _, name := range storePkg.Scope().Names() {
		tn, ok := storePkg.Scope().Lookup(name).(*types.TypeName)
		if !ok || !tn.Exported() {
			continue
		}
		st, ok := tn.Type().Underlying().(*types.Struct)
		if !ok || !isDocument(st) {
			continue
		}
		for i := range st.NumFields() {
			if f := st.Field(i); f.Exported() && !f.Embedded() {
				docFields[f] = "store." + name
			}
		}
	}
	require.NotEmpty(t, docFields)

	found := map[string][]decision{}
	for _, p := range mine {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		if rel == "internal/store" || strings.HasPrefix(rel, "internal/store/") {
			continue
		}
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parseFile(fset, filepath.Join(p.Dir, name))
			require.NoError(t, err)
			files = append(files, f)
		}
		info := &types.Info{Selections: map[*ast.SelectorExpr]*types.Selection{}}
		conf := types.Config{Importer: imp, Error: func(error) {}}
		_, err := conf.Check(p.ImportPath, fset, files, info)
		require.NoError(t, err, p.ImportPath)
		seen := map[*ast.SelectorExpr]bool{} // a selector in nested decisions counts once
		for i, f := range files {
			if p.GoFiles[i] == "persist.go" {
				continue
			}
			for _, e := range decisionExprs(f) {
				ast.Inspect(e, func(n ast.Node) bool {
					if _, ok := n.(*ast.FuncLit); ok {
						return false
					}
					sel, ok := n.(*ast.SelectorExpr)
					if !ok {
						return true
					}
					s := info.Selections[sel]
					if s == nil || s.Kind() != types.FieldVal || seen[sel] {
						return true
					}
					seen[sel] = true
					// An id (a field named …ID) says which document it is,
					// not where it stands: it does not count.
					if v, ok := s.Obj().(*types.Var); ok && docFields[v] != "" && !strings.HasSuffix(v.Name(), "ID") {
						pos := fset.Position(sel.Sel.Pos())
						found[rel] = append(found[rel], decision{file: path.Join(rel, p.GoFiles[i]),
							pos: fmt.Sprint(pos.Line), doc: docFields[v], field: v.Name()})
					}
					return true
				})
			}
		}
	}
	return found
}

func parseFile(fset *token.FileSet, name string) (*ast.File, error) {
	return parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
}

// isDocument reports whether a struct is a stored document: a field of it
// carries a bson tag.
func isDocument(st *types.Struct) bool {
	for i := range st.NumFields() {
		if _, ok := reflect.StructTag(st.Tag(i)).Lookup("bson"); ok {
			return true
		}
	}
	return false
}

// decisionExprs returns the expressions of f a decision is made on.
func decisionExprs(f *ast.File) []ast.Expr {
	var out []ast.Expr
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IfStmt:
			out = append(out, n.Cond)
		case *ast.ForStmt:
			if n.Cond != nil {
				out = append(out, n.Cond)
			}
		case *ast.SwitchStmt:
			if n.Tag != nil {
				out = append(out, n.Tag)
			}
		case *ast.CaseClause:
			out = append(out, n.List...)
		case *ast.BinaryExpr:
			switch n.Op {
			case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ, token.LAND, token.LOR:
				out = append(out, n.X, n.Y)
			}
		case *ast.UnaryExpr:
			if n.Op == token.NOT {
				out = append(out, n.X)
			}
		}
		return true
	})
	return out
}

// TestNoDomainDecisionOnAStoreDocument guards the other half of the rule
// that the store persists the lifecycles and their domains decide them:
// outside the store, no package reads a store document's field in a
// decision. Each lifecycle is decided on its domain's own type (a workflow
// as workflow.State, a task as task.State, an outbox entry and a partner's
// circuit breaker as outbox.Entry and outbox.Breaker, a replay and a
// requeued dead letter as history's session and deadLetter), which its
// package maps from and to the document once, in persist.go; what only the
// store can answer (which events still wait for their publish, which
// failed partner events are the outbox's to send again) its queries and
// writes answer.
//
// A workflow's or task's fields that are not lifecycleFields (the
// idempotency hash, the input) and ids (fields named …ID) anywhere say
// which document it is, not where it stands, and do not count.
func TestNoDomainDecisionOnAStoreDocument(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	for _, ds := range storeDecisions(t, root) {
		for _, d := range ds {
			if fields, owned := lifecycleFields[d.doc]; owned && fields != nil && !slices.Contains(fields, d.field) {
				continue
			}
			t.Errorf("%s read in a decision: decide on the domain's own type (workflow.State, task.State, outbox.Entry, …), mapped from the document in its package's persist.go", d)
		}
	}
}

// lifecycleFields are, for the store documents whose lifecycle has a
// domain State, the fields that hold where it stands (nil: all of them).
// A decision may read the others of these documents; of any other
// document, no field.
var lifecycleFields = map[string][]string{
	"store.Workflow": {"Steps", "Status", "CurrentStepIndex", "StepAttempts", "AttemptStepIndex", "StepAttemptsStarted",
		"StepResults", "Error", "StartedAt", "CompletedAt"},
	"store.WorkflowCheckpoint": {"ResumeRecords"},
	"store.StepProgress":       nil,
	"store.Task":               {"Status", "RetryCount", "MaxRetries", "NextRetryAt", "LastError", "Result", "CompletedAt"},
	"store.TaskOutcome":        {"Attempt"},
}
