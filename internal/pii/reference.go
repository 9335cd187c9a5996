package pii

import "strings"

// Reference is what stands in for a personal datum once it is tokenised:
// pii:<category>:<subject>:<sealed>. The value lives only inside Sealed,
// sealed to the data subject's key, so a copy of a reference discloses
// nothing and erasing the subject's key makes every copy unreadable. The
// scrubber leaves references alone, whole or inside a longer string:
// scrubbing a tokenised document again changes nothing.
type Reference struct {
	// Category says what the value is; one of Categories.
	Category Category
	// Subject is the data subject's id, [a-z2-7]{26} (base32, lower
	// case, no padding), optionally followed by "." and a key generation
	// number of 1 to 6 digits.
	Subject string
	// Sealed is the sealed value, base64url without padding, 16 characters
	// or more.
	Sealed string
}

// referencePrefix starts every reference.
const referencePrefix = "pii:"

const (
	subjectIDLen    = 26
	maxGeneration   = 6
	minSealedLen    = 16
	minCategoryLen  = 2
	maxCategoryLen  = 20
	minReferenceLen = len(referencePrefix) + minCategoryLen + 1 + subjectIDLen + 1 + minSealedLen
)

// String returns the reference's text, pii:<category>:<subject>:<sealed>.
func (r Reference) String() string {
	return referencePrefix + string(r.Category) + ":" + r.Subject + ":" + r.Sealed
}

// ParseReference parses s, which must be exactly one reference.
func ParseReference(s string) (Reference, bool) {
	if start, end := FindReference(s, 0); start != 0 || end != len(s) {
		return Reference{}, false
	}
	rest := s[len(referencePrefix):]
	c := strings.IndexByte(rest, ':')
	sub := rest[c+1:]
	d := strings.IndexByte(sub, ':')
	return Reference{Category: Category(rest[:c]), Subject: sub[:d], Sealed: sub[d+1:]}, true
}

// FindReference returns the first reference in s at or after from as
// s[start:end], or -1, -1 when there is none. The sealed part runs as far
// as its alphabet does.
func FindReference(s string, from int) (start, end int) {
	for from >= 0 && from+minReferenceLen <= len(s) {
		i := strings.Index(s[from:], referencePrefix)
		if i < 0 {
			break
		}
		start = from + i
		if end = referenceAt(s, start); end > 0 {
			return start, end
		}
		from = start + 1
	}
	return -1, -1
}

// referenceAt returns the end of the reference starting at s[i] (at its
// "pii:"), or -1.
func referenceAt(s string, i int) int {
	j := i + len(referencePrefix)
	c := j
	for c < len(s) && (s[c] >= 'a' && s[c] <= 'z' || s[c] == '_') {
		c++
	}
	if n := c - j; n < minCategoryLen || n > maxCategoryLen || c == len(s) || s[c] != ':' ||
		!Category(s[j:c]).Valid() {
		return -1
	}
	j = c + 1
	for c = j; c < len(s) && (s[c] >= 'a' && s[c] <= 'z' || s[c] >= '2' && s[c] <= '7'); c++ {
	}
	if c-j != subjectIDLen {
		return -1
	}
	if c < len(s) && s[c] == '.' {
		g := c + 1
		for c = g; c < len(s) && isDigit(s[c]); c++ {
		}
		if n := c - g; n < 1 || n > maxGeneration {
			return -1
		}
	}
	if c == len(s) || s[c] != ':' {
		return -1
	}
	j = c + 1
	for c = j; c < len(s) && isBase64URL(s[c]); c++ {
	}
	if c-j < minSealedLen {
		return -1
	}
	return c
}

// isBase64URL says whether c is in the base64url alphabet.
func isBase64URL(c byte) bool { return isAlnum(c) || c == '-' || c == '_' }

// isReference says whether s is exactly one reference.
func isReference(s string) bool {
	start, end := FindReference(s, 0)
	return start == 0 && end == len(s)
}
