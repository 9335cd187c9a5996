package pii

import "strings"

// Pattern is one kind of personal data found by its value, wherever it
// appears in a string.
type Pattern struct {
	// Name says what the pattern finds ("email"); it is the Category of
	// what it finds.
	Name string
	// Replacement stands in for each match when scrubbing and says what
	// was removed. It must not itself match any pattern, so scrubbing is
	// idempotent.
	Replacement string
	// Find returns the first match in s at or after from as s[start:end],
	// or start -1 when there is none.
	Find func(s string, from int) (start, end int)
	// Worth is a cheap test on the counts of a string, taken in one pass,
	// that says whether Find can match at all; nil runs Find on every
	// string.
	Worth func(Counts) bool
}

// Counts are the character counts Pattern.Worth decides on, and that
// decide whether a string is worth decoding (percent-encoding, base64).
type Counts struct {
	At, Digits, Upper int
	// Dots, Colons, Percents and Equals count '.', ':', '%' and '='.
	Dots, Colons, Percents, Equals int
	// Other counts the bytes that are none of the above nor in a base64
	// alphabet (lower case, '+', '/', '-', '_'): a string with none is
	// all base64 characters.
	Other int
}

// Patterns are the values found wherever they appear, in the order they
// are applied: an email address before the digits it may hold, an IBAN and
// a card number before a phone number could claim their digits, an IP
// address last. Add a pattern here, with its positive and negative cases
// in the test table. Besides these, a text is read percent-decoded when it
// holds %XX escapes, and each base64 token of it decoded (see ScrubText).
var Patterns = []Pattern{
	{Name: "email", Replacement: "[redacted:email]", Find: findEmail,
		Worth: func(c Counts) bool { return c.At > 0 }},
	{Name: "iban", Replacement: "[redacted:iban]", Find: findIBAN,
		Worth: func(c Counts) bool { return c.Upper >= 2 && c.Digits >= minIBANDigits }},
	{Name: "card", Replacement: "[redacted:card]", Find: findCard,
		Worth: func(c Counts) bool { return c.Digits >= minCardDigits }},
	{Name: "phone", Replacement: "[redacted:phone]", Find: findPhone,
		Worth: func(c Counts) bool { return c.Digits >= minPhoneDigits }},
	{Name: "ip", Replacement: "[redacted:ip]", Find: findIP,
		Worth: func(c Counts) bool { return c.Digits >= 4 && c.Dots >= 3 || c.Colons >= 2 }},
}

// builtinPatterns counts the Patterns above, whose Worth worthText tests
// inline.
const builtinPatterns = 5

// marker is the redaction marker of each category: "[redacted:email]".
var marker = func() map[Category]string {
	m := make(map[Category]string, len(Categories))
	for _, c := range Categories {
		m[c] = "[redacted:" + string(c) + "]"
	}
	return m
}()

// ScrubText replaces every personal datum found by value in s with the
// marker of its category ("[redacted:email]"); changed reports whether
// anything was. It finds what the Scrubber finds inside strings: every
// match of Patterns, each also inside percent-encoded text
// ("jane%40example.com"), and each base64 token that decodes to text or
// JSON holding one (the token goes whole). References are left alone. It
// is meant for free text: log lines, partners' answer bodies, errors.
func ScrubText(s string) (out string, changed bool) {
	ms := findText(nil, s, countString(s), scanOpts{})
	if len(ms) == 0 {
		return s, false
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, m := range ms {
		b.WriteString(s[last:m.start])
		b.WriteString(marker[m.cat])
		last = m.end
	}
	b.WriteString(s[last:])
	return b.String(), true
}

// match is one datum found by value in a text t: t[start:end].
type match struct {
	start, end int
	cat        Category
	// base64 marks a base64 token whose decoded content holds cat.
	base64 bool
}

// scanOpts are what the member a string is in tells about it.
type scanOpts struct {
	// key is the raw key of the member the string is the value of: a key
	// naming a version makes a dotted quad one ("1.2.3.4"), not an IPv4
	// address, and a key naming an id makes a string of bare digits one,
	// not a phone number.
	key []byte
	// wholeBase64 takes a base64 token only when it is all of the text
	// or the text has an '=' (a query string, a header's "k=v"): other
	// JSON strings are base64 or they are not, and scanning every id for
	// tokens would cost every document.
	wholeBase64 bool
	// depth counts the base64 decodings the text is inside.
	depth int
	// s is the scrubber whose keys apply inside decoded JSON; nil is
	// Default.
	s *Scrubber
}

// maxDecodeDepth bounds base64 inside base64.
const maxDecodeDepth = 2

// findText appends to dst every datum found by value in s (whose counts
// are c), in order and without overlap.
func findText(dst []match, s string, c Counts, o scanOpts) []match {
	if c.Percents > 0 {
		if d, offs, ok := percentDecode(s); ok {
			n := len(dst)
			dst = findPlain(dst, d, countString(d), o)
			for k := n; k < len(dst); k++ {
				dst[k].start, dst[k].end = offs[dst[k].start], offs[dst[k].end]
				dst[k].base64 = false // a part of the sent string, never all of it decoded
			}
			return dst
		}
	}
	return findPlain(dst, s, c, o)
}

// findPlain is findText on text that is not percent-decoded. Each
// pattern runs on the text with the matches of the earlier ones (and the
// references) blanked out, as if they were already replaced.
func findPlain(dst []match, s string, c Counts, o scanOpts) []match {
	n := len(dst)
	work := s
	var buf []byte
	blank := func(from int) {
		if buf == nil {
			buf = []byte(s)
		}
		for _, m := range dst[from:] {
			for k := m.start; k < m.end; k++ {
				buf[k] = ' '
			}
		}
		work = string(buf)
		c = countString(work)
	}
	if c.Colons >= 3 && len(s) >= minReferenceLen {
		var refs []match
		for from := 0; ; {
			start, end := FindReference(s, from)
			if start < 0 {
				break
			}
			refs = append(refs, match{start: start, end: end})
			from = end
		}
		if len(refs) > 0 {
			buf = []byte(s)
			for _, r := range refs {
				for k := r.start; k < r.end; k++ {
					buf[k] = ' '
				}
			}
			work = string(buf)
			c = countString(work)
		}
	}
	for _, p := range Patterns {
		if p.Worth != nil && !p.Worth(c) {
			continue
		}
		from := len(dst)
		for at := 0; at < len(work); {
			start, end := p.Find(work, at)
			if start < 0 {
				break
			}
			at = end
			if p.Name == "ip" && o.key != nil && strings.IndexByte(work[start:end], ':') < 0 && keyHas(o.key, "version") {
				continue
			}
			if p.Name == "phone" && o.key != nil && start == 0 && end == len(work) && allDigits(work) &&
				(keyEnds(o.key, "id") || keyEnds(o.key, "ids")) {
				continue
			}
			dst = append(dst, match{start: start, end: end, cat: Category(p.Name)})
		}
		if len(dst) > from {
			blank(from)
		}
	}
	if o.depth < maxDecodeDepth && worthBase64(c, s, o.wholeBase64) {
		dst = findBase64(dst, work, o)
	}
	sortMatches(dst[n:])
	return dst
}

// worthBase64 says whether text s with counts c can hold a base64 token
// worth decoding, or, when whole, be one: nothing but base64 characters
// and padding, and a first character that printable text starts with
// (see decodeBase64Text).
func worthBase64(c Counts, s string, whole bool) bool {
	if len(s) < minBase64Len {
		return false
	}
	if !whole || c.Equals > 0 {
		return true // tokens: free text, or a query string ("…?state=…")
	}
	if c.Other+c.At+c.Dots+c.Colons+c.Percents > 0 || c.Equals > 2 {
		return false
	}
	v := base64Value[s[0]]
	return v >= 8 && v <= 31
}

// sortMatches orders a few matches by start (insertion sort).
func sortMatches(ms []match) {
	for i := 1; i < len(ms); i++ {
		for j := i; j > 0 && ms[j].start < ms[j-1].start; j-- {
			ms[j], ms[j-1] = ms[j-1], ms[j]
		}
	}
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

// Character classes of countString.
const (
	clsB64 = iota // lower case and "+/-_"
	clsDigit
	clsUpper
	clsAt
	clsDot
	clsColon
	clsPercent
	clsEquals
	clsOther
)

// charClass is the class of each byte, for countString.
var charClass = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		switch {
		case isDigit(b):
			t[c] = clsDigit
		case isUpper(b):
			t[c] = clsUpper
		case b >= 'a' && b <= 'z', b == '+', b == '/', b == '_', b == '-':
			t[c] = clsB64
		case b == '@':
			t[c] = clsAt
		case b == '.':
			t[c] = clsDot
		case b == ':':
			t[c] = clsColon
		case b == '%':
			t[c] = clsPercent
		case b == '=':
			t[c] = clsEquals
		default:
			t[c] = clsOther
		}
	}
	return t
}()

// countString takes the Counts of s in one pass. The counters are locals
// switched on, not an array indexed by class: a run of one class would
// chain every increment through memory.
func countString(s string) Counts {
	var c Counts
	for i := 0; i < len(s); i++ {
		switch charClass[s[i]] {
		case clsB64:
		case clsDigit:
			c.Digits++
		case clsUpper:
			c.Upper++
		case clsAt:
			c.At++
		case clsDot:
			c.Dots++
		case clsColon:
			c.Colons++
		case clsPercent:
			c.Percents++
		case clsEquals:
			c.Equals++
		default:
			c.Other++
		}
	}
	return c
}
