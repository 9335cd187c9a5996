package pii

import (
	"strings"

	"github.com/nyaruka/phonenumbers"
)

// Phone numbers written as bare digits ("07911123456", "4155550123",
// "4915112345678", or a JSON number) look like ids, amounts and
// timestamps; only a number plan tells them apart. libphonenumber's
// metadata (github.com/nyaruka/phonenumbers) knows each country's number
// lengths and ranges, so a unix time in milliseconds (1655292809853: +1
// with twelve national digits) or a compact timestamp (20240615123045:
// +20 with twelve) is not valid, while a real number is. It is consulted
// only for a run already shaped like a phone number, which is rare.

const (
	// minBareIntl and maxBareIntl bound a number written in international
	// form without its '+': a country code and the national number.
	minBareIntl, maxBareIntl = 11, 15
)

// trunkRegions are the countries whose national numbers are written with
// a leading 0 (a trunk prefix) and that a bare 0… run is tried against,
// in order: those StreamOps' senders write from most.
var trunkRegions = []string{"GB", "DE", "FR", "NL", "BE", "AT", "CH", "IE", "AU", "NZ"}

// bareNumberIsPhone says whether a run of bare digits is a phone number:
//   - 00 and an international number (0049…);
//   - 0 and a national number of one of trunkRegions, 10 or 11 digits in
//     all ("07911123456", "0612345678");
//   - a North American number of ten digits ("4155550123"; never one
//     starting with 1, which unix times in seconds do);
//   - 11 to 15 digits, an international number without its '+'
//     ("4915112345678", "14155550123").
func bareNumberIsPhone(d string) bool {
	switch {
	case strings.HasPrefix(d, "00"):
		return len(d)-2 >= minBareIntl-1 && len(d)-2 <= maxBareIntl && validIntl(d[2:])
	case d[0] == '0':
		if len(d) < 10 || len(d) > 11 {
			return false
		}
		for _, r := range trunkRegions {
			if validIn(d, r) {
				return true
			}
		}
		return false
	case len(d) == 10:
		return d[0] >= '2' && validIn(d, "US")
	case len(d) >= minBareIntl && len(d) <= maxBareIntl:
		return validIntl(d)
	}
	return false
}

// validIntl says whether digits (country code first, no '+') are a valid
// international number.
func validIntl(digits string) bool { return validIn("+"+digits, "") }

// validIn says whether number is a valid phone number dialled in region.
func validIn(number, region string) bool {
	n, err := phonenumbers.Parse(number, region)
	return err == nil && phonenumbers.IsValidNumber(n)
}

// numberCategory returns the category of a JSON number that is personal
// data: an integer of 13 to 19 digits that is a card number (a scheme's
// IIN, Luhn), or of 11 to 15 that is an international phone number
// without its '+'. Amounts, ids and timestamps are numbers far more
// often, so nothing shorter and nothing else is taken.
func numberCategory(lit string) (Category, bool) {
	if len(lit) < minBareIntl || len(lit) > maxCardDigits || !allDigits(lit) {
		return "", false
	}
	if len(lit) >= minCardDigits && cardIIN(lit) && luhn(lit) {
		return CategoryCard, true
	}
	if len(lit) <= maxBareIntl && lit[0] != '0' && validIntl(lit) {
		return CategoryPhone, true
	}
	return "", false
}

// cardIIN says whether digits start with an issuer identification number
// of a card scheme: Visa 4; Mastercard 51–55 and 2221–2720; American
// Express 34, 37; Diners 300–305, 36, 38, 39; Discover 6011, 644–649,
// 65; JCB 3528–3589; UnionPay 62; Maestro 50, 56–58, 6304, 67; Mir
// 2200–2204.
func cardIIN(d string) bool {
	p := func(n int) int {
		v := 0
		for i := 0; i < n; i++ {
			v = v*10 + int(d[i]-'0')
		}
		return v
	}
	switch two := p(2); {
	case d[0] == '4':
		return true
	case two >= 51 && two <= 55, two == 34, two == 37, two == 36, two == 38, two == 39,
		two == 65, two == 62, two == 50, two >= 56 && two <= 58, two == 67:
		return true
	}
	switch four := p(4); {
	case four >= 2221 && four <= 2720, four >= 2200 && four <= 2204, four == 6011, four == 6304,
		four >= 3528 && four <= 3589:
		return true
	}
	three := p(3)
	return three >= 300 && three <= 305 || three >= 644 && three <= 649
}
