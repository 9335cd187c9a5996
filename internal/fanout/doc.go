// Package fanout turns every stored event into the outbox entries of the
// partners whose subscriptions select it (issue 35): the store calls it
// through store.FanOut after each events insert, the retry-sweeper for
// the events it publishes late. Who subscribes to what is the partner
// directory's (Directory; Over adapts outbox.PartnerDirectory, Cached
// bounds its reads), read for every batch of events so
// a subscription changed at run time applies at once; the compiled
// matchers are kept while a partner's subscriptions stay the same.
//
// Ids are derived from the event and the partner
// (store.SubscriptionOutboxID), so a re-emit, a replay or a retry never
// enqueues a second delivery. Delivering is the relay's: this package
// only decides who gets what, and must not send anything.
package fanout
