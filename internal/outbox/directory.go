package outbox

import "context"

// PartnerDirectory gives the relay the partners as they are now: the
// relay reads it once per claimed batch, so a partner created, changed or
// disabled at run time is seen by the next batch, without a restart.
type PartnerDirectory interface {
	// Partners are the partner endpoints by id (target_provider). An
	// error defers the batch: its claims lapse with their lease.
	Partners(ctx context.Context) (map[string]Partner, error)
}

// StaticPartners is a fixed set of partners: the partners file, tests.
type StaticPartners map[string]Partner

// Partners returns the set itself.
func (s StaticPartners) Partners(context.Context) (map[string]Partner, error) { return s, nil }
