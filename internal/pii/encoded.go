package pii

import (
	"encoding/json"
	"strings"
)

// Personal data hidden by an encoding: percent-encoded text (a query
// string, a form body, a URL carried as a value) and base64 (a token, a
// JWT's payload, an opaque "state" a partner echoes back). Both are
// decoded only when the counts say they could be there, and base64 only
// as far as its decoded bytes stay printable ASCII, which random ids and
// words stop doing within a byte or two.

// minBase64Len is the fewest characters of a base64 token worth decoding:
// "a@b.co" is eight.
const minBase64Len = 8

func unhex(c byte) (byte, bool) {
	switch {
	case isDigit(c):
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// percentDecode decodes the %XX escapes of s ('+' stays '+': it is a
// phone number's far more often than a form's space). offs maps each
// offset of d, and len(d), to the offset in s it came from; ok is false
// when s holds no escape.
func percentDecode(s string) (d string, offs []int, ok bool) {
	var b []byte
	for i := 0; i < len(s); i++ {
		if s[i] != '%' || i+2 >= len(s) {
			if b != nil {
				b = append(b, s[i])
				offs = append(offs, i)
			}
			continue
		}
		hi, ok1 := unhex(s[i+1])
		lo, ok2 := unhex(s[i+2])
		if !ok1 || !ok2 {
			if b != nil {
				b = append(b, s[i])
				offs = append(offs, i)
			}
			continue
		}
		if b == nil {
			b = make([]byte, 0, len(s))
			offs = make([]int, 0, len(s)+1)
			for k := 0; k < i; k++ {
				b = append(b, s[k])
				offs = append(offs, k)
			}
		}
		b = append(b, hi<<4|lo)
		offs = append(offs, i)
		i += 2
	}
	if b == nil {
		return s, nil, false
	}
	return string(b), append(offs, len(s)), true
}

// base64Value maps a character to its 6 bits in either alphabet (std
// "+/", url "-_"), or 0xff.
var base64Value = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	const std = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	for i := 0; i < len(std); i++ {
		t[std[i]] = byte(i)
	}
	t['-'], t['_'] = 62, 63
	return t
}()

// findBase64 appends a match for each base64 token of s whose decoded
// text holds personal data: the whole token, of the category of the first
// datum inside. Inside JSON strings only a string that is one token as a
// whole is taken (o.wholeBase64) unless the string has an '='; in free
// text every token.
func findBase64(dst []match, s string, o scanOpts) []match {
	hasEquals := strings.IndexByte(s, '=') >= 0
	for i := 0; i < len(s); {
		if base64Value[s[i]] == 0xff {
			i++
			continue
		}
		start := i
		for i < len(s) && base64Value[s[i]] != 0xff {
			i++
		}
		end := i
		for i < len(s) && s[i] == '=' && i-end < 2 {
			i++
		}
		if o.wholeBase64 && !hasEquals && (start > 0 || i < len(s)) {
			continue
		}
		if end-start < minBase64Len || (i > end && (i-start)%4 != 0) || (end-start)%4 == 1 ||
			i < len(s) && (isAlnum(s[i]) || s[i] == '=') {
			continue
		}
		text, ok := decodeBase64Text(s[start:end])
		if !ok {
			continue
		}
		if cat, found := holdsPII(text, o); found {
			dst = append(dst, match{start: start, end: i, cat: cat, base64: true})
		}
	}
	return dst
}

// decodeBase64Text decodes the base64 characters t (no padding), or
// reports false as soon as a decoded byte is not printable ASCII text:
// the first pass only checks, so the ids and words that are no base64
// cost no allocation.
func decodeBase64Text(t string) (string, bool) {
	// A printable byte's top six bits are 8 to 31: the first character
	// of every group says at once whether the group can be text.
	if v := base64Value[t[0]]; v < 8 || v > 31 {
		return "", false
	}
	// One alphabet: std's "+/" or url's "-_", never both.
	if strings.ContainsAny(t, "+/") && strings.ContainsAny(t, "-_") {
		return "", false
	}
	var acc uint32
	bits, n := 0, 0
	for i := 0; i < len(t); i++ {
		acc = acc<<6 | uint32(base64Value[t[i]])
		if bits += 6; bits >= 8 {
			bits -= 8
			if !isTextByte(byte(acc >> bits)) {
				return "", false
			}
			n++
		}
	}
	out := make([]byte, 0, n)
	acc, bits = 0, 0
	for i := 0; i < len(t); i++ {
		acc = acc<<6 | uint32(base64Value[t[i]])
		if bits += 6; bits >= 8 {
			bits -= 8
			out = append(out, byte(acc>>bits))
		}
	}
	return string(out), true
}

// isTextByte says whether b is printable ASCII or a tab or line break.
func isTextByte(b byte) bool {
	return b >= 0x20 && b < 0x7f || b == '\n' || b == '\r' || b == '\t'
}

// holdsPII says whether decoded text holds personal data, and its
// category: by the scrubber's keys and values when it is a JSON document,
// by value otherwise.
func holdsPII(text string, o scanOpts) (Category, bool) {
	o.depth++
	o.key = nil
	if len(text) > 0 && (text[0] == '{' || text[0] == '[') && json.Valid([]byte(text)) {
		s := o.s
		if s == nil {
			s = Default
		}
		var cat Category
		w := walker{s: s, in: []byte(text), str: text, collect: true, depth: o.depth,
			emit: func(f Finding, _ bool) (string, error) {
				if cat == "" {
					cat = f.Category
				}
				return "", nil
			}}
		w.value(0, nil)
		return cat, cat != ""
	}
	if ms := findText(nil, text, countString(text), o); len(ms) > 0 {
		return ms[0].cat, true
	}
	return "", false
}
