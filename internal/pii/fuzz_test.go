package pii_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamops/streamops/internal/pii"
)

// FuzzScrub checks Scrub's properties on any input: it never panics, it
// refuses exactly what json.Valid refuses, what it returns is valid JSON,
// scrubbing that again changes nothing (idempotent), and nothing is left
// to find in it.
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
		if fs, err := pii.Default.Findings(out); err != nil || len(fs) > 0 {
			t.Fatalf("Scrub(%q) = %q left %+v (%v)", in, out, fs, err)
		}
	})
}

// tokenise is a Replacer that puts a reference in place of each finding,
// as the vault does.
func tokenise(f pii.Finding) (string, error) {
	return pii.Reference{Category: f.Category, Subject: subject + ".1", Sealed: "c2VhbGVkLXZhbHVlLW9mLXRoZS1maW5kaW5n"}.String(), nil
}

// FuzzReplace checks Replace and Findings on any input: they never panic
// and refuse exactly what json.Valid refuses; Replace returns valid JSON
// holding one reference per finding and nothing more to find, so
// tokenising it again changes nothing (idempotent), and Findings reports
// what Replace replaced.
func FuzzReplace(f *testing.F) {
	for _, seed := range []string{issueWebhook, `{"email":"` + refEmail + `","n":"x ` + refCard + ` y"}`,
		`{"pan":4111111111111111,"to":4915112345679,"ts":1655292809853}`, `{"q":"jane%40example.com"}`,
		`{"state":"amFuZUBleGFtcGxlLmNvbQ=="}`, `{"remote_addr":"203.0.113.7","log":"from 2001:db8::1"}`, `[1,"a"]`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		fs, ferr := pii.Default.Findings(in)
		out, err := pii.Default.Replace(in, tokenise)
		if !json.Valid(in) {
			if err == nil || ferr == nil {
				t.Fatalf("accepted invalid JSON %q", in)
			}
			return
		}
		if err != nil || ferr != nil {
			t.Fatalf("refused valid JSON %q: %v %v", in, err, ferr)
		}
		if !json.Valid(out) {
			t.Fatalf("Replace(%q) = %q, not JSON", in, out)
		}
		if len(fs) == 0 && !bytes.Equal(in, out) {
			t.Fatalf("no findings, yet Replace(%q) = %q", in, out)
		}
		if left, err := pii.Default.Findings(out); err != nil || len(left) > 0 {
			t.Fatalf("Replace(%q) = %q left %+v (%v)", in, out, left, err)
		}
		again, err := pii.Default.Replace(out, tokenise)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("not idempotent: %q → %q → %q (%v)", in, out, again, err)
		}
	})
}

// FuzzReferencesSurvive checks that a reference inside any text, and a
// reference that is a denied key's value, come out of Replace and Scrub
// as they went in.
func FuzzReferencesSurvive(f *testing.F) {
	for _, seed := range []string{"", "mail jane@example.com", "4242424242424242", "%40%2B", "a=b", "pii:email:", "203.0.113.7"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		note, _ := json.Marshal(text + " " + refCard + " " + text)
		doc := []byte(`{"email":"` + refEmail + `","note":` + string(note) + `,"list":["` + refPhone + `"]}`)
		for name, op := range map[string]func([]byte) ([]byte, error){
			"Replace": func(d []byte) ([]byte, error) { return pii.Default.Replace(d, tokenise) },
			"Scrub":   pii.Scrub,
		} {
			out, err := op(doc)
			if err != nil {
				t.Fatalf("%s(%q): %v", name, doc, err)
			}
			var v struct {
				Email string   `json:"email"`
				Note  string   `json:"note"`
				List  []string `json:"list"`
			}
			if err := json.Unmarshal(out, &v); err != nil {
				t.Fatalf("%s(%q) = %q: %v", name, doc, out, err)
			}
			if v.Email != refEmail || len(v.List) != 1 || v.List[0] != refPhone || !strings.Contains(v.Note, " "+refCard+" ") {
				t.Fatalf("%s(%q) = %q lost a reference", name, doc, out)
			}
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
