// Package seedtest reads the seed documents' examples kept verbatim under
// testdata/seeds, for the clause tests (docs/conformance.md) of the
// packages that own each mechanism.
//
// The files are the seeds' text as written, comments and placeholders
// included; nothing is corrected there. What a test reads instead is
// derived here, by rules a reader can check against the file:
//
//   - JSON (a .json or .jsonc file): // line comments and /* */ block
//     comments outside strings are removed; the placeholders [...] and
//     {...} become [] and {}; a trailing comma before } or ] is dropped;
//     a fragment that starts with a quoted key ("entity_data": {...}) is
//     wrapped in braces. The result must be valid JSON.
//   - JSObject (a JavaScript object literal, .js): JSON's rules, plus bare
//     keys are quoted and JSON.stringify(x) is read as x (the object before
//     it is serialised).
//   - Types (a .js block that gives each key a type, "eventType: string,
//     // comment"): each key and its type text as written, nested keys
//     joined with dots.
//
// It is a leaf (testify and the standard library only) so that the tests
// of any package, internal ones included, can import it.
package seedtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Dir is the absolute path of testdata/seeds.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "seeds")
}

// Read returns the file name of testdata/seeds as written.
func Read(tb testing.TB, name string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(Dir(), name))
	require.NoError(tb, err)
	return b
}

// JSON returns the file name read as JSON by the package's rules.
func JSON(tb testing.TB, name string) []byte {
	tb.Helper()
	out := toJSON(string(Read(tb, name)), false)
	require.True(tb, json.Valid([]byte(out)), "%s read as JSON is not JSON:\n%s", name, out)
	return []byte(out)
}

// JSObject decodes the JavaScript object literal in file name by the
// package's rules.
func JSObject(tb testing.TB, name string) map[string]any {
	tb.Helper()
	out := toJSON(string(Read(tb, name)), true)
	var m map[string]any
	require.NoError(tb, json.Unmarshal([]byte(out), &m), "%s read as JSON:\n%s", name, out)
	return m
}

// Unmarshal decodes JSON(name) into v.
func Unmarshal(tb testing.TB, name string, v any) {
	tb.Helper()
	require.NoError(tb, json.Unmarshal(JSON(tb, name), v))
}

var (
	placeholders  = strings.NewReplacer("[...]", "[]", "{...}", "{}")
	trailingComma = regexp.MustCompile(`,(\s*[}\]])`)
	bareKey       = regexp.MustCompile(`([{,]\s*)([A-Za-z_$][\w$]*)\s*:`)
	stringify     = regexp.MustCompile(`JSON\.stringify\(`)
)

// toJSON applies the package's rules to a seed's text; js adds the
// JavaScript ones.
func toJSON(s string, js bool) string {
	s = stripComments(s)
	s = placeholders.Replace(s)
	if js {
		s = unwrapStringify(s)
		s = bareKey.ReplaceAllString(s, `$1"$2":`)
	}
	s = trailingComma.ReplaceAllString(s, "$1")
	if t := strings.TrimSpace(s); strings.HasPrefix(t, `"`) {
		s = "{" + s + "}"
	}
	return s
}

// stripComments removes // and /* */ comments outside double-quoted
// strings.
func stripComments(s string) string {
	var b strings.Builder
	inString := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inString:
			b.WriteByte(c)
			if c == '\\' && i+1 < len(s) {
				i++
				b.WriteByte(s[i])
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
			b.WriteByte(c)
		case strings.HasPrefix(s[i:], "//"):
			for i < len(s) && s[i] != '\n' {
				i++
			}
			if i < len(s) {
				b.WriteByte('\n')
			}
		case strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return b.String()
			}
			i += 2 + end + 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// unwrapStringify replaces each JSON.stringify(x) by x.
func unwrapStringify(s string) string {
	for {
		loc := stringify.FindStringIndex(s)
		if loc == nil {
			return s
		}
		depth, end := 1, -1
		for i := loc[1]; i < len(s) && end < 0; i++ {
			switch s[i] {
			case '(':
				depth++
			case ')':
				if depth--; depth == 0 {
					end = i
				}
			}
		}
		if end < 0 {
			return s
		}
		s = s[:loc[0]] + s[loc[1]:end] + s[end+1:]
	}
}

var typeLine = regexp.MustCompile(`^\s*"?([\w$-]+)"?\s*:\s*(.*?)\s*,?\s*(//.*)?$`)

// Types returns each key of the type-describing block in file name with
// its type text as written (the comment and the trailing comma left out);
// a key whose value is an object block is not listed itself, its keys are,
// as "outer.inner".
func Types(tb testing.TB, name string) map[string]string {
	tb.Helper()
	out := map[string]string{}
	var path []string
	for _, line := range strings.Split(string(Read(tb, name)), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "}") {
			if len(path) > 0 {
				path = path[:len(path)-1]
			}
			continue
		}
		m := typeLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		typ := strings.TrimSuffix(strings.TrimSpace(m[2]), ",")
		if strings.HasSuffix(typ, "{") {
			path = append(path, m[1])
			continue
		}
		out[strings.Join(append(path[:len(path):len(path)], m[1]), ".")] = typ
	}
	return out
}

// PublishTestEvent reads seed 003's "Publish Test Event" command: the topic
// it produces to and the line it echoes, split as kafka-console-producer
// with parse.key=true and key.separator=| splits it, at its first |: the
// key before it, the value after.
func PublishTestEvent(tb testing.TB) (topic string, key, value []byte) {
	tb.Helper()
	cmd := string(Read(tb, "003_testing.publish_test_event.sh"))
	echo := regexp.MustCompile(`echo '([^']*)'`).FindStringSubmatch(cmd)
	require.NotNil(tb, echo, "the echoed line")
	require.Contains(tb, cmd, `--property "parse.key=true"`)
	require.Contains(tb, cmd, `--property "key.separator=|"`)
	k, v, ok := strings.Cut(echo[1], "|")
	require.True(tb, ok)
	return regexp.MustCompile(`--topic (\S+)`).FindStringSubmatch(cmd)[1], []byte(k), []byte(v)
}
