package pii

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unsafe"

	"github.com/streamops/streamops/internal/jsonbody"
)

// ErrNotJSON is the error of a document that is not exactly one JSON value.
var ErrNotJSON = errors.New("pii: document is not one JSON value")

// Scrubber finds personal data in JSON documents, and removes or replaces
// it: the whole value of each denied key (the denylist, and every key
// KeyCategory names) and each configured path, and every datum found by
// value (Patterns, percent-encoded or base64-encoded too) inside the other
// strings, plus card and phone numbers sent as JSON numbers. References
// are never findings. Safe for concurrent use.
type Scrubber struct {
	paths [][]pathSeg
	deny  map[string]Category
}

// New returns a Scrubber for the dot paths (see ParsePath; "*" matches
// every member or element, "#" every element, a number one element) and
// the denied keys, which are compared normalised (NormaliseKey). A denied
// key has the category KeyCategory gives it, else CategoryPersonal.
func New(paths, denylist []string) (*Scrubber, error) {
	s := &Scrubber{deny: make(map[string]Category, len(denylist))}
	for _, k := range denylist {
		c, ok := KeyCategory(k)
		if !ok {
			c = CategoryPersonal
		}
		s.deny[NormaliseKey(k)] = c
	}
	return s.WithPaths(paths...)
}

// WithPaths returns a Scrubber that also scrubs the values at paths, sharing
// s's denied keys.
func (s *Scrubber) WithPaths(paths ...string) (*Scrubber, error) {
	out := &Scrubber{deny: s.deny, paths: s.paths[:len(s.paths):len(s.paths)]}
	for _, p := range paths {
		segs, err := compilePath(p)
		if err != nil {
			return nil, fmt.Errorf("redact path %q: %w", p, err)
		}
		out.paths = append(out.paths, segs)
	}
	return out, nil
}

// Default scrubs DefaultDenylist keys and Patterns values. The store
// applies it to every payload of webhook_events and integration_outbox.
var Default, _ = New(nil, DefaultDenylist)

// Scrub is Default.Scrub.
func Scrub(doc []byte) ([]byte, error) { return Default.Scrub(doc) }

// Finding is one personal datum in a document.
type Finding struct {
	// Category says what the datum is.
	Category Category
	// Value is the original text: a match inside a string (JSON escapes
	// decoded), or, when Whole, the member's whole JSON value as sent
	// (`"jane@x.io"` with its quotes, 4111111111111111, {"line1":"…"}).
	Value string
	// Whole says Value is the member's whole JSON value: a denied key's
	// or a path's, a JSON number's, or an encoded string's (base64) whose
	// decoded content holds personal data.
	Whole bool
	// Key is the normalised key of the member the datum is in, "" inside
	// an array.
	Key string
}

// Replacer returns the text to put in place of a finding: pii quotes it
// as a JSON string when the finding is Whole and splices it into the
// string otherwise. An error stops the walk and is returned.
type Replacer func(Finding) (string, error)

// Replace returns doc with each finding replaced by what r returns, in
// one pass over the document, in document order. A denied key's null and
// a denied key whose value already is exactly a reference (or Redacted)
// are no findings; neither is any reference inside a string. In an object
// whose keys are rewritten, the second and later get " #n" so its keys
// stay distinct. Numbers, whitespace and key order keep the bytes that
// were sent: a document with nothing to replace is returned as it is,
// without copying. A doc that is not one JSON value is an error matching
// ErrNotJSON, which never quotes the document.
func (s *Scrubber) Replace(doc []byte, r Replacer) ([]byte, error) {
	return s.walk(doc, func(f Finding, _ bool) (string, error) { return r(f) }, false)
}

// Findings returns the findings Replace would replace, in document order.
func (s *Scrubber) Findings(doc []byte) ([]Finding, error) {
	var fs []Finding
	_, err := s.walk(doc, func(f Finding, _ bool) (string, error) {
		fs = append(fs, f)
		return "", nil
	}, true)
	if err != nil {
		return nil, err
	}
	return fs, nil
}

// Scrub returns doc without personal data: Replace with redaction. A
// denied key's or a path's value becomes the string Redacted, whole;
// every other finding becomes its category's marker ("[redacted:email]",
// a JSON number or a base64 string whole).
func (s *Scrubber) Scrub(doc []byte) ([]byte, error) { return s.walk(doc, nil, false) }

// redact is Scrub's replacer.
func redact(f Finding, byKey bool) (string, error) {
	if byKey {
		return Redacted, nil
	}
	return marker[f.Category], nil
}

// emitFunc is a Replacer also told whether the finding is a denied key's
// or a path's value.
type emitFunc func(f Finding, byKey bool) (string, error)

// walk runs one pass over doc; collect only reports findings to emit.
func (s *Scrubber) walk(doc []byte, emit emitFunc, collect bool) ([]byte, error) {
	if !json.Valid(doc) {
		var v any
		err := json.Unmarshal(doc, &v)
		if err == nil {
			err = errors.New("invalid JSON")
		}
		return nil, fmt.Errorf("%w: %v", ErrNotJSON, err)
	}
	w := walker{s: s, in: doc, emit: emit, collect: collect}
	if emit == nil {
		// Scrub: no finding leaves the walk, and doc is not written while
		// it runs, so its bytes are read as a string in place, without
		// the copy a Replacer's or Findings' caller, who may keep a
		// Finding.Value, must get.
		w.emit, w.noKeys = redact, true
		w.str = unsafe.String(unsafe.SliceData(doc), len(doc))
	} else {
		w.str = string(doc)
	}
	w.value(jsonbody.SkipSpace(doc, 0), nil)
	if w.err != nil {
		return nil, w.err
	}
	if w.out == nil {
		return doc, nil
	}
	return append(w.out, doc[w.last:]...), nil
}

// walker walks one valid document, copying it to out only from its first
// change on (copy on write).
type walker struct {
	s       *Scrubber
	in      []byte
	str     string // in, as a string: substrings of it cost nothing
	out     []byte
	last    int    // in[:last] is accounted for in out
	at      []step // where the walk is; kept only when there are paths
	emit    emitFunc
	noKeys  bool    // emit does not read Finding.Key (Scrub): skip normalising it
	collect bool    // report findings only, write nothing
	err     error   // the first error of emit; the walk stops there
	depth   int     // base64 decodings the document is inside
	ms      []match // the matches of the string being scanned, reused
}

// value walks the value starting at in[i], the value of the member with
// raw key (nil in an array), and returns its end.
func (w *walker) value(i int, k []byte) int {
	switch c := w.in[i]; {
	case c == '{':
		return w.object(i)
	case c == '[':
		return w.array(i)
	case c == '"':
		end := jsonbody.SkipString(w.in, i)
		w.text(i, end, 0, k)
		return end
	case isDigit(c):
		end := jsonbody.SkipLiteral(w.in, i)
		if end-i >= minBareIntl {
			if cat, ok := numberCategory(w.str[i:end]); ok {
				w.whole(i, end, cat, k, false)
			}
		}
		return end
	}
	return jsonbody.SkipLiteral(w.in, i)
}

func (w *walker) object(i int) int {
	in := w.in
	i = jsonbody.SkipSpace(in, i+1)
	if in[i] == '}' {
		return i + 1
	}
	for renamed := 0; ; {
		kEnd := jsonbody.SkipString(in, i)
		key := in[i+1 : kEnd-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			key = unquote(in[i:kEnd])
		}
		if w.text(i, kEnd, renamed+1, key) {
			renamed++
		}
		v := jsonbody.SkipSpace(in, jsonbody.SkipSpace(in, kEnd)+1) // past ':'
		cat, deny := w.s.keyCategory(key)
		end := w.member(v, step{key: key}, cat, deny)
		if w.err != nil {
			return len(in)
		}
		i = jsonbody.SkipSpace(in, end)
		if in[i] == '}' {
			return i + 1
		}
		i = jsonbody.SkipSpace(in, i+1) // past ','
	}
}

func (w *walker) array(i int) int {
	in := w.in
	i = jsonbody.SkipSpace(in, i+1)
	if in[i] == ']' {
		return i + 1
	}
	for n := 0; ; n++ {
		end := w.member(i, step{index: n, elem: true}, "", false)
		if w.err != nil {
			return len(in)
		}
		i = jsonbody.SkipSpace(in, end)
		if in[i] == ']' {
			return i + 1
		}
		i = jsonbody.SkipSpace(in, i+1)
	}
}

// member walks the value at in[v] reached by st: whole when deny says so
// or a path ends there, else inside.
func (w *walker) member(v int, st step, cat Category, deny bool) int {
	if len(w.s.paths) > 0 {
		w.at = append(w.at, st)
		defer func() { w.at = w.at[:len(w.at)-1] }()
		if !deny && w.onPath() {
			deny, cat = true, CategoryPersonal
			if !st.elem {
				if c, ok := KeyCategory(string(st.key)); ok {
					cat = c
				}
			}
		}
	}
	if !deny {
		return w.value(v, st.key)
	}
	end := jsonbody.SkipValue(w.in, v)
	if w.in[v] == 'n' || w.in[v] == '"' && w.inert(v, end) {
		return end
	}
	if w.noKeys { // Scrub: the replacement is known
		w.cut(v, end)
		w.out = append(w.out, `"`+Redacted+`"`...)
		return end
	}
	w.whole(v, end, cat, st.key, true)
	return end
}

// inert says whether the JSON string in[start:end] is exactly a reference
// or Redacted: a denied key's value that discloses nothing.
func (w *walker) inert(start, end int) bool {
	raw := w.str[start+1 : end-1]
	if strings.IndexByte(raw, '\\') >= 0 {
		raw = string(unquote(w.in[start:end]))
	}
	return raw == Redacted || isReference(raw)
}

// whole reports the value in[start:end] as a Whole finding and puts the
// replacement, quoted, in its place.
func (w *walker) whole(start, end int, cat Category, key []byte, byKey bool) {
	r, ok := w.report(Finding{Category: cat, Value: w.str[start:end], Whole: true, Key: w.keyOf(key)}, byKey)
	if !ok {
		return
	}
	w.cut(start, end)
	w.out = appendQuoted(w.out, r)
}

// keyOf is the Finding.Key of a member with raw key.
func (w *walker) keyOf(key []byte) string {
	if w.noKeys {
		return ""
	}
	return normalised(key)
}

// report emits f and says whether its replacement is to be written.
func (w *walker) report(f Finding, byKey bool) (string, bool) {
	if w.err != nil {
		return "", false
	}
	r, err := w.emit(f, byKey)
	if err != nil {
		w.err = err
		return "", false
	}
	return r, !w.collect
}

// text scans the JSON string in[start:end] by value; key is the raw key
// of the member it is the value of, or, when nth > 0, the object key it
// is, the nth to be rewritten if it is. It reports whether it rewrote the
// string.
func (w *walker) text(start, end, nth int, key []byte) bool {
	raw := w.str[start+1 : end-1]
	str := raw
	if strings.IndexByte(raw, '\\') >= 0 {
		str = string(unquote(w.in[start:end]))
	}
	if plain(str) {
		return false
	}
	c := countString(str)
	if nth > 0 {
		c.Other++ // a key is no base64 token
	}
	if !worthText(c, str) {
		return false
	}
	o := scanOpts{s: w.s, depth: w.depth, wholeBase64: true}
	if nth == 0 {
		o.key = key
	}
	w.ms = findText(w.ms[:0], str, c, o)
	ms := w.ms
	if len(ms) == 0 {
		return false
	}
	k := w.keyOf(key)
	if nth == 0 && len(ms) == 1 && ms[0].base64 && ms[0].start == 0 && ms[0].end == len(str) {
		w.whole(start, end, ms[0].cat, key, false)
		return !w.collect && w.err == nil
	}
	var b strings.Builder
	last := 0
	for _, m := range ms {
		r, ok := w.report(Finding{Category: m.cat, Value: str[m.start:m.end], Key: k}, false)
		if !ok {
			if w.err != nil {
				return false
			}
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(str) + 16)
		}
		b.WriteString(str[last:m.start])
		b.WriteString(r)
		last = m.end
	}
	if w.collect || w.err != nil {
		return false
	}
	b.WriteString(str[last:])
	out := b.String()
	if nth > 1 {
		out += " #" + strconv.Itoa(nth)
	}
	w.cut(start, end)
	w.out = appendQuoted(w.out, out)
	return true
}

// cut copies what precedes in[start] to out and skips in[start:end], whose
// replacement the caller appends.
func (w *walker) cut(start, end int) {
	if w.out == nil {
		w.out = make([]byte, 0, len(w.in)+64)
	}
	w.out = append(w.out, w.in[w.last:start]...)
	w.last = end
}

// plainByte marks lower-case letters, '_', '-' and ' ': a string of
// nothing else (most keys, most enum values) holds no datum of any form.
var plainByte = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
	}
	t['_'], t['-'], t[' '] = true, true, true
	return t
}()

// plain says whether s is made of plainByte bytes only.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if !plainByte[s[i]] {
			return false
		}
	}
	return true
}

// worthText says whether anything can be found by value in a JSON string
// s with counts c. The built-in patterns are tested inline: this
// runs on every string of every document.
func worthText(c Counts, s string) bool {
	if c.At > 0 || c.Digits >= minPhoneDigits || c.Percents > 0 || c.Colons >= 2 ||
		c.Digits >= 4 && c.Dots >= 3 || worthBase64(c, s, true) {
		return true
	}
	for _, p := range Patterns[builtinPatterns:] {
		if p.Worth == nil || p.Worth(c) {
			return true
		}
	}
	return false
}

// unquote decodes a JSON string with escapes.
func unquote(quoted []byte) []byte {
	var s string
	_ = json.Unmarshal(quoted, &s) // valid: json.Valid accepted the document
	return []byte(s)
}

// appendQuoted appends s as a JSON string, escaping only what JSON
// requires (no HTML escaping: this is storage).
func appendQuoted(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}
