package testenv

import (
	"bytes"
	"strings"
	"sync"
)

// Output is an io.Writer a running stack or command writes while the test
// reads it: log lines, a command's stdout. A failed test prints its Tail.
type Output struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.Write(p)
}

// String is everything written so far.
func (o *Output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// Tail is the last n lines written.
func (o *Output) Tail(n int) string {
	lines := strings.Split(strings.TrimSpace(o.String()), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
