package javaopts

import (
	"fmt"
	"slices"

	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/internal/backtrace"
)

// ShortenPkgs are --shorten-pkgs and --no-shorten-pkgs.
var ShortenPkgs = []format.Flag{
	{Name: "shorten-pkgs", Kind: format.Bool, Default: "false", Usage: "jstack, ibmjava, java-exceptions: shorten package names to their initials (java.util.concurrent.FutureTask.run becomes j.u.c.FutureTask.run)"},
	{Name: "no-shorten-pkgs", Kind: format.Bool, Default: "false", Usage: "jstack, ibmjava, java-exceptions: keep package names whole (the default)"},
}

// Thread are the flags of the thread dump formats (jstack, ibmjava):
// --include-tname, --include-tid, --shorten-pkgs and their twins.
var Thread = slices.Concat([]format.Flag{
	{Name: "include-tname", Kind: format.Bool, Default: "true", Usage: "jstack, ibmjava: start each stack with its thread's name"},
	{Name: "no-include-tname", Kind: format.Bool, Default: "false", Usage: "jstack, ibmjava: leave thread names out of stacks"},
	{Name: "include-tid", Kind: format.Bool, Default: "false", Usage: "jstack, ibmjava: keep thread ids with thread names (jstack: the -N ending a name such as pool-1-thread-3; ibmjava: -0xNATIVEID)"},
	{Name: "no-include-tid", Kind: format.Bool, Default: "false", Usage: "jstack, ibmjava: leave thread ids out of thread names (the default)"},
}, ShortenPkgs)

// Negatable reads a Perl-style negatable option: name or no-name, def
// when neither is given. Both at once contradict each other.
func Negatable(opts format.Options, name string, def bool) (bool, error) {
	v := def
	if opts.IsSet(name) {
		v = opts.Bool(name)
	}
	if opts.Bool("no-" + name) {
		if opts.IsSet(name) && opts.Bool(name) {
			return false, fmt.Errorf("--%s and --no-%s contradict each other", name, name)
		}
		v = false
	}
	return v, nil
}

// AppendInitials appends pkgs, the package part of a frame (up to and
// with the separator before Class.method: "java.util.concurrent."), to
// dst as --shorten-pkgs shortens it, as the scripts do: every run of
// word characters (Perl's \w) cut to its first ("j.u.c.").
func AppendInitials(dst, pkgs []byte) []byte {
	inWord := false
	for _, c := range pkgs {
		w := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
		if !w || !inWord {
			dst = append(dst, c)
		}
		inWord = w
	}
	return dst
}

// ThreadOptions are the values of Thread's flags.
type ThreadOptions struct {
	Tname, Tid, Shorten bool
}

// ReadThread reads Thread's flags from opts.
func ReadThread(opts format.Options) (ThreadOptions, error) {
	var o ThreadOptions
	var err error
	if o.Tname, err = Negatable(opts, "include-tname", true); err != nil {
		return o, err
	}
	if o.Tid, err = Negatable(opts, "include-tid", false); err != nil {
		return o, err
	}
	o.Shorten, err = Negatable(opts, "shorten-pkgs", false)
	return o, err
}

// AppendThread appends the stack of a thread of a thread dump (jstack,
// ibmjava) to dst: its name first when it has one (hasName: the dump
// names it and --include-tname keeps names), then its frames outermost
// first; "-" for a thread named "" with no frames, as "" is no stack.
func AppendThread(dst, name []byte, hasName bool, frames *backtrace.Frames) []byte {
	s := dst
	if hasName {
		s = append(s, name...)
		if frames.Len() > 0 {
			s = append(s, ';')
		}
	}
	s = frames.AppendStack(s)
	if len(s) == len(dst) {
		s = append(s, '-')
	}
	return s
}
