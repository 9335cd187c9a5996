package pii

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// pathSeg is one segment of a redact path: a key, "*" (every member or
// element), "#" (every element) or an element's index (also a key).
type pathSeg struct {
	text  string
	index int // -1 unless text is an index
}

// ParsePath splits a dot path ("data.object.customer_note") into its
// segments, honouring `\.` for a dot inside a key; it refuses an empty
// path or segment.
func ParsePath(path string) ([]string, error) {
	if path == "" {
		return nil, errors.New("path is empty")
	}
	var segs []string
	var seg strings.Builder
	for i := 0; i < len(path); i++ {
		switch c := path[i]; {
		case c == '\\' && i+1 < len(path) && path[i+1] == '.':
			seg.WriteByte('.')
			i++
		case c == '.':
			segs = append(segs, seg.String())
			seg.Reset()
		default:
			seg.WriteByte(c)
		}
	}
	segs = append(segs, seg.String())
	for i, s := range segs {
		if s == "" {
			return nil, fmt.Errorf("segment %d of path %q is empty", i+1, path)
		}
	}
	return segs, nil
}

// compilePath parses path into pathSegs.
func compilePath(path string) ([]pathSeg, error) {
	segs, err := ParsePath(path)
	if err != nil {
		return nil, err
	}
	out := make([]pathSeg, len(segs))
	for i, s := range segs {
		out[i] = pathSeg{text: s, index: -1}
		if n, err := strconv.Atoi(s); err == nil && n >= 0 {
			out[i].index = n
		}
	}
	return out, nil
}

// step is where the walk is: an object member (key) or an array element
// (elem, index).
type step struct {
	key   []byte
	index int
	elem  bool
}

// matches says whether the segment takes the step.
func (p pathSeg) matches(s step) bool {
	if s.elem {
		return p.text == "*" || p.text == "#" || p.index == s.index
	}
	return p.text == "*" || p.text == string(s.key)
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
