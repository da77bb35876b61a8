// Package testenv finds the external tools tests check against
// (callgrind_annotate, dot, chromium, groff, perf, sshd…) and opens
// pseudo-terminals (OpenPTY). Without one, a test skips on a developer's
// machine but fails under CI (the CI environment variable set), where
// scripts/install-deps installs the tools: CI must not pass by skipping.
// Only tests import it.
//
// # What it must never import
//
// Only the standard library: any test of any package may import it.
package testenv
