package provider_test

import (
	"errors"
	"maps"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/streamops/streamops/internal/provider"
)

// FuzzVerifySignatureHeaders signs a body the way each configured scheme
// does (stripe, github, standard, hmac), then replaces one signature
// header with fuzzed text: Verify never panics, and every rejection is one
// of the sender's faults (a 401), never ours.
func FuzzVerifySignatureHeaders(f *testing.F) {
	reg, err := provider.LoadProviders("")
	if err != nil {
		f.Fatal(err)
	}
	names := reg.Names()
	secret := "whsec_c3RyZWFtb3BzLWZ1enotc2VjcmV0"
	now := time.Unix(1_795_000_000, 0)
	for _, seed := range []string{"", "t=1795000000,v1=00", "sha256=zz", "v1,AAAA v1,", "msg_1", "1795000000", "t=,v1=", "v1=" + string(make([]byte, 64))} {
		f.Add(uint8(0), uint8(0), seed, []byte(`{"id":"evt_1","type":"invoice.paid"}`))
	}
	f.Fuzz(func(t *testing.T, pick, which uint8, value string, body []byte) {
		p, ok := reg.Provider(names[int(pick)%len(names)])
		if !ok {
			t.Fatal("provider vanished")
		}
		h, err := p.Sign(body, secret, provider.SignOptions{ID: "msg_fuzz", EventType: "push", Now: now})
		if err != nil {
			return // Sign refuses what it cannot sign (a body Identify cannot read)
		}
		keys := slices.Sorted(maps.Keys(h))
		if len(keys) == 0 {
			return
		}
		h = h.Clone()
		h.Set(keys[int(which)%len(keys)], value)
		err = p.Verify(http.Header(h), body, []string{secret}, now)
		if err != nil && !errors.Is(err, provider.ErrMissingSignature) && !errors.Is(err, provider.ErrInvalidSignature) && !errors.Is(err, provider.ErrStaleTimestamp) {
			t.Fatalf("%s: header %s=%q: %v is not a 401 kind", p.Name, keys[int(which)%len(keys)], value, err)
		}
	})
}
