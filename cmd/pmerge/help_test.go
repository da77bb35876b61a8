package main

import (
	"testing"

	"github.com/pfold/pfold/internal/cmdutil/cmdtest"
)

// TestHelpConventions: --help lists every option with its default, says
// what is read and written and ends with examples; --version, the man
// page and the shell completions are there.
func TestHelpConventions(t *testing.T) { cmdtest.CheckHelp(t, command) }
