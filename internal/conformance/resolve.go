package conformance

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Index resolves cited tests in the source of a repository.
type Index struct {
	root    string
	runs    []GoTest
	env     map[string]bool   // the environment make test and make test-mongo give tests
	modules map[string]string // module path → its directory relative to root
	fset    *token.FileSet
	pkgs    map[string]*pkgSrc // by directory relative to root
}

// pkgSrc is one directory's Go files as make test builds them.
type pkgSrc struct {
	dir, modDir, importPath string
	runs                    []*GoTest // the make test commands that run it
	imports                 map[string]string
	funcs                   map[string]*ast.FuncDecl
	vars                    map[string]ast.Expr
	structs                 map[string]*ast.StructType
	excluded                map[string]string // a Test func in a file the build leaves out → the file
}

// NewIndex indexes the repository at root for the go test commands runs,
// whose tests see the environment variables env (MakeEnv).
func NewIndex(root string, runs []GoTest, env map[string]bool) (*Index, error) {
	ix := &Index{root: root, runs: runs, env: env, modules: map[string]string{}, fset: token.NewFileSet(), pkgs: map[string]*pkgSrc{}}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && p != root) {
			return filepath.SkipDir
		}
		if d.Name() == "go.mod" {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if m := regexp.MustCompile(`(?m)^module\s+(\S+)`).FindSubmatch(b); m != nil {
				rel, _ := filepath.Rel(root, filepath.Dir(p))
				ix.modules[string(m[1])] = filepath.ToSlash(rel)
			}
		}
		return nil
	})
	return ix, err
}

func (ix *Index) modOf(dir string) (modDir, importPath string) {
	best := ""
	bestPath := ""
	found := false
	for path, md := range ix.modules {
		if md == "." {
			md = ""
		}
		if (md == "" || dir == md || strings.HasPrefix(dir, md+"/")) && (!found || len(md) > len(best)) {
			best, bestPath, found = md, path, true
		}
	}
	rest := strings.TrimPrefix(strings.TrimPrefix(dir, best), "/")
	if rest == "" {
		return best, bestPath
	}
	return best, bestPath + "/" + rest
}

func (ix *Index) dirOf(importPath string) (string, bool) {
	best, bestDir := "", ""
	for path, md := range ix.modules {
		if (importPath == path || strings.HasPrefix(importPath, path+"/")) && len(path) > len(best) {
			best, bestDir = path, md
		}
	}
	if best == "" {
		return "", false
	}
	rest := strings.TrimPrefix(strings.TrimPrefix(importPath, best), "/")
	if bestDir == "." {
		bestDir = ""
	}
	return strings.TrimPrefix(filepath.ToSlash(filepath.Join(bestDir, rest)), "./"), true
}

// load parses dir's Go files, test files included, keeping those the
// make test command that covers dir builds (its tags, linux/amd64).
func (ix *Index) load(dir string) (*pkgSrc, error) {
	if p, ok := ix.pkgs[dir]; ok {
		return p, nil
	}
	p := &pkgSrc{dir: dir, imports: map[string]string{}, funcs: map[string]*ast.FuncDecl{}, vars: map[string]ast.Expr{},
		structs: map[string]*ast.StructType{}, excluded: map[string]string{}}
	p.modDir, p.importPath = ix.modOf(dir)
	for i := range ix.runs {
		if ix.runs[i].Covers(dir, p.modDir) {
			p.runs = append(p.runs, &ix.runs[i])
		}
	}
	abs := filepath.Join(ix.root, dir)
	ents, err := os.ReadDir(abs)
	if err != nil {
		return nil, err
	}
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		f, err := parser.ParseFile(ix.fset, filepath.Join(abs, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		ok, err := builtByAny(p.runs, abs, e.Name())
		if err != nil {
			return nil, err
		}
		if !ok {
			for _, d := range f.Decls {
				if fd, isFn := d.(*ast.FuncDecl); isFn && fd.Recv == nil {
					p.excluded[fd.Name.Name] = e.Name()
				}
			}
			continue
		}
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			name := filepath.Base(path)
			if im.Name != nil {
				name = im.Name.Name
			}
			p.imports[name] = path
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					p.funcs[d.Name.Name] = d
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.ValueSpec:
						for i, n := range s.Names {
							if i < len(s.Values) {
								p.vars[n.Name] = s.Values[i]
							}
						}
					case *ast.TypeSpec:
						if st, ok := s.Type.(*ast.StructType); ok {
							p.structs[s.Name.Name] = st
						}
					}
				}
			}
		}
	}
	ix.pkgs[dir] = p
	return p, nil
}

// builtByAny reports whether any of runs builds the file (its tags,
// linux/amd64).
func builtByAny(runs []*GoTest, dir, name string) (bool, error) {
	for _, r := range runs {
		bctx := build.Default
		bctx.GOOS, bctx.GOARCH, bctx.CgoEnabled = "linux", "amd64", true
		bctx.BuildTags = r.Tags
		if ok, err := bctx.MatchFile(dir, name); ok || err != nil {
			return ok, err
		}
	}
	return false, nil
}

// Check resolves c and returns what is wrong with it, "" when the test
// exists and runs in make test.
func (ix *Index) Check(c Citation) string {
	where := fmt.Sprintf("%s:%d (%s): `%s` `%s`", c.Doc, c.Line, c.Row, c.Package, c.Test)
	p, err := ix.load(c.Package)
	if err != nil {
		return fmt.Sprintf("%s: cannot read the package: %v", where, err)
	}
	if len(p.runs) == 0 {
		return fmt.Sprintf("%s: no go test of make test covers %s: cite a test in a package it runs", where, c.Package)
	}
	path := strings.Split(c.Test, "/")
	top, err := matchOne(path[0], testFuncs(p))
	if err != nil {
		if f, ok := p.excluded[strings.TrimSuffix(path[0], "…")]; ok {
			return fmt.Sprintf("%s: %s is in %s, which no go test of make test builds (%s): drop its build constraint or cite a test that runs", where, path[0], f, describe(p.runs))
		}
		return fmt.Sprintf("%s: %v among the tests of %s: correct the name or the row", where, err, c.Package)
	}
	if skipped := skippedBy(p.runs, top); skipped != "" {
		return fmt.Sprintf("%s: %s is skipped by %s", where, top, skipped)
	}
	fd := p.funcs[top]
	if pos, why := ix.skips(fd.Body); why != "" {
		return fmt.Sprintf("%s: %s %s (%s): it runs in neither make test nor make test-mongo; make it run or cite another test", where, top, why, ix.fset.Position(pos))
	}
	level := []subtest{{name: top, body: fd.Body, pkg: p, env: env{}}}
	for i := 1; i < len(path); i++ {
		var subs []subtest
		var dynamic []string
		for _, l := range level {
			s, d := ix.subtests(l.pkg, l.body, l.env)
			subs, dynamic = append(subs, s...), append(dynamic, d...)
		}
		names := make([]string, len(subs))
		for j, s := range subs {
			names[j] = s.name
		}
		name, err := matchOne(path[i], names)
		if err != nil {
			msg := fmt.Sprintf("%s: %v among the subtests of %s", where, err, strings.Join(path[:i], "/"))
			if len(dynamic) > 0 {
				msg += fmt.Sprintf("; its subtests named at run time (%s) cannot be checked: name them from literals or a table, or cite %s", strings.Join(dynamic, ", "), strings.Join(path[:i], "/"))
			}
			return msg
		}
		var next []subtest
		for _, s := range subs {
			if s.name == name {
				next = append(next, s)
			}
		}
		if pos, why := ix.skips(next[0].body); why != "" {
			return fmt.Sprintf("%s: %s %s (%s)", where, strings.Join(path[:i+1], "/"), why, ix.fset.Position(pos))
		}
		level = next
	}
	return ""
}

// skippedBy names the -skip that leaves top out of every run, "" if one
// runs it.
func skippedBy(runs []*GoTest, top string) string {
	var by []string
	for _, r := range runs {
		re, err := regexp.Compile(r.Skip)
		if r.Skip == "" || err != nil || !re.MatchString(top) {
			return ""
		}
		by = append(by, fmt.Sprintf("make %s (-skip %s)", r.Target, r.Skip))
	}
	return strings.Join(by, ", ")
}

func describe(runs []*GoTest) string {
	var out []string
	for _, r := range runs {
		out = append(out, fmt.Sprintf("make %s with tags %v", r.Target, r.Tags))
	}
	return strings.Join(out, "; ")
}

func testFuncs(p *pkgSrc) []string {
	var out []string
	for name, fd := range p.funcs {
		if strings.HasPrefix(name, "Test") && isTestFunc(fd) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// isTestFunc: func TestX(t *testing.T), as go test finds them.
func isTestFunc(fd *ast.FuncDecl) bool {
	if fd.Type.TypeParams != nil || len(fd.Type.Params.List) != 1 || len(fd.Type.Params.List[0].Names) > 1 || fd.Type.Results != nil {
		return false
	}
	star, ok := fd.Type.Params.List[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	sel, ok := star.X.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "T" {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	rest := strings.TrimPrefix(fd.Name.Name, "Test")
	return ok && x.Name == "testing" && (rest == "" || !unicode.IsLower([]rune(rest)[0]))
}

// matchOne finds want in names: exactly, or as the unique name it is a
// prefix of when it ends in "…".
func matchOne(want string, names []string) (string, error) {
	if prefix, ok := strings.CutSuffix(want, "…"); ok {
		var hits []string
		for _, n := range names {
			if strings.HasPrefix(n, prefix) {
				hits = append(hits, n)
			}
		}
		switch len(hits) {
		case 1:
			return hits[0], nil
		case 0:
			return "", fmt.Errorf("no name starts with %q%s", prefix, nearest(prefix, names))
		default:
			return "", fmt.Errorf("%q is a prefix of %d names (%s): write enough of it to name one", prefix, len(hits), strings.Join(hits, ", "))
		}
	}
	if slices.Contains(names, want) {
		return want, nil
	}
	return "", fmt.Errorf("no %s%s", want, nearest(want, names))
}

// nearest names the candidate sharing the longest prefix with want.
func nearest(want string, names []string) string {
	best, bestLen := "", 0
	for _, n := range names {
		l := 0
		for l < len(n) && l < len(want) && n[l] == want[l] {
			l++
		}
		if l > bestLen {
			best, bestLen = n, l
		}
	}
	if bestLen < 6 {
		return ""
	}
	return fmt.Sprintf(" (nearest: %s)", best)
}

// skips says why a body never runs past its start: a t.Skip* among its
// top-level statements before any t.Run, or an if that skips unless an
// environment variable is set that neither make test nor make test-mongo
// sets (KAFKA_BROKERS). "" when it runs.
func (ix *Index) skips(body *ast.BlockStmt) (token.Pos, string) {
	if body == nil {
		return 0, ""
	}
	var envRead []string
	for _, st := range body.List {
		if pos, ok := skipCall(st); ok {
			return pos, "skips unconditionally"
		}
		if isRunCall(st) {
			return 0, ""
		}
		envRead = append(envRead, envNames(st)...)
		if ifs, ok := st.(*ast.IfStmt); ok && len(ifs.Body.List) > 0 {
			if pos, ok := skipCall(ifs.Body.List[0]); ok {
				for _, name := range envRead {
					if !ix.env[name] {
						return pos, fmt.Sprintf("skips unless %s is set, which neither make test nor make test-mongo sets", name)
					}
				}
			}
		}
	}
	return 0, ""
}

func skipCall(st ast.Stmt) (token.Pos, bool) {
	es, ok := st.(*ast.ExprStmt)
	if !ok {
		return 0, false
	}
	call, ok := es.X.(*ast.CallExpr)
	if !ok {
		return 0, false
	}
	if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
		switch sel.Sel.Name {
		case "Skip", "Skipf", "SkipNow":
			return call.Pos(), true
		}
	}
	return 0, false
}

func isRunCall(st ast.Stmt) bool {
	es, ok := st.(*ast.ExprStmt)
	if !ok {
		return false
	}
	call, ok := es.X.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Run"
}

// envNames are the variables n reads with os.Getenv or os.LookupEnv.
func envNames(n ast.Node) []string {
	var out []string
	ast.Inspect(n, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 1 {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || (sel.Sel.Name != "Getenv" && sel.Sel.Name != "LookupEnv") {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "os" {
			return true
		}
		if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if name, err := strconv.Unquote(lit.Value); err == nil {
				out = append(out, name)
			}
		}
		return true
	})
	return out
}
