package testenv

import "time"

// WallNow is the time on the wall clock alone: the clock the platform
// schedules by, since due times are stored and a relay or sweeper acts
// once the wall clock has passed them. A test that measures a gap to
// compare with a schedule (seed 000's retry gaps, a Retry-After, a rate
// limit) reads this one; time.Now's differences use the monotonic
// reading, which a stepped or slewed wall clock leaves behind.
func WallNow() time.Time { return time.Now().Round(0) }
