package ingest

import (
	"reflect"
	"testing"

	"github.com/pfold/pfold/ingest/elfutils"
	"github.com/pfold/pfold/ingest/format"
	"github.com/pfold/pfold/ingest/jstack"
	"github.com/pfold/pfold/ingest/perfscript"
)

// TestUnusedFlags: an option given for a format no input is in is
// named, with its formats; one that some input's format has, or that
// was not given, is not.
func TestUnusedFlags(t *testing.T) {
	set := func(names ...string) func(string) bool {
		return func(n string) bool {
			for _, m := range names {
				if m == n {
					return true
				}
			}
			return false
		}
	}
	for _, tc := range []struct {
		given []string
		used  []*format.Format
		want  []string
	}{
		{[]string{"range"}, []*format.Format{&jstack.Format}, []string{"--range did nothing: it is an option of perf-data and perf-script, and no input was in any of them"}},
		{[]string{"range", "include-tid"}, []*format.Format{&jstack.Format, &perfscript.Format}, nil},
		{[]string{"pid"}, []*format.Format{&elfutils.Format}, nil},
		{[]string{"pid"}, []*format.Format{&jstack.Format}, []string{"--pid did nothing: it is an option of perf-data, elfutils, and perf-script, and no input was in any of them"}},
		{[]string{"include-tid"}, []*format.Format{&perfscript.Format}, []string{"--include-tid did nothing: it is an option of jstack and ibmjava, and no input was in any of them"}},
		{[]string{"range"}, nil, nil}, // nothing read: nothing to say
	} {
		if got := UnusedFlags(set(tc.given...), tc.used); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v given, %d formats used: %q, want %q", tc.given, len(tc.used), got, tc.want)
		}
	}
}
