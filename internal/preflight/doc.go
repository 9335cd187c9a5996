// Package preflight holds the tests of .ci/preflight, the check `make
// test` runs before its long steps: what it installs as root with apt-get,
// and the command it names, at once, where it cannot. It has no non-test
// code beyond this comment.
package preflight
