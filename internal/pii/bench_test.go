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
	b.Run("baseline=decode", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			dec := json.NewDecoder(bytes.NewReader(body))
			dec.UseNumber()
			var v any
			if err := dec.Decode(&v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("baseline=decode+encode", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		b.ReportAllocs()
		for b.Loop() {
			dec := json.NewDecoder(bytes.NewReader(body))
			dec.UseNumber()
			var v any
			if err := dec.Decode(&v); err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(v); err != nil {
				b.Fatal(err)
			}
		}
	})
	for name, doc := range map[string][]byte{"scrub": body, "scrub-clean": clean} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := pii.Scrub(doc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
