package provider_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/provider"
)

// fixtureDir holds real-looking provider payloads, named <provider>-<event>.json.
const fixtureDir = "../../testdata/webhooks"

// now is the verifier's clock in every test.
var now = time.Date(2025, 1, 15, 0, 10, 0, 0, time.UTC)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(fixtureDir, name))
	require.NoError(t, err)
	return raw
}

// defaultProvider is a provider of the embedded providers.json.
func defaultProvider(t testing.TB, name string) *provider.Provider {
	t.Helper()
	reg, err := provider.LoadProviders("")
	require.NoError(t, err)
	p, ok := reg.Provider(name)
	require.True(t, ok, "provider %s", name)
	return p
}

// configured is p as a registry of it alone configures it: validated,
// with its defaults applied.
func configured(t testing.TB, p provider.Provider) *provider.Provider {
	t.Helper()
	reg, err := provider.NewRegistry(provider.Config{Providers: []provider.Provider{p}})
	require.NoError(t, err)
	got, ok := reg.Provider(p.Name)
	require.True(t, ok, "provider %s", p.Name)
	return got
}

// verifyCase is one row of a scheme's verification table: the fixture is
// signed with signWith at signedAt, then tamper may change the headers and
// body before Verify runs with secrets at now.
type verifyCase struct {
	name     string
	signWith string
	signedAt time.Time
	secrets  []string
	tamper   func(h http.Header, body []byte) []byte
	wantErr  error  // a sentinel, nil for success
	reason   string // a substring of the error message
}

// rotation is the secrets of a scheme's table: the current one, the
// previous one still active while the sender rotates, and an attacker's.
type rotation struct{ current, previous, other string }

// commonCases are the rows every scheme's table starts with: the current
// and the previous secret verify; a wrong secret and a tampered body fail
// with noMatch (the scheme's words for a signature no secret matches) in
// the reason; a delivery without the signature header fails naming it.
func commonCases(r rotation, header, noMatch string) []verifyCase {
	return []verifyCase{
		{name: "valid", signWith: r.current, secrets: []string{r.current}},
		{name: "rotated: signed with the previous secret, both active", signWith: r.previous, secrets: []string{r.current, r.previous}},
		{name: "wrong secret", signWith: r.other, secrets: []string{r.current, r.previous},
			wantErr: provider.ErrInvalidSignature, reason: noMatch},
		{name: "tampered body", signWith: r.current, secrets: []string{r.current}, tamper: tamperBody,
			wantErr: provider.ErrInvalidSignature, reason: noMatch},
		{name: "missing header", signWith: r.current, secrets: []string{r.current}, tamper: dropHeader(header),
			wantErr: provider.ErrMissingSignature, reason: fmt.Sprintf("header %q is absent or empty", header)},
	}
}

// runVerifyTable signs delivery (a fixture's content, or a body of the
// test's own) as p's sender would and checks each case.
func runVerifyTable(t *testing.T, p *provider.Provider, delivery []byte, opts provider.SignOptions, cases []verifyCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := append([]byte(nil), delivery...)
			o := opts
			o.Now = tc.signedAt
			if o.Now.IsZero() {
				o.Now = now
			}
			h, err := p.Sign(body, tc.signWith, o)
			require.NoError(t, err)
			if tc.tamper != nil {
				body = tc.tamper(h, body)
			}

			err = p.Verify(h, body, tc.secrets, now)
			if tc.wantErr == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tc.wantErr)
			var serr *provider.SignatureError
			require.ErrorAs(t, err, &serr)
			assert.Equal(t, p.Name, serr.Provider)
			assert.Contains(t, err.Error(), tc.reason)
			for _, s := range tc.secrets {
				if s == "" {
					continue
				}
				assert.NotContains(t, err.Error(), s, "an error must never quote a secret")
			}
		})
	}
}

// tamperBody flips the body as an attacker changing an amount would.
func tamperBody(_ http.Header, body []byte) []byte {
	out := append([]byte(nil), body...)
	out[len(out)/2] ^= 0x01
	return out
}

// dropHeader removes a header the scheme needs.
func dropHeader(name string) func(http.Header, []byte) []byte {
	return func(h http.Header, body []byte) []byte {
		h.Del(name)
		return body
	}
}

// setHeader replaces a header with a crafted value.
func setHeader(name, value string) func(http.Header, []byte) []byte {
	return func(h http.Header, body []byte) []byte {
		h.Set(name, value)
		return body
	}
}
