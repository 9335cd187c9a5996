package conformance

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Citation is one test a table cell of the document names.
type Citation struct {
	// Doc is the document, relative to the repository root.
	Doc string
	// Line is the document's line of the row.
	Line int
	// Row names the row in a failure message: its section and first cell.
	Row string
	// Package is the directory, relative to the repository root, that the
	// cell named before the test (`internal/store`, `events`, `infra`).
	Package string
	// Test is the cited name as written: TestX, TestX/Sub, a trailing …
	// for a unique prefix of an element.
	Test string
}

var (
	codeSpan = regexp.MustCompile("`([^`]+)`")
	testName = regexp.MustCompile(`^Test[A-Z0-9_]`)
	pkgPath  = regexp.MustCompile(`^[a-z][a-z0-9_]*(/[a-z0-9_]+)*$`)
)

// ReadCitations reads every test cited in the tables of the markdown file
// at path, resolving each one's package from the code spans before it in
// the same cell: a span that is a directory of root holding Go files.
// A test cited before any package is an error naming the row.
func ReadCitations(root, path string) ([]Citation, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	doc := path
	if rel, err := filepath.Rel(root, path); err == nil {
		doc = filepath.ToSlash(rel)
	}
	var (
		out     []Citation
		errs    []string
		section string
		sc      = bufio.NewScanner(f)
		n       int
	)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			section = strings.TrimSpace(strings.TrimLeft(line, "#"))
			continue
		}
		if !strings.HasPrefix(line, "|") || strings.HasPrefix(line, "|---") {
			continue
		}
		cells := splitRow(line)
		if len(cells) == 0 {
			continue
		}
		row := fmt.Sprintf("%s, row %q", section, shorten(cells[0]))
		for _, cell := range cells {
			pkg := ""
			for _, m := range codeSpan.FindAllStringSubmatch(cell, -1) {
				span := strings.ReplaceAll(m[1], `\|`, "|")
				switch {
				case testName.MatchString(span):
					if pkg == "" {
						errs = append(errs, fmt.Sprintf("%s:%d (%s): `%s` has no package before it in its cell: write the package's directory first, e.g. `internal/store` `%s`", doc, n, row, span, span))
						continue
					}
					out = append(out, Citation{Doc: doc, Line: n, Row: row, Package: pkg, Test: span})
				case pkgPath.MatchString(span) && hasGoFiles(filepath.Join(root, span)):
					pkg = span
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(errs) > 0 {
		return out, errors.New(strings.Join(errs, "\n"))
	}
	return out, nil
}

// splitRow splits a markdown table row on its unescaped pipes.
func splitRow(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	line = strings.TrimSuffix(line, "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			cur.WriteString(`\|`)
			i++
		case line[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(line[i])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

func shorten(s string) string {
	if r := []rune(s); len(r) > 70 {
		return string(r[:69]) + "…"
	}
	return s
}

func hasGoFiles(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".go") {
			return true
		}
	}
	return false
}
