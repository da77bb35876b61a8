package cmdutil

import (
	"strings"

	"github.com/pfold/pfold/stream"
	"github.com/urfave/cli/v2"
)

// Command describes one binary. App builds its cli.App, so that a main
// holds only what is its own: its flags, its examples and what it does.
type Command struct {
	Name  string
	Usage string // what it does, in one line
	// Args is the argument part of the usage line; "" means "[FILE...]",
	// read in order, stdin for none or "-".
	Args        string
	Description string // what it reads and what it writes
	Flags       []cli.Flag
	Examples    []string // pipelines, one a line, for --help and the man page
	// Reads names what it reads ("folded stacks"), for the usage error
	// when no file is given and stdin is a terminal; "" leaves that
	// check to Run.
	Reads string
	// DescribeInput, when set, says what an input that is not folded
	// stacks looks like (ingest.Describe): stream.FoldedReader's errors
	// then name the step the user missed.
	DescribeInput func(prefix []byte) string
	// RefuseInput, when set, says what an input whose first line it is
	// given is for certain, when that is not folded stacks
	// (ingest.RefuseFolded): stream.FoldedReader stops there.
	RefuseInput func(firstLine []byte) string
	Run         cli.ActionFunc
}

// compressions is what every binary detects by magic bytes.
const compressions = "gzip/bzip2/zstd/lz4/xz detected"

// App returns the command's cli.App.
func (cmd *Command) App() *cli.App {
	usage := cmd.Name + " [options] [FILE...]   (no FILE or - reads stdin; " + compressions + ")"
	if cmd.Args != "" {
		usage = cmd.Name + " [options] " + cmd.Args + "   (" + compressions + ")"
	}
	if cmd.DescribeInput != nil {
		stream.DescribeInput = cmd.DescribeInput
	}
	if cmd.RefuseInput != nil {
		stream.RefuseInput = cmd.RefuseInput
	}
	return &cli.App{
		Name:        cmd.Name,
		Usage:       cmd.Usage,
		UsageText:   usage,
		Description: cmd.Description,
		Flags:       cmd.Flags,
		Metadata:    map[string]any{"examples": strings.Join(cmd.Examples, "\n")},
		Action: func(c *cli.Context) error {
			if cmd.Reads != "" && c.NArg() == 0 && IsTerminal(c.App.Reader) {
				return UsageErrorf("no input: give a file, or pipe %s into %s", cmd.Reads, cmd.Name)
			}
			return cmd.Run(c)
		},
	}
}

// Main runs the command as the process: see Main.
func (cmd *Command) Main() { Main(cmd.App()) }
