package conformance

import (
	"fmt"
	"go/ast"
	"go/token"
	"strconv"
	"strings"
	"unicode"
)

// subtest is one t.Run found in a test's body: its name as go test
// reports it, and the body it runs with the bindings it sees.
type subtest struct {
	name string
	body *ast.BlockStmt
	pkg  *pkgSrc
	env  env
}

// env binds names to what they stand for while a body is walked: a
// constant (string, int64, bool), an element of a table (elem), an
// expression of a package evaluated where it is needed (lazy) or a
// function (fn).
type env map[string]any

type (
	elem struct {
		lit *ast.CompositeLit
		typ ast.Expr // the element type, for a positional literal's field names
		pkg *pkgSrc
	}
	lazy struct {
		expr ast.Expr
		pkg  *pkgSrc
	}
	fn struct {
		body *ast.BlockStmt
		pkg  *pkgSrc
	}
)

func (e env) with(kv ...any) env {
	out := make(env, len(e)+len(kv)/2)
	for k, v := range e {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if name, ok := kv[i].(string); ok && name != "" && name != "_" {
			out[name] = kv[i+1]
		}
	}
	return out
}

// maxDepth bounds how deep calls are followed from a test to its t.Run.
const maxDepth = 8

// subtests returns the subtests body registers directly or through the
// module's functions it calls, and the positions of the t.Run calls whose
// names could not be evaluated.
func (ix *Index) subtests(p *pkgSrc, body *ast.BlockStmt, e env) ([]subtest, []string) {
	w := &walker{ix: ix, stack: map[*ast.BlockStmt]bool{}}
	w.block(p, body, e, 0)
	return w.subs, w.dynamic
}

type walker struct {
	ix      *Index
	subs    []subtest
	dynamic []string
	stack   map[*ast.BlockStmt]bool
}

func (w *walker) block(p *pkgSrc, body *ast.BlockStmt, e env, depth int) {
	if body == nil || depth > maxDepth || w.stack[body] {
		return
	}
	w.stack[body] = true
	defer delete(w.stack, body)
	w.node(p, body, e, depth)
}

// node walks n in source order: assignments bind names for what follows,
// a range over a table walks its body once per element, a t.Run is a
// subtest, and a call into the module is followed.
func (w *walker) node(p *pkgSrc, n ast.Node, e env, depth int) {
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if len(n.Lhs) == len(n.Rhs) {
				for i, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						e[id.Name] = lazy{n.Rhs[i], p}
						if fl, ok := n.Rhs[i].(*ast.FuncLit); ok {
							e[id.Name] = fn{fl.Body, p}
						}
					}
				}
			}
		case *ast.ValueSpec:
			for i, id := range n.Names {
				if i < len(n.Values) {
					e[id.Name] = lazy{n.Values[i], p}
				}
			}
		case *ast.RangeStmt:
			w.rangeStmt(p, n, e, depth)
			return false
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Run" && len(n.Args) == 2 && !isPackage(p, sel.X, e) {
				w.run(p, n, e)
				return false
			}
			if b, bp := w.callee(p, n.Fun, e); b != nil {
				w.block(bp, b, env{}, depth+1)
			}
		}
		return true
	})
}

func (w *walker) rangeStmt(p *pkgSrc, r *ast.RangeStmt, e env, depth int) {
	key, _ := r.Key.(*ast.Ident)
	val, _ := r.Value.(*ast.Ident)
	name := func(id *ast.Ident) string {
		if id == nil {
			return ""
		}
		return id.Name
	}
	lit, lp, ok := w.ix.literal(p, r.X, e)
	if !ok {
		// Unknown elements: names from them stay unresolved.
		inner := e.with()
		delete(inner, name(key))
		delete(inner, name(val))
		w.node(p, r.Body, inner, depth)
		return
	}
	var elt ast.Expr
	isMap := false
	switch t := lit.Type.(type) {
	case *ast.ArrayType:
		elt = t.Elt
	case *ast.MapType:
		elt, isMap = t.Value, true
	}
	for i, x := range lit.Elts {
		var k, v any = int64(i), w.ix.element(lp, x, elt)
		if kv, ok := x.(*ast.KeyValueExpr); ok && isMap {
			k, v = lazy{kv.Key, lp}, w.ix.element(lp, kv.Value, elt)
		}
		w.node(p, r.Body, e.with(name(key), k, name(val), v), depth)
	}
}

// element is a table row: a composite literal (its type elided or not, &
// taken or not) or any other expression, evaluated when used.
func (ix *Index) element(p *pkgSrc, x ast.Expr, elt ast.Expr) any {
	if u, ok := x.(*ast.UnaryExpr); ok && u.Op == token.AND {
		x = u.X
	}
	if s, ok := elt.(*ast.StarExpr); ok {
		elt = s.X
	}
	if cl, ok := x.(*ast.CompositeLit); ok {
		if cl.Type != nil {
			elt = cl.Type
		}
		return elem{cl, elt, p}
	}
	return lazy{x, p}
}

// literal finds the composite literal x stands for.
func (ix *Index) literal(p *pkgSrc, x ast.Expr, e env) (*ast.CompositeLit, *pkgSrc, bool) {
	for range maxDepth {
		switch v := x.(type) {
		case *ast.CompositeLit:
			return v, p, true
		case *ast.ParenExpr:
			x = v.X
		case *ast.Ident:
			if b, ok := e[v.Name]; ok {
				l, ok := b.(lazy)
				if !ok {
					return nil, nil, false
				}
				x, p, e = l.expr, l.pkg, env{}
				continue
			}
			if pv, ok := p.vars[v.Name]; ok {
				x, e = pv, env{}
				continue
			}
			return nil, nil, false
		case *ast.SelectorExpr:
			got, ok := ix.eval(p, v, e)
			if !ok {
				return nil, nil, false
			}
			switch g := got.(type) {
			case elem:
				return g.lit, g.pkg, true
			case lazy:
				x, p, e = g.expr, g.pkg, env{}
			default:
				return nil, nil, false
			}
		default:
			return nil, nil, false
		}
	}
	return nil, nil, false
}

// run records a t.Run: its name evaluated and rewritten as go test does,
// its body the function literal or function it is given.
func (w *walker) run(p *pkgSrc, call *ast.CallExpr, e env) {
	v, ok := w.ix.eval(p, call.Args[0], e)
	name, isStr := v.(string)
	if !ok || !isStr {
		w.dynamic = append(w.dynamic, w.ix.fset.Position(call.Pos()).String())
		return
	}
	s := subtest{name: rewrite(name), pkg: p, env: e.with()}
	switch f := call.Args[1].(type) {
	case *ast.FuncLit:
		s.body = f.Body
	default:
		s.body, s.pkg = w.callee(p, f, e)
		s.env = env{}
	}
	w.subs = append(w.subs, s)
}

// callee finds the body of the function f names, if it is in the module.
func (w *walker) callee(p *pkgSrc, f ast.Expr, e env) (*ast.BlockStmt, *pkgSrc) {
	switch f := f.(type) {
	case *ast.FuncLit:
		return f.Body, p
	case *ast.Ident:
		if b, ok := e[f.Name]; ok {
			switch b := b.(type) {
			case fn:
				return b.body, b.pkg
			case lazy:
				return w.callee(b.pkg, b.expr, env{})
			}
			return nil, nil
		}
		if fd, ok := p.funcs[f.Name]; ok {
			return fd.Body, p
		}
	case *ast.SelectorExpr:
		if x, ok := f.X.(*ast.Ident); ok {
			if _, bound := e[x.Name]; !bound {
				if path, ok := p.imports[x.Name]; ok {
					dir, ok := w.ix.dirOf(path)
					if !ok {
						return nil, nil
					}
					q, err := w.ix.load(dir)
					if err != nil {
						return nil, nil
					}
					if fd, ok := q.funcs[f.Sel.Name]; ok {
						return fd.Body, q
					}
					return nil, nil
				}
			}
		}
		if v, ok := w.ix.eval(p, f, e); ok {
			if l, ok := v.(lazy); ok {
				return w.callee(l.pkg, l.expr, env{})
			}
		}
	}
	return nil, nil
}

// eval evaluates x to a constant (string, int64, bool), a table row
// (elem) or an unevaluated expression of a package (lazy, for a field
// holding a function).
func (ix *Index) eval(p *pkgSrc, x ast.Expr, e env) (any, bool) {
	switch x := x.(type) {
	case *ast.BasicLit:
		switch x.Kind {
		case token.STRING:
			s, err := strconv.Unquote(x.Value)
			return s, err == nil
		case token.INT:
			n, err := strconv.ParseInt(x.Value, 0, 64)
			return n, err == nil
		}
	case *ast.ParenExpr:
		return ix.eval(p, x.X, e)
	case *ast.Ident:
		switch x.Name {
		case "true":
			return true, true
		case "false":
			return false, true
		}
		if b, ok := e[x.Name]; ok {
			return ix.value(b)
		}
		if v, ok := p.vars[x.Name]; ok {
			return ix.eval(p, v, env{})
		}
		if _, ok := p.funcs[x.Name]; ok {
			return lazy{x, p}, true
		}
	case *ast.SelectorExpr:
		if id, ok := x.X.(*ast.Ident); ok {
			if _, bound := e[id.Name]; !bound {
				if path, ok := p.imports[id.Name]; ok {
					dir, ok := ix.dirOf(path)
					if !ok {
						return nil, false
					}
					q, err := ix.load(dir)
					if err != nil {
						return nil, false
					}
					return ix.eval(q, ast.NewIdent(x.Sel.Name), env{})
				}
			}
		}
		v, ok := ix.eval(p, x.X, e)
		if !ok {
			return nil, false
		}
		row, ok := v.(elem)
		if !ok {
			return nil, false
		}
		fx, ok := ix.field(row, x.Sel.Name)
		if !ok {
			return nil, false
		}
		if fl, ok := fx.(*ast.FuncLit); ok {
			return lazy{fl, row.pkg}, true
		}
		if id, ok := fx.(*ast.Ident); ok {
			if _, isFn := row.pkg.funcs[id.Name]; isFn {
				return lazy{id, row.pkg}, true
			}
		}
		return ix.eval(row.pkg, fx, env{})
	case *ast.BinaryExpr:
		if x.Op != token.ADD {
			return nil, false
		}
		a, ok1 := ix.eval(p, x.X, e)
		b, ok2 := ix.eval(p, x.Y, e)
		as, aok := a.(string)
		bs, bok := b.(string)
		if ok1 && ok2 && aok && bok {
			return as + bs, true
		}
		an, aok := a.(int64)
		bn, bok := b.(int64)
		if ok1 && ok2 && aok && bok {
			return an + bn, true
		}
	case *ast.CallExpr:
		return ix.evalCall(p, x, e)
	case *ast.CompositeLit:
		return elem{x, x.Type, p}, true
	}
	return nil, false
}

func (ix *Index) value(b any) (any, bool) {
	switch b := b.(type) {
	case nil:
		return nil, false
	case lazy:
		return ix.eval(b.pkg, b.expr, env{})
	case fn:
		return nil, false
	}
	return b, true
}

// evalCall evaluates the formatting calls subtest names are built with.
func (ix *Index) evalCall(p *pkgSrc, x *ast.CallExpr, e env) (any, bool) {
	sel, ok := x.Fun.(*ast.SelectorExpr)
	if !ok {
		return nil, false
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok {
		return nil, false
	}
	if path := p.imports[pkg.Name]; path != "fmt" && path != "strconv" {
		return nil, false
	}
	args := make([]any, len(x.Args))
	for i, a := range x.Args {
		v, ok := ix.eval(p, a, e)
		if !ok {
			return nil, false
		}
		switch v.(type) {
		case string, int64, bool:
		default:
			return nil, false
		}
		args[i] = v
	}
	switch p.imports[pkg.Name] + "." + sel.Sel.Name {
	case "fmt.Sprint":
		return fmt.Sprint(args...), true
	case "fmt.Sprintf":
		if f, ok := args[0].(string); ok {
			return fmt.Sprintf(f, args[1:]...), true
		}
	case "strconv.Itoa":
		if n, ok := args[0].(int64); ok && len(args) == 1 {
			return strconv.FormatInt(n, 10), true
		}
	}
	return nil, false
}

// field finds a table row's field: by key, or by position in its struct
// type (inline or declared in the row's package).
func (ix *Index) field(row elem, name string) (ast.Expr, bool) {
	var positional []ast.Expr
	for _, x := range row.lit.Elts {
		if kv, ok := x.(*ast.KeyValueExpr); ok {
			if id, ok := kv.Key.(*ast.Ident); ok && id.Name == name {
				return kv.Value, true
			}
			continue
		}
		positional = append(positional, x)
	}
	if len(positional) == 0 {
		return nil, false
	}
	var st *ast.StructType
	switch t := row.typ.(type) {
	case *ast.StructType:
		st = t
	case *ast.Ident:
		st = row.pkg.structs[t.Name]
	}
	if st == nil {
		return nil, false
	}
	i := 0
	for _, f := range st.Fields.List {
		names := f.Names
		if len(names) == 0 {
			names = []*ast.Ident{ast.NewIdent("")}
		}
		for _, n := range names {
			if n.Name == name && i < len(positional) {
				return positional[i], true
			}
			i++
		}
	}
	return nil, false
}

// isPackage reports whether x names an imported package (storetest.Run is
// a function, t.Run a subtest).
func isPackage(p *pkgSrc, x ast.Expr, e env) bool {
	id, ok := x.(*ast.Ident)
	if !ok {
		return false
	}
	_, bound := e[id.Name]
	_, imported := p.imports[id.Name]
	return imported && !bound
}

// rewrite names a subtest as the testing package does: spaces become
// underscores, unprintable runes their quoted form.
func rewrite(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			b.WriteByte('_')
		case !strconv.IsPrint(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
