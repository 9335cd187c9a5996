package provider

import "net/url"

// URLRedacted stands in for a credential of a delivery URL (RedactURL).
const URLRedacted = "REDACTED"

// RedactURL is a delivery URL without what may be a credential: the user
// information (https://user:password@…) and every query value
// (?api_key=…) become URLRedacted, the fragment is dropped. Scheme, host
// and path stay, so an operator can tell which endpoint it is. A URL that
// does not parse, or has no host, is "": it is not shown at all. The API
// shows partners' URLs through it, and partner request spans carry it as
// url.full.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	if u.User != nil {
		u.User = url.User(URLRedacted)
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			for i := range q[k] {
				q[k][i] = URLRedacted
			}
		}
		u.RawQuery = q.Encode()
	}
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}
