package vault_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/streamops/streamops/internal/store"
	"github.com/streamops/streamops/internal/store/storetest"
	"github.com/streamops/streamops/internal/vault"
)

// BenchmarkProtect is what the vault adds to a document on the engine
// the tests run on: nothing personal (the detector's walk alone), a
// person seen within SubjectCache (no store command), and a new person
// each time (a read, an insert, a key pair and its wrapping).
func BenchmarkProtect(b *testing.B) {
	st := storetest.Open(b, store.Config{})
	v, err := vault.NewInMemory(st)
	require.NoError(b, err)
	cases := []struct {
		name string
		doc  func(i int) []byte
	}{
		{"nothing-personal", func(i int) []byte {
			return fmt.Appendf(nil, `{"orderId":%d,"status":"OR_PLC","lines":[{"sku":"ACME-ANVIL-10","quantity":2,"unitPrice":49.95}]}`, i)
		}},
		{"person-seen-again", func(i int) []byte {
			return fmt.Appendf(nil, `{"orderId":%d,"customer":{"email":"grace.hopper@example.com","phone":"+15555550777","lastName":"Hopper"}}`, i)
		}},
		{"new-person-each-time", func(i int) []byte {
			return fmt.Appendf(nil, `{"orderId":%d,"customer":{"email":"c%d@example.com","phone":"+15555550777","lastName":"Hopper"}}`, i, i)
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			start := st.Commands()
			i := 0
			for b.Loop() {
				if _, err := v.Protect(ctx, vault.Input{Doc: c.doc(i)}); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(st.Commands()-start)/float64(i), "commands/doc")
		})
	}
}
