package local

import "runtime/debug"

// DefaultGCPercent is the garbage collector's target (GOGC) a local stack
// on the embedded engine runs with when GOGC is not set. The embedded
// engine holds the data in the heap and every collection marks all of
// it, so on a full store Go's default of 100 spends a large share of the
// CPU marking the same documents again; collecting half as often costs
// a third more memory. GOMEMLIMIT still caps the heap when set.
const DefaultGCPercent = 200

// TuneCollector sets the process's collector for a stack of cfg, as
// `streamops run` and `streamops soak` do: DefaultGCPercent on the
// embedded engine (no MongoURI) unless cfg.GOGC is set, which Go has
// applied itself; otherwise it leaves the collector alone. It returns
// the percent now in effect and a func that puts back the one before.
func TuneCollector(cfg Config) (percent int, restore func()) {
	old := debug.SetGCPercent(DefaultGCPercent)
	if cfg.MongoURI != "" || cfg.GOGC != "" {
		debug.SetGCPercent(old)
		return old, func() {}
	}
	return DefaultGCPercent, func() { debug.SetGCPercent(old) }
}
