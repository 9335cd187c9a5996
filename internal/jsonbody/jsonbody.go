package jsonbody

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ErrInvalid matches every error Check returns.
var ErrInvalid = errors.New("jsonbody: invalid JSON body")

// DuplicateKeyError names the first object key a body repeats.
type DuplicateKeyError struct {
	// Path is the dotted path of the repeated key ("data.object.id";
	// array elements by index, "items.2.sku").
	Path string
}

func (e *DuplicateKeyError) Error() string {
	return fmt.Sprintf("the JSON body names the key %q twice; send each key once", e.Path)
}

// Is makes errors.Is(err, ErrInvalid) hold.
func (e *DuplicateKeyError) Is(target error) bool { return target == ErrInvalid }

// frame is an open object or array.
type frame struct {
	object    bool
	keys      map[string]bool
	expectKey bool   // object: the next token is a key or '}'
	key       string // object: the key whose value is being read
	index     int    // array: the index of the element being read
}

// name is the key or index of the value being read inside f.
func (f *frame) name() string {
	if f.object {
		return f.key
	}
	return strconv.Itoa(f.index)
}

// done records that the value being read inside f is complete.
func (f *frame) done() {
	if f.object {
		f.expectKey = true
	} else {
		f.index++
	}
}

// pathOf is the dotted path of the value being read at the top of stack,
// built only when an error names it: building it for every value would
// cost depth × values.
func pathOf(stack []*frame) string {
	var b strings.Builder
	for i, f := range stack {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(f.name())
	}
	return b.String()
}

// Check reports whether body is exactly one JSON value, nested at most
// MaxDepth deep, without duplicate object keys at any depth. Errors match
// ErrInvalid; a body nested too deep is a *DepthError (checked first, in
// one pass over the bytes), a repeated key a *DuplicateKeyError naming it.
func Check(body []byte) error {
	if err := CheckDepth(body, MaxDepth); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var stack []*frame
	top := func() *frame {
		if len(stack) == 0 {
			return nil
		}
		return stack[len(stack)-1]
	}
	values := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%w: %v", ErrInvalid, err)
		}
		f := top()
		if f == nil && values > 0 {
			return fmt.Errorf("%w: unexpected data after the JSON value", ErrInvalid)
		}
		if f != nil && f.object && f.expectKey {
			if tok == json.Delim('}') {
				stack = stack[:len(stack)-1]
				if p := top(); p != nil {
					p.done()
				} else {
					values++
				}
				continue
			}
			key, _ := tok.(string)
			if f.keys[key] {
				f.key = key
				return &DuplicateKeyError{Path: pathOf(stack)}
			}
			f.keys[key], f.key, f.expectKey = true, key, false
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, keys: map[string]bool{}, expectKey: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if p := top(); p != nil {
			p.done()
		} else {
			values++
		}
	}
	if values != 1 {
		return fmt.Errorf("%w: the body is not one JSON value", ErrInvalid)
	}
	return nil
}
