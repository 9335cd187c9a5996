package pii_test

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/streamops/streamops/internal/pii"
)

// BenchmarkScrub scrubs a realistic Stripe webhook (invoice.finalized,
// with a customer's email, name, phone, address and tax id) beside its
// baselines in the same run: decoding it (what any reader of the payload
// pays) and decoding and encoding it again (what the key-only redaction
// this replaced did). "clean" is the store's second pass over a payload
// the webhook path scrubbed already.
func BenchmarkScrub(b *testing.B) {
	body, err := os.ReadFile("../../testdata/webhooks/stripe-invoice-finalized.json")
	if err != nil {
		b.Fatal(err)
	}
	clean, err := pii.Scrub(body)
	if err != nil {
		b.Fatal(err)
	}
	scrub := func(b *testing.B, doc []byte) {
		if _, err := pii.Scrub(doc); err != nil {
			b.Fatal(err)
		}
	}
	runs := []struct {
		name string
		doc  []byte
		op   func(b *testing.B, doc []byte)
	}{
		{"baseline=decode", body, func(b *testing.B, doc []byte) { decode(b, doc) }},
		{"baseline=decode+encode", body, func(b *testing.B, doc []byte) {
			if _, err := json.Marshal(decode(b, doc)); err != nil {
				b.Fatal(err)
			}
		}},
		{"scrub", body, scrub},
		{"scrub-clean", clean, scrub},
	}
	for _, r := range runs {
		b.Run(r.name, func(b *testing.B) {
			b.SetBytes(int64(len(r.doc)))
			b.ReportAllocs()
			for b.Loop() {
				r.op(b, r.doc)
			}
		})
	}
}

// decode reads doc as any reader of the payload does.
func decode(b *testing.B, doc []byte) any {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		b.Fatal(err)
	}
	return v
}
