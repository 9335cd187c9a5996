package provider_test

import (
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/streamops/streamops/internal/jsonbody"
	"github.com/streamops/streamops/internal/provider"
)

// FuzzVerifySignatureHeaders signs a body the way each configured scheme
// does (stripe, github, standard, hmac), then sets one header to fuzzed
// text: one the sender signed, or one of either Standard Webhooks header
// family (webhook-*, svix-*), so families get mixed. The high bit of which
// sends the standard headers under their svix-* names first, as Svix does.
// Verify never panics, and every rejection is one of the sender's faults (a
// 401), never ours.
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
		f.Add(uint8(2), uint8(0x80), seed, []byte(`{"type":"contact.created"}`))
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
		h = h.Clone()
		if which&0x80 != 0 {
			for _, name := range standardNames {
				if v := h.Get("webhook-" + name); v != "" {
					h.Del("webhook-" + name)
					h.Set("svix-"+name, v)
				}
			}
		}
		set := maps.Clone(h)
		for _, name := range standardNames {
			set.Set("webhook-"+name, "")
			set.Set("svix-"+name, "")
		}
		keys := slices.Sorted(maps.Keys(set))
		h.Set(keys[int(which&0x7f)%len(keys)], value)
		err = p.Verify(http.Header(h), body, []string{secret}, now)
		if err != nil && !errors.Is(err, provider.ErrMissingSignature) && !errors.Is(err, provider.ErrInvalidSignature) && !errors.Is(err, provider.ErrStaleTimestamp) {
			t.Fatalf("%s: header %s=%q: %v is not a 401 kind", p.Name, keys[int(which&0x7f)%len(keys)], value, err)
		}
	})
}

// standardNames are the three Standard Webhooks headers, after their
// webhook- or svix- prefix.
var standardNames = []string{"id", "timestamp", "signature"}

// FuzzDocument reads fuzzed bodies under fuzzed content types as each
// provider's document (a GitHub form's payload field among them): Document
// never panics, a document it returns is one JSON value, and every refusal
// is the sender's fault (a 400: ErrInvalidPayload or jsonbody.ErrInvalid).
func FuzzDocument(f *testing.F) {
	reg, err := provider.LoadProviders("")
	if err != nil {
		f.Fatal(err)
	}
	names := reg.Names()
	const form = "application/x-www-form-urlencoded"
	for _, seed := range []struct{ contentType, body string }{
		{form, "payload=%7B%22ref%22%3A%22main%22%7D"}, {form + "; charset=utf-8", "payload=%7B%7D&payload=%7B%7D"},
		{form, "payload=%zz"}, {form, "a=1;payload=1"}, {form, "payload="}, {"application/json", `{"a":1,"a":2}`},
		{"multipart/form-data; boundary=x", "payload={}"}, {"application/x-www-form-urlencoded;;", "payload={}"},
		// Nested past jsonbody.MaxDepth, as JSON and as a form's payload.
		{"application/json", strings.Repeat(`{"a":`, 65) + "1" + strings.Repeat("}", 65)},
		{form, "payload=" + strings.Repeat("%5B", 65) + strings.Repeat("%5D", 65)},
	} {
		f.Add(uint8(1), seed.contentType, []byte(seed.body))
	}
	f.Fuzz(func(t *testing.T, pick uint8, contentType string, body []byte) {
		p, ok := reg.Provider(names[int(pick)%len(names)])
		if !ok {
			t.Fatal("provider vanished")
		}
		h := http.Header{}
		h.Set("Content-Type", contentType)
		doc, err := p.Document(h, body)
		if err != nil {
			if !errors.Is(err, provider.ErrInvalidPayload) && !errors.Is(err, jsonbody.ErrInvalid) {
				t.Fatalf("%s: Content-Type %q body %q: %v is not a 400 kind", p.Name, contentType, body, err)
			}
			return
		}
		if !json.Valid(doc) {
			t.Fatalf("%s: Content-Type %q body %q: document %q is not JSON", p.Name, contentType, body, doc)
		}
	})
}
