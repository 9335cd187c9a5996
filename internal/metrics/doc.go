// Package metrics writes CloudWatch Embedded Metric Format (EMF) records:
// one JSON line per flush on stdout, which Lambda ships to CloudWatch Logs
// and CloudWatch turns into metrics without an API call on the hot path.
// Locally the lines are just structured logs.
//
// What must not live here: which metrics a function records (its own package
// decides), alarms (infra/).
package metrics
