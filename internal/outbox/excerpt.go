package outbox

import (
	"encoding/hex"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/streamops/streamops/internal/fault"
	"github.com/streamops/streamops/internal/store"
)

// excerptRead is how much of an answer body is read and scrubbed: the KiB
// shown and room past it, so a personal datum the KiB's end cuts is
// still found whole and does not show its first half.
const excerptRead = store.MaxResponseBody + 256

// readExcerpt reads the first excerptRead bytes of a partner's answer body
// and returns them as BodyExcerpt shows them.
func readExcerpt(body io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(body, excerptRead))
	return BodyExcerpt(b)
}

// binaryHexBytes is how many bytes of a binary body the excerpt shows:
// their hex and the label stay within store.MaxResponseBody.
const binaryHexBytes = 480

// BodyExcerpt is how a delivery log row, an entry's last_error and a
// delivery.dead_lettered event show the first bytes b of a partner's
// answer body: text with each personal datum replaced (fault.Scrubbed),
// at most store.MaxResponseBody bytes, cut before a rune the cut split;
// anything else (invalid UTF-8, control characters other than tab,
// newline and carriage return) is binary, shown as "binary, N bytes,
// hex: …" with the first binaryHexBytes of the first KiB, so the log
// stays valid, printable UTF-8.
func BodyExcerpt(b []byte) string {
	if len(b) > excerptRead {
		b = b[:excerptRead]
	}
	text := b
	if len(b) == excerptRead {
		text = cutSplitRune(b)
	}
	if isText(text) {
		s := fault.Scrubbed(string(text))
		if len(s) <= store.MaxResponseBody {
			return s
		}
		return string(cutSplitRune([]byte(s[:store.MaxResponseBody])))
	}
	b = b[:min(len(b), store.MaxResponseBody)]
	shown := b[:min(len(b), binaryHexBytes)]
	more := ""
	if len(shown) < len(b) {
		more = "…"
	}
	return fmt.Sprintf("binary, %d bytes read, hex: %s%s", len(b), hex.EncodeToString(shown), more)
}

// cutSplitRune drops a rune the end of b cuts in two (the read stopped in
// its middle); a complete or invalid ending is left for isText to judge.
func cutSplitRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}

// isText reports whether b is valid UTF-8 without control characters
// other than tab, newline and carriage return.
func isText(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		if (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0x7f {
			return false
		}
	}
	return true
}
