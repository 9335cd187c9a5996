package outbox_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/streamops/streamops/internal/outbox"
)

// TestBodyExcerptKeepsTheFirstKiBAsValidText: the delivery log keeps the
// first KiB of a partner's answer as it came when it is text, but for the
// personal data it quotes (replaced, even where the KiB's end cuts one),
// cut before a rune the KiB boundary split, and shows binary as hex,
// always valid UTF-8 within 1024 bytes.
func TestBodyExcerptKeepsTheFirstKiBAsValidText(t *testing.T) {
	kib := strings.Repeat("a", 1024)
	cut := strings.Repeat("x", 1013) + " " // 1014 bytes: what follows crosses the KiB's end
	tests := []struct {
		name string
		body []byte
		want string
	}{
		{"empty", nil, ""},
		{"short JSON", []byte(`{"error":"gone"}`), `{"error":"gone"}`},
		{"tabs and newlines are text", []byte("line 1\n\tline 2\r\n"), "line 1\n\tline 2\r\n"},
		{"exactly 1024 bytes", []byte(kib), kib},
		{"5000 bytes: the first 1024", []byte(strings.Repeat("b", 5000)), strings.Repeat("b", 1024)},
		{"a 3-byte rune across byte 1024 is dropped", []byte(strings.Repeat("a", 1022) + "€" + "tail"), strings.Repeat("a", 1022)},
		{"a 4-byte rune ending at byte 1024 is kept", []byte(strings.Repeat("a", 1020) + "😀" + "tail"), strings.Repeat("a", 1020) + "😀"},
		{"multi-byte text under a KiB", []byte("Größe überschritten"), "Größe überschritten"},
		{"binary (PNG header)", []byte{0x89, 'P', 'N', 'G', 0x0d, 0x0a, 0x1a, 0x0a}, "binary, 8 bytes read, hex: 89504e470d0a1a0a"},
		{"a NUL makes it binary", []byte("ok\x00"), "binary, 3 bytes read, hex: 6f6b00"},
		{"invalid UTF-8 in the middle", []byte("ab\xffcd"), "binary, 5 bytes read, hex: 6162ff6364"},
		{"personal data is replaced", []byte(`{"to":"jane.doe@example.com","tel":"+44 20 7946 0958","card":"4242 4242 4242 4242","iban":"DE89 3704 0044 0532 0130 00"}`),
			`{"to":"[redacted:email]","tel":"[redacted:phone]","card":"[redacted:card]","iban":"[redacted:iban]"}`},
		{"an email the KiB's end cuts is not half shown", []byte(cut + "jane.doe@example.com and more"), cut + "[redacted:"},
		{"a card the KiB's end cuts is not half shown", []byte(cut + "4242 4242 4242 4242"), cut + "[redacted:"},
		{"a long binary body: hex of the first 480 bytes", append([]byte{0xff}, make([]byte, 2000)...),
			"binary, 1024 bytes read, hex: ff" + strings.Repeat("00", 479) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := outbox.BodyExcerpt(tt.body)
			assert.Equal(t, tt.want, got)
			assert.True(t, utf8.ValidString(got))
			assert.LessOrEqual(t, len(got), 1024)
		})
	}
}
