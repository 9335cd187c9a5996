package embedded

import (
	"sync/atomic"
	"time"
)

// compactionShare is the share of one core a compaction takes while
// commits are being made. A compaction of a large store encodes all of
// it: left to run flat out, on a machine of two cores it takes one of
// them from the requests for as long as that lasts, and every request in
// that time waits about twice as long. Paced, it takes longer and the
// requests beside it barely notice.
const compactionShare = 0.25

// paceSlice is how long a compaction works before it may pause.
const paceSlice = time.Millisecond

// busyWindow is how recent a commit must be for a compaction to yield to
// the commits: a store nobody writes to beside it compacts at full speed.
const busyWindow = 100 * time.Millisecond

// pacer keeps a compaction to share of a core while the store is busy.
// The compaction calls step after every document; step sleeps when the
// current slice of work is over and a commit came within busyWindow
// since the compaction began (not the commit that set it off), long
// enough that work is share of the time, and never once hurry is set
// (Close waits for the compaction, and nothing else commits then).
type pacer struct {
	share float64
	slice time.Duration
	now   func() time.Time
	sleep func(time.Duration)
	// lastCommit is the newest commit's time (Unix nanoseconds).
	lastCommit *atomic.Int64
	hurry      *atomic.Bool
	// paused adds up the pauses (nanoseconds).
	paused *atomic.Int64

	began int64     // the compaction's first step (Unix nanoseconds)
	start time.Time // of the current slice of work
}

// newPacer paces by the wall clock with the package's share and slice.
func newPacer(lastCommit *atomic.Int64, hurry *atomic.Bool, paused *atomic.Int64) *pacer {
	return &pacer{share: compactionShare, slice: paceSlice, now: time.Now, sleep: time.Sleep,
		lastCommit: lastCommit, hurry: hurry, paused: paused}
}

// step is called after each unit of work.
func (p *pacer) step() {
	now := p.now()
	if p.start.IsZero() { // the first step: the compaction begins
		p.start, p.began = now, now.UnixNano()
		return
	}
	worked := now.Sub(p.start)
	if worked < p.slice {
		return
	}
	// A slice the scheduler stretched (the goroutine waited for a core)
	// does not buy a pause of its whole length.
	worked = min(worked, 10*p.slice)
	last := p.lastCommit.Load()
	if !p.hurry.Load() && last >= p.began && now.UnixNano()-last < int64(busyWindow) {
		rest := time.Duration(float64(worked) * (1 - p.share) / p.share)
		p.sleep(rest)
		p.paused.Add(int64(rest))
		now = p.now()
	}
	p.start = now
}
