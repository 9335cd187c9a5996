// Package wire builds the handler of each of the seven functions from the
// process's clients (an app.App) and the few settings that differ between a
// Lambda and the local stack: where providers, secrets, partners, exports
// and task backends come from. The Lambda mains under functions/ and the
// local stack (internal/local) both build their handlers here, so the two
// cannot be wired differently.
//
// What must not live here: domain logic, reading the environment (package
// app and the mains).
package wire
