// Package handlers builds the handler of each HTTP and scheduled function from the
// process's clients (an app.App) and the few settings that differ between a
// Lambda and the local stack: where providers, secrets, partners, exports
// and task backends come from. The Lambda mains under functions/ and the
// local stack (internal/local) both build their handlers here, so the two
// cannot be wired differently. The two MSK processors are wired in
// streamhandlers, apart, so that their bootstraps do not link what this package
// imports for the others (TestFunctionsLinkOnlyWhatTheyCall).
//
// What must not live here: domain logic, reading the environment (package
// app and the mains).
package handlers
