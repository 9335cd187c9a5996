// Package deadline answers the one question every scheduled function asks
// before taking more work: is there time left before the invocation's
// deadline, keeping a safety margin to finish what is in flight, and has
// the runtime not asked the invocation to wind down? Sleep waits within
// the same bounds.
//
// What must not live here: what to do when time runs out (each caller
// decides).
package deadline
