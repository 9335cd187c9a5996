// Package conformance keeps docs/conformance.md true: it reads the tests
// the table cites and resolves each one in the source of the package it
// names, so a test renamed, removed, put behind a build tag that make test
// does not pass, or skipped unconditionally fails TestConformanceTableCitesTestsThatRun.
//
// Names are resolved statically, from the _test.go files (and the
// non-test files of the module they call into, such as
// internal/store/storetest): a top-level name is a func TestX(t
// *testing.T); a subtest is a t.Run whose name is a string literal, a
// field of a table the test ranges over, or fmt.Sprint/Sprintf/+ over
// those, evaluated as the testing package would name it (spaces become
// underscores). A path element ending in "…" matches a unique prefix. It
// imports nothing of the project, so it never stands in the way of a
// change elsewhere.
package conformance
