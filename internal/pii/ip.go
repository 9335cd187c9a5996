package pii

import (
	"net/netip"
	"strings"
)

// findIP finds an IP address, IPv4 in dotted quads ("203.0.113.7", a port
// may follow) or IPv6 ("2001:db8::1", "::ffff:203.0.113.7"), that a
// person could be reached or located by: a global unicast address. Loopback,
// unspecified, link-local, multicast and private-range addresses (10/8,
// 172.16/12, 192.168/16, fc00::/7) and the reserved 0/8 and 240/4 (which
// netmasks such as 255.255.255.0 fall in) are a machine's, not a
// person's, and are left alone. A dotted quad glued to a word or more
// dots ("v1.2.3.4", "1.2.3.4.5") is a version, "12:34:56" a time, and
// hex words without a digit around colons ("a::b") code.
func findIP(s string, from int) (int, int) {
	for i := from; i < len(s); i++ {
		c := s[i]
		if !isHex(c) && c != ':' {
			continue
		}
		if i > 0 && (isAlnum(s[i-1]) || strings.IndexByte("._-:/\\", s[i-1]) >= 0) {
			for i+1 < len(s) && (isHex(s[i+1]) || s[i+1] == ':' || s[i+1] == '.') {
				i++
			}
			continue
		}
		end := i
		for end < len(s) && (isHex(s[end]) || s[end] == ':' || s[end] == '.') {
			end++
		}
		if e := ipv4At(s, i); e > 0 {
			return i, e
		}
		if e := ipv6At(s, i, end); e > 0 {
			return i, e
		}
		i = end - 1
	}
	return -1, -1
}

func isHex(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// ipv4At returns the end of the personal IPv4 address at s[i], or -1.
func ipv4At(s string, i int) int {
	var oct [4]int
	j := i
	for k := 0; k < 4; k++ {
		if k > 0 {
			if j >= len(s) || s[j] != '.' {
				return -1
			}
			j++
		}
		n, v := 0, 0
		for j < len(s) && isDigit(s[j]) && n < 4 {
			v = v*10 + int(s[j]-'0')
			j++
			n++
		}
		if n == 0 || n > 3 || v > 255 {
			return -1
		}
		oct[k] = v
	}
	if j < len(s) && (isAlnum(s[j]) || s[j] == '_' || (s[j] == '.' || s[j] == '-') && j+1 < len(s) && isAlnum(s[j+1])) {
		return -1
	}
	a := netip.AddrFrom4([4]byte{byte(oct[0]), byte(oct[1]), byte(oct[2]), byte(oct[3])})
	if !personalAddr(a) || oct[0] == 0 || oct[0] >= 240 {
		return -1
	}
	return j
}

// ipv6At returns the end of the personal IPv6 address in s[i:end] (a
// sentence's full stop or a port's colon may follow it), or -1.
func ipv6At(s string, i, end int) int {
	for end > i && (s[end-1] == '.' || s[end-1] == ':' && (end-2 < i || s[end-2] != ':')) {
		end--
	}
	t := s[i:end]
	// Hex words around colons ("a::b", "dead::beef") are code far more
	// often than an address, which has digits.
	if strings.Count(t, ":") < 2 || strings.IndexAny(t, "0123456789") < 0 ||
		end < len(s) && (isAlnum(s[end]) || s[end] == '_') {
		return -1
	}
	a, err := netip.ParseAddr(t)
	if err != nil || !a.Is6() || !personalAddr(a.Unmap()) {
		return -1
	}
	return end
}

// personalAddr says whether a is an address a person's device could have
// on the internet.
func personalAddr(a netip.Addr) bool {
	return a.IsGlobalUnicast() && !a.IsPrivate()
}
