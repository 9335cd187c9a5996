// Package partner holds the shapes of a partner kept in the store as the
// registry (package partners) takes and shows them: what a partner is
// created and changed with, how it is shown without its secrets, and the
// secrets shown once; and Subscriptions, fan-out's read of who subscribes
// to what. It imports nothing of the delivery path, so the API and the
// functions that fan events out can speak of partners without linking
// the relay.
package partner
