// Package app builds, once per process (a Lambda cold start), the clients
// every function shares: the store, the Kafka producer, the emitter, the
// structured logger and the EMF metrics recorder, all from the environment.
// Function mains call Open, then wire their service and adapter.
//
// What must not live here: a function's own handler (package wire), domain
// logic of any kind.
package app
