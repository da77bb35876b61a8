// Package cmdtest is the commands' shared test code: it checks that a
// pfold binary follows the toolkit's conventions for --help, --version,
// its man page and shell completion, runs a binary in-process (Run), and
// holds the checks every binary's tests repeat (UsageErrors,
// MemIdentical, ProgressLines). Each binary's tests call it with the binary's command
// or app constructor:
//
//	func TestHelpConventions(t *testing.T) { cmdtest.CheckHelp(t, command) }
//
// # What it must never import
//
// Of pfold's packages, only internal/cmdutil, the test fixtures of
// internal/stacktest and internal/testenv: never a command, a format or a writer, whose tests
// import it. Only tests import cmdtest.
package cmdtest
