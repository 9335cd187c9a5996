package pii

import "strings"

// Pattern is one kind of personal data found by its value, wherever it
// appears in a string.
type Pattern struct {
	// Name says what the pattern finds ("email").
	Name string
	// Replacement stands in for each match and says what was removed. It
	// must not itself match any pattern, so scrubbing is idempotent.
	Replacement string
	// Find returns the first match in s at or after from as s[start:end],
	// or start -1 when there is none.
	Find func(s string, from int) (start, end int)
	// Worth is a cheap test on the counts of a string, taken in one pass,
	// that says whether Find can match at all; nil runs Find on every
	// string.
	Worth func(Counts) bool
}

// Counts are the character counts Pattern.Worth decides on.
type Counts struct {
	At, Digits, Upper int
}

// Patterns are the values scrubbed wherever they appear, in the order they
// are applied: an email address before the digits it may hold, an IBAN and
// a card number before a phone number could claim their digits. Add a
// pattern here, with its positive and negative cases in the test table.
var Patterns = []Pattern{
	{Name: "email", Replacement: "[redacted:email]", Find: findEmail,
		Worth: func(c Counts) bool { return c.At > 0 }},
	{Name: "iban", Replacement: "[redacted:iban]", Find: findIBAN,
		Worth: func(c Counts) bool { return c.Upper >= 2 && c.Digits >= minIBANDigits }},
	{Name: "card", Replacement: "[redacted:card]", Find: findCard,
		Worth: func(c Counts) bool { return c.Digits >= minCardDigits }},
	{Name: "phone", Replacement: "[redacted:phone]", Find: findPhone,
		Worth: func(c Counts) bool { return c.Digits >= minPhoneDigits }},
}

// ScrubText replaces every match of Patterns in s; changed reports whether
// anything was.
func ScrubText(s string) (out string, changed bool) {
	return scrubText(s, countString(s))
}

// scrubText is ScrubText with the counts of s already taken.
func scrubText(s string, c Counts) (string, bool) {
	changed := false
	for _, p := range Patterns {
		if p.Worth != nil && !p.Worth(c) {
			continue
		}
		if r, ok := replaceAll(s, p); ok {
			s, changed, c = r, true, countString(r)
		}
	}
	return s, changed
}

// replaceAll replaces every match of p in s.
func replaceAll(s string, p Pattern) (string, bool) {
	var b strings.Builder
	last := 0
	for from := 0; from < len(s); {
		start, end := p.Find(s, from)
		if start < 0 {
			break
		}
		if b.Len() == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[last:start])
		b.WriteString(p.Replacement)
		last, from = end, end
	}
	if last == 0 {
		return s, false
	}
	b.WriteString(s[last:])
	return b.String(), true
}

// countString takes the Counts of s.
func countString(s string) Counts {
	var c Counts
	for i := 0; i < len(s); i++ {
		c.add(s[i])
	}
	return c
}

// countBytes takes the Counts of b.
func countBytes(b []byte) Counts {
	var c Counts
	for _, x := range b {
		c.add(x)
	}
	return c
}

func (c *Counts) add(x byte) {
	switch {
	case isDigit(x):
		c.Digits++
	case x >= 'A' && x <= 'Z':
		c.Upper++
	case x == '@':
		c.At++
	}
}
