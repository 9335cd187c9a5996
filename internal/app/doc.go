// Package app builds, once per process (a Lambda cold start), the clients
// every function shares: the store, the Kafka producer, the emitter, the
// structured logger and the EMF metrics recorder, all from the environment.
// Function mains call Start with the function's name and what builds its
// handler (their service wrapped in its trigger adapter); Start opens the
// App and hands the handler to the Lambda runtime.
//
// What must not live here: a function's own handler (package handlers), domain
// logic of any kind.
package app
