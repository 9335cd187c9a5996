// Package capacity is the capacity model: what StreamOps needs on AWS at
// a target webhook rate (partitions, Lambda concurrency, pollers, API
// Gateway headroom, MongoDB writes and storage, MSK brokers) and what a
// million webhooks cost, computed line by line from the measured
// constants of one make bench run (docs/capacity/constants.json,
// Constants) and AWS's published quotas and prices (Published), each
// with its source or marked as an assumption. Markdown renders
// docs/capacity.md, which internal/cmd/capacity writes and a test keeps
// from drifting.
//
// What must not live here: measuring (make bench measures; benchtable
// writes the constants file), and anything a function links.
package capacity
