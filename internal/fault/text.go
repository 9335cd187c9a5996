package fault

import "github.com/streamops/streamops/internal/pii"

// Text is err's message as StreamOps keeps it wherever it is stored,
// published or logged: with each personal datum pii.ScrubText finds
// replaced, because an error's text quotes what came from outside (a
// partner's answer, a provider's or AWS's message, the record that
// failed). "" for nil.
func Text(err error) string {
	if err == nil {
		return ""
	}
	return Scrubbed(err.Error())
}

// Scrubbed is s, text that came from outside and is about to be kept (an
// answer body, an error's message or stack), with each personal datum
// pii.ScrubText finds replaced.
func Scrubbed(s string) string {
	out, _ := pii.ScrubText(s)
	return out
}
