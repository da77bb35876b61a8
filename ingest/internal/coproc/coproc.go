package coproc

import (
	"bufio"
	"io"
	"os/exec"
)

// Proc is a started command, its standard input and its buffered
// standard output.
type Proc struct {
	cmd *exec.Cmd
	In  io.WriteCloser
	Out *bufio.Reader
}

// Start starts cmd with its standard input and output piped (its
// standard error is what cmd.Stderr says: discarded when nil).
func Start(cmd *exec.Cmd) (*Proc, error) {
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &Proc{cmd: cmd, In: in, Out: bufio.NewReader(out)}, nil
}

// Close ends the command's input and waits for it to exit.
func (p *Proc) Close() {
	p.In.Close()
	p.cmd.Wait()
}
