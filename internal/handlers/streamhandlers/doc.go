// Package streamhandlers builds the handlers of the two MSK-triggered functions,
// workflow-processor and task-processor, from the process's clients (an
// app.App). It is package handlers's other half, apart so that the processors'
// bootstraps link only the stream core and their domain service: package
// handlers imports every function's dependencies (the HTTP API, the console,
// the outbox, the sweeper), and each imported package's initialisation and
// data land in every binary that imports it.
//
// What must not live here: domain logic, reading the environment, and any
// import the processors do not call (package handlers's
// TestFunctionsLinkOnlyWhatTheyCall guards it).
package streamhandlers
