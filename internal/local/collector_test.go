package local

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestTuneCollectorRaisesGOGCOnTheEmbeddedEngineOnly: a stack on the
// embedded engine collects at DefaultGCPercent unless GOGC says
// otherwise; one on MongoDB keeps the process's collector; restore puts
// the one before back.
func TestTuneCollectorRaisesGOGCOnTheEmbeddedEngineOnly(t *testing.T) {
	const before = 150
	for _, tc := range []struct {
		name string
		cfg  Config
		want int
	}{
		{"embedded, GOGC unset", Config{}, DefaultGCPercent},
		{"embedded, GOGC set: the environment's", Config{GOGC: "50"}, before},
		{"embedded, GOGC=off: the environment's", Config{GOGC: "off"}, before},
		{"MongoDB: the process's", Config{MongoURI: "mongodb://127.0.0.1:1/"}, before},
	} {
		t.Run(tc.name, func(t *testing.T) {
			orig := debug.SetGCPercent(before)
			defer debug.SetGCPercent(orig)
			got, restore := TuneCollector(tc.cfg)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.want, debug.SetGCPercent(tc.want), "in effect")
			restore()
			assert.Equal(t, before, debug.SetGCPercent(before), "restored")
		})
	}
}
