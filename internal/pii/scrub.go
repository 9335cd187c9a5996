package pii

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/streamops/streamops/internal/jsonbody"
)

// ErrNotJSON is the error of a document that is not exactly one JSON value.
var ErrNotJSON = errors.New("pii: document is not one JSON value")

// Scrubber removes personal data from JSON documents: the whole value of
// each denied key and each configured path, and every match of Patterns
// inside the other strings. Safe for concurrent use.
type Scrubber struct {
	paths [][]pathSeg
	deny  map[string]struct{}
}

// New returns a Scrubber for the dot paths (see ParsePath; "*" matches
// every member or element, "#" every element, a number one element) and
// the denied keys, which are compared normalised (NormaliseKey).
func New(paths, denylist []string) (*Scrubber, error) {
	s := &Scrubber{deny: make(map[string]struct{}, len(denylist))}
	for _, k := range denylist {
		s.deny[NormaliseKey(k)] = struct{}{}
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

// Scrub returns doc without personal data. A denied key's or a path's
// value becomes the string Redacted, whole (a null stays null: it discloses
// nothing); in every other string, and in every object key, each pattern
// match becomes the pattern's Replacement, and an object's second and
// later rewritten keys get " #n" so its keys stay distinct. Numbers,
// whitespace and key order keep the bytes that were sent: a document with
// nothing to scrub is returned as it is, without copying. A doc that is
// not one JSON value is an error matching ErrNotJSON, which never quotes
// the document.
func (s *Scrubber) Scrub(doc []byte) ([]byte, error) {
	if !json.Valid(doc) {
		var v any
		err := json.Unmarshal(doc, &v)
		if err == nil {
			err = errors.New("invalid JSON")
		}
		return nil, fmt.Errorf("%w: %v", ErrNotJSON, err)
	}
	w := walker{s: s, in: doc}
	w.value(jsonbody.SkipSpace(doc, 0))
	if w.out == nil {
		return doc, nil
	}
	return append(w.out, doc[w.last:]...), nil
}

// walker scrubs one valid document, copying it to out only from its first
// change on (copy on write).
type walker struct {
	s    *Scrubber
	in   []byte
	out  []byte
	last int    // in[:last] is accounted for in out
	at   []step // where the walk is; kept only when there are paths
}

// value scrubs the value starting at in[i] and returns its end.
func (w *walker) value(i int) int {
	switch w.in[i] {
	case '{':
		return w.object(i)
	case '[':
		return w.array(i)
	case '"':
		end := jsonbody.SkipString(w.in, i)
		w.text(i, end, 0)
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
		if w.text(i, kEnd, renamed+1) {
			renamed++
		}
		v := jsonbody.SkipSpace(in, jsonbody.SkipSpace(in, kEnd)+1) // past ':'
		end := w.member(v, step{key: key}, denied(w.s.deny, key))
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
		end := w.member(i, step{index: n, elem: true}, false)
		i = jsonbody.SkipSpace(in, end)
		if in[i] == ']' {
			return i + 1
		}
		i = jsonbody.SkipSpace(in, i+1)
	}
}

// member scrubs the value at in[v] reached by st: whole when deny says so
// or a path ends there, else inside.
func (w *walker) member(v int, st step, deny bool) int {
	if len(w.s.paths) > 0 {
		w.at = append(w.at, st)
		defer func() { w.at = w.at[:len(w.at)-1] }()
		deny = deny || w.onPath()
	}
	if !deny {
		return w.value(v)
	}
	end := jsonbody.SkipValue(w.in, v)
	if w.in[v] != 'n' {
		w.cut(v, end)
		w.out = append(w.out, `"`+Redacted+`"`...)
	}
	return end
}

// onPath says whether a configured path ends where the walk is.
func (w *walker) onPath() bool {
	for _, p := range w.s.paths {
		if len(p) != len(w.at) {
			continue
		}
		hit := true
		for k, seg := range p {
			if !seg.matches(w.at[k]) {
				hit = false
				break
			}
		}
		if hit {
			return true
		}
	}
	return false
}

// text scrubs the JSON string in[start:end] by value. nth > 0 marks an
// object key, the nth to be rewritten if it is. It reports whether it
// rewrote the string.
func (w *walker) text(start, end, nth int) bool {
	raw := w.in[start+1 : end-1]
	var str string
	var c Counts
	if bytes.IndexByte(raw, '\\') >= 0 {
		str = string(unquote(w.in[start:end]))
		c = countString(str)
	} else {
		if c = countBytes(raw); !worthAny(c) {
			return false
		}
		str = string(raw)
	}
	out, changed := scrubText(str, c)
	if !changed {
		return false
	}
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

// worthAny says whether any pattern can match a string with counts c.
func worthAny(c Counts) bool {
	for _, p := range Patterns {
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
