package pii

import "strings"

// The detectors below are hand-written scanners rather than regular
// expressions: they run on every string of every webhook, most strings
// hold nothing, and the checks that keep ordinary numbers out (Luhn,
// mod 97, group shapes, what a run is glued to) are code either way.

const (
	// minIBANDigits is the fewest digits an IBAN holds: its two check
	// digits and a bank account number (Norway's 15 characters are all
	// digits but the country code).
	minIBANDigits = 8
	// minCardDigits and maxCardDigits bound a payment card number (ISO/IEC
	// 7812 PANs used by the card schemes).
	minCardDigits, maxCardDigits = 13, 19
	// minPhoneDigits is the fewest digits of an international number
	// (+ and country code included); minNationalDigits of a number without
	// the +, which needs more to stand out from other grouped numbers.
	minPhoneDigits, minNationalDigits = 8, 9
	// maxPhoneDigits is E.164's maximum; maxNationalDigits that of a
	// number written without + (00 and the country code take it to 15).
	maxPhoneDigits, maxNationalDigits = 15, 12
)

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLetter(c byte) bool {
	return c >= 'a' && c <= 'z' || isUpper(c)
}
func isAlnum(c byte) bool { return isDigit(c) || isLetter(c) }

// findEmail finds local@domain.tld: a local part of letters, digits and
// ._%+-, a domain of at least two labels whose last is two or more letters.
func findEmail(s string, from int) (int, int) {
	for from < len(s) {
		at := strings.IndexByte(s[from:], '@')
		if at < 0 {
			return -1, -1
		}
		at += from
		start := at
		for start > from && isEmailLocal(s[start-1]) {
			start--
		}
		for start < at && s[start] == '.' {
			start++
		}
		end := at + 1
		for end < len(s) && (isAlnum(s[end]) || s[end] == '.' || s[end] == '-') {
			end++
		}
		for end > at+1 && (s[end-1] == '.' || s[end-1] == '-') {
			end--
		}
		if start < at && validDomain(s[at+1:end]) {
			return start, end
		}
		from = at + 1
	}
	return -1, -1
}

func isEmailLocal(c byte) bool {
	return isAlnum(c) || strings.IndexByte("._%+-", c) >= 0
}

// validDomain says whether d is two or more non-empty labels, the last of
// at least two letters.
func validDomain(d string) bool {
	dot := strings.LastIndexByte(d, '.')
	if dot <= 0 || len(d)-dot-1 < 2 || strings.Contains(d, "..") {
		return false
	}
	for i := dot + 1; i < len(d); i++ {
		if !isLetter(d[i]) {
			return false
		}
	}
	return true
}

// findIBAN finds an IBAN, compact ("DE89370400440532013000") or in the
// printed groups of four ("DE89 3704 0044 0532 0130 00"): a country code,
// two check digits, then upper-case letters and digits, 15 to 34 in all,
// that pass the ISO 13616 mod-97 check.
func findIBAN(s string, from int) (int, int) {
	for i := from; i+4 <= len(s); i++ {
		// Mod 97 is strong enough to accept "IBAN:DE89…"; only a word or
		// an id the letters would continue is refused.
		if !isUpper(s[i]) || !isUpper(s[i+1]) || !isDigit(s[i+2]) || !isDigit(s[i+3]) || (i > 0 && (isAlnum(s[i-1]) || s[i-1] == '_')) {
			continue
		}
		if end := ibanAt(s, i); end > 0 {
			return i, end
		}
	}
	return -1, -1
}

// ibanAt returns the end of the valid IBAN starting at s[i], or -1.
func ibanAt(s string, i int) int {
	end := i
	for end < len(s) && (isUpper(s[end]) || isDigit(s[end])) {
		end++
	}
	if end < len(s) && isAlnum(s[end]) {
		return -1 // glued to lower-case text: a word, not an IBAN
	}
	if end-i != 4 {
		if end-i >= 15 && end-i <= 34 && ibanValid(s[i:end]) {
			return end
		}
		return -1
	}
	// Printed groups: every group has four characters but the last.
	var compact [34]byte
	n := copy(compact[:], s[i:end])
	best := -1
	for end+1 < len(s) && s[end] == ' ' && (isUpper(s[end+1]) || isDigit(s[end+1])) {
		g := end + 1
		for end = g; end < len(s) && end-g < 4 && (isUpper(s[end]) || isDigit(s[end])); end++ {
		}
		if n+end-g > len(compact) || (end < len(s) && isAlnum(s[end])) {
			break
		}
		n += copy(compact[n:], s[g:end])
		if n >= 15 && ibanValid(string(compact[:n])) {
			best = end
		}
		if end-g < 4 {
			break
		}
	}
	return best
}

// ibanValid applies the mod-97 check to a compact IBAN.
func ibanValid(iban string) bool {
	r := 0
	for k := 0; k < len(iban); k++ {
		c := iban[(k+4)%len(iban)] // the first four characters go last
		if isDigit(c) {
			r = (r*10 + int(c-'0')) % 97
		} else {
			r = (r*100 + int(c-'A'+10)) % 97
		}
	}
	return r == 1
}

// glued says whether a run of digits (or an IBAN) preceded by c is part of
// a larger token (an id such as cus_123, a word, a path, a decimal) rather
// than a value of its own.
func glued(c byte) bool {
	return isAlnum(c) || strings.IndexByte("_-./:@#$%&=+\\", c) >= 0
}

// numberRun is a run of digits in groups: an optional '+', digit groups
// separated by one space, '-' or '.', and at most one group in
// parentheses.
type numberRun struct {
	start, end int
	digits     int
	plus       bool
	parens     bool
	// seps has one bit per separator used between groups (space, '-',
	// '.'); the space or '-' after a parenthesised group is not counted.
	seps uint8
	// groups are the lengths of the digit groups (the parenthesised one
	// included), the first maxGroups of them; ngroups counts them all.
	groups  [maxGroups]int
	ngroups int
}

const maxGroups = 8

// scanNumberRun reads the numberRun starting at s[i] ('+', '(' or a digit).
func scanNumberRun(s string, i int) numberRun {
	r := numberRun{start: i, end: i}
	if s[i] == '+' {
		r.plus = true
		i++
	}
	for i < len(s) {
		n, j := 0, i
		paren := s[i] == '('
		if paren {
			if r.parens {
				break
			}
			j++
		}
		for j < len(s) && isDigit(s[j]) {
			j++
			n++
		}
		if n == 0 || (paren && (j >= len(s) || s[j] != ')')) {
			break
		}
		if paren {
			j++
			r.parens = true
		}
		if r.ngroups < maxGroups {
			r.groups[r.ngroups] = n
		}
		r.ngroups++
		r.digits += n
		r.end = j
		// One separator, then the next group.
		if j+1 >= len(s) || !(isDigit(s[j+1]) || s[j+1] == '(') {
			break
		}
		switch s[j] {
		case ' ':
			if !paren {
				r.seps |= 1
			}
		case '-':
			if !paren {
				r.seps |= 2
			}
		case '.':
			r.seps |= 4
		default:
			if paren && isDigit(s[j]) {
				i = j
				continue
			}
			return r
		}
		i = j + 1
	}
	return r
}

// gluedAfter says whether the run ending before s[end] continues into a
// larger token: a word, an address, a decimal or thousands part
// ("1 234,56"), a time ("…15 12:30").
func gluedAfter(s string, end int) bool {
	if end >= len(s) {
		return false
	}
	c := s[end]
	if isAlnum(c) || strings.IndexByte("_@/%\\", c) >= 0 {
		return true
	}
	return end+1 < len(s) && strings.IndexByte(".,-:+", c) >= 0 && isAlnum(s[end+1])
}

// findNumber returns the first run at or after from that accept takes.
// A run glued to what is around it is skipped whole, so no part of an id
// or an amount is taken for a number of its own.
func findNumber(s string, from int, accept func(s string, r numberRun) bool) (int, int) {
	for i := from; i < len(s); i++ {
		c := s[i]
		if !isDigit(c) && c != '+' && c != '(' {
			continue
		}
		if i > 0 && glued(s[i-1]) && !(c == '+' && (s[i-1] == ':' || s[i-1] == '=')) {
			for i+1 < len(s) && isDigit(s[i+1]) {
				i++
			}
			continue
		}
		r := scanNumberRun(s, i)
		if r.ngroups == 0 {
			continue
		}
		if !gluedAfter(s, r.end) && accept(s, r) {
			return r.start, r.end
		}
		i = r.end - 1
	}
	return -1, -1
}

// findCard finds a payment card number: 13 to 19 digits, the first 2 to 6
// (the card schemes' ranges, which keeps out unix times in milliseconds),
// compact or grouped as cards are printed (cardGroups), that pass the Luhn
// check.
func findCard(s string, from int) (int, int) {
	return findNumber(s, from, func(s string, r numberRun) bool {
		if r.plus || r.parens || r.digits < minCardDigits || r.digits > maxCardDigits ||
			s[r.start] < '2' || s[r.start] > '6' {
			return false
		}
		if r.ngroups > 1 && !cardGroups(r) {
			return false
		}
		return luhn(s[r.start:r.end])
	})
}

// cardGroups says whether a grouped run is grouped as cards are printed
// (4-4-4-4, 4-6-5, 4-4-4-4-3, …): one kind of separator, spaces or dashes,
// a first group of four, the others of four to six but the last, of three
// to six.
func cardGroups(r numberRun) bool {
	if r.groups[0] != 4 || (r.seps != 1 && r.seps != 2) || r.ngroups > maxGroups {
		return false
	}
	for k := 1; k < r.ngroups; k++ {
		if g := r.groups[k]; g > 6 || g < 3 || (g == 3 && k < r.ngroups-1) {
			return false
		}
	}
	return true
}

// luhn applies the Luhn check to the digits of s (other bytes are skipped).
func luhn(s string) bool {
	sum, double := 0, false
	for i := len(s) - 1; i >= 0; i-- {
		if !isDigit(s[i]) {
			continue
		}
		d := int(s[i] - '0')
		if double {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}

// findPhone finds a phone number. With '+' (E.164, maybe grouped, maybe
// "(0)"): 8 to 15 digits. Without, grouped: a national number in at least
// two groups, one kind of separator, 9 to 12 digits (15 after 00), every
// group of two digits or more but a leading one ("1-800-…"), and not
// shaped like a grouped amount ("1 234 567 890") or an IPv4 address.
// Without, bare: a run of digits only when libphonenumber's metadata says
// it is a valid number (bareNumberIsPhone), since a bare run is an id, an
// amount or a timestamp far more often.
func findPhone(s string, from int) (int, int) {
	return findNumber(s, from, func(s string, r numberRun) bool {
		if r.plus {
			return r.digits >= minPhoneDigits && r.digits <= maxPhoneDigits
		}
		if r.ngroups == 1 && !r.parens {
			return bareNumberIsPhone(s[r.start:r.end])
		}
		maxDigits := maxNationalDigits
		if strings.HasPrefix(s[r.start:], "00") {
			maxDigits = maxPhoneDigits
		}
		if r.ngroups < 2 || r.ngroups > maxGroups || r.digits < minNationalDigits || r.digits > maxDigits {
			return false
		}
		if r.seps&(r.seps-1) != 0 { // more than one kind
			return false
		}
		thousands, ipv4 := !r.parens && r.groups[0] <= 3, r.seps == 4 && r.ngroups == 4
		for k := 1; k < r.ngroups; k++ {
			if r.groups[k] < 2 {
				return false
			}
			thousands = thousands && r.groups[k] == 3
			ipv4 = ipv4 && r.groups[k] <= 3
		}
		return !thousands && !(ipv4 && r.groups[0] <= 3)
	})
}
