package pii_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/streamops/streamops/internal/pii"
)

// FuzzScrub checks Scrub's properties on any input: it never panics, it
// refuses exactly what json.Valid refuses, what it returns is valid JSON,
// scrubbing that again changes nothing (idempotent), and no string of it,
// keys included, still holds a pattern match.
func FuzzScrub(f *testing.F) {
	for _, seed := range []string{issueWebhook, `{"a":"+1 415 555 0100","jane@x.io":["4242 4242 4242 4242"]}`,
		`"DE89 3704 0044 0532 0130 00"`, `{"k\u0040":"a\u0040b.co\n","x":[1,2.5e3,null,true]}`, `[]`, `{`,
		`{"n":1E1000,"m":-1e-1000}`} {
		f.Add([]byte(seed))
	}
	files, _ := filepath.Glob("../../testdata/webhooks/*.json")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := pii.Scrub(in)
		if !json.Valid(in) {
			if err == nil {
				t.Fatalf("Scrub accepted invalid JSON %q", in)
			}
			return
		}
		if err != nil {
			t.Fatalf("Scrub refused valid JSON %q: %v", in, err)
		}
		if !json.Valid(out) {
			t.Fatalf("Scrub(%q) = %q, not JSON", in, out)
		}
		again, err := pii.Scrub(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("not idempotent: %q → %q → %q (%v)", in, out, again, err)
		}
		// UseNumber: a valid number beyond float64 (1E1000) is kept as
		// sent, so decoding it as a float would fail on valid output.
		dec := json.NewDecoder(bytes.NewReader(out))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		if s := firstMatch(v); s != "" {
			t.Fatalf("Scrub(%q) left %q", in, s)
		}
	})
}

// firstMatch returns the first string of v, keys included, that holds a
// pattern match, or "".
func firstMatch(v any) string {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			if s := firstMatch(k); s != "" {
				return s
			}
			if s := firstMatch(c); s != "" {
				return s
			}
		}
	case []any:
		for _, c := range x {
			if s := firstMatch(c); s != "" {
				return s
			}
		}
	case string:
		if _, changed := pii.ScrubText(x); changed {
			return x
		}
	}
	return ""
}

// FuzzScrubText checks that scrubbing text is idempotent and leaves no
// match: every replacement is final.
func FuzzScrubText(f *testing.F) {
	for _, tc := range patternCases {
		f.Add(tc.in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, _ := pii.ScrubText(in)
		if again, changed := pii.ScrubText(out); changed {
			t.Fatalf("not idempotent: %q → %q → %q", in, out, again)
		}
	})
}
