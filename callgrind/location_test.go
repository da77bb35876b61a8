package callgrind

import (
	"bytes"
	"strconv"
	"testing"
)

func TestSplitLocation(t *testing.T) {
	for _, tc := range []struct {
		frame, name, file string
		line              uint64
		ok                bool
	}{
		// perf -F+srcline as pfold --srcline folds it, and
		// stackcollapse-perf.pl --inline --context.
		{"main:/opt/w/cwork.c:17", "main", "/opt/w/cwork.c", 17, true},
		{"ns::S::f(int):src/s.cc:120", "ns::S::f(int)", "src/s.cc", 120, true},
		{"leaf_a_[i]:cwork.c:6", "leaf_a_[i]", "cwork.c", 6, true},
		{"leaf_a:cwork.c:6_[i]", "leaf_a_[i]", "cwork.c", 6, true},
		{"do_syscall_64:arch/x86/entry/common.c:50_[k]", "do_syscall_64_[k]", "arch/x86/entry/common.c", 50, true},
		{"_start:??:0", "_start", UnknownFile, 0, true},
		{"operator new(unsigned long):new_op.cc:50", "operator new(unsigned long)", "new_op.cc", 50, true},
		// py-spy and Ruby-style.
		{"walk (tree.py:12)", "walk", "tree.py", 12, true},
		{"<module> (/srv/my app/app.py:40)", "<module>", "/srv/my app/app.py", 40, true},
		{"block (2 levels) in <main> (/srv/a.rb:3)", "block (2 levels) in <main>", "/srv/a.rb", 3, true},
		// rbspy.
		{"func1 - file1.rb:1", "func1", "file1.rb", 1, true},
		{"Integer#times - <cfunc>:0", "Integer#times", "<cfunc>", 0, true},
		// No location: returned whole.
		{"block (2 levels) in <main>", "block (2 levels) in <main>", "", 0, false},
		{"(garbage collection)", "(garbage collection)", "", 0, false},
		{"Anchors::Worker#hashy", "Anchors::Worker#hashy", "", 0, false},
		{"std::vector<int>::push_back", "std::vector<int>::push_back", "", 0, false},
		{"a::b:12", "a::b:12", "", 0, false},
		{"LazyCompile:*Async$consume /apps/node/async.js:39_[j]", "LazyCompile:*Async$consume /apps/node/async.js:39_[j]", "", 0, false},
		{"LazyCompile:~body_0 evalmachine.<anonymous>:1_[j]", "LazyCompile:~body_0 evalmachine.<anonymous>:1_[j]", "", 0, false},
		{"io/netty/util/Recycler:.recycle_[j]", "io/netty/util/Recycler:.recycle_[j]", "", 0, false},
		{"file.c:12", "file.c:12", "", 0, false},
		{":f.c:1", ":f.c:1", "", 0, false},
		{"f::1", "f::1", "", 0, false},
		{"f:x.c:", "f:x.c:", "", 0, false},
		{"f:x.c:1x", "f:x.c:1x", "", 0, false},
		{"f:x.c:99999999999999999999999", "f:x.c:99999999999999999999999", "", 0, false},
		{"f (x.c:)", "f (x.c:)", "", 0, false},
		{"f (:3)", "f (:3)", "", 0, false},
		{" - a:1", " - a:1", "", 0, false},
		{"[unknown]", "[unknown]", "", 0, false},
		{"", "", "", 0, false},
	} {
		name, file, line, ok := SplitLocation([]byte(tc.frame))
		if string(name) != tc.name || string(file) != tc.file || line != tc.line || ok != tc.ok {
			t.Errorf("SplitLocation(%q) = %q, %q, %d, %v; want %q, %q, %d, %v",
				tc.frame, name, file, line, ok, tc.name, tc.file, tc.line, tc.ok)
		}
	}
}

func FuzzSplitLocation(f *testing.F) {
	for _, s := range []string{
		"main:/opt/w/cwork.c:17", "leaf_a:cwork.c:6_[i]", "_start:??:0", "walk (tree.py:12)",
		"func1 - file1.rb:1", "block (2 levels) in <main>", "a::b:12",
		"LazyCompile:~body_0 evalmachine.<anonymous>:1_[j]", "f (x.c:)", "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		orig := bytes.Clone(frame)
		name, file, line, ok := SplitLocation(frame)
		if !bytes.Equal(frame, orig) {
			t.Fatalf("SplitLocation modified its input")
		}
		if !ok {
			if !bytes.Equal(name, frame) || file != nil || line != 0 {
				t.Fatalf("not split, but got %q, %q, %d", name, file, line)
			}
			return
		}
		if len(name) == 0 || len(file) == 0 {
			t.Fatalf("%q: empty name %q or file %q", frame, name, file)
		}
		// The line's digits, the file and the name (less any suffix)
		// are all in the frame, in that order reversed.
		digits := strconv.FormatUint(line, 10)
		if !bytes.Contains(frame, []byte(digits)) {
			t.Fatalf("%q: line %d not in the frame", frame, line)
		}
		if string(file) != UnknownFile && !bytes.Contains(frame, file) {
			t.Fatalf("%q: file %q not in the frame", frame, file)
		}
		body := name
		for _, a := range annotations {
			if bytes.HasSuffix(frame, []byte(a)) && bytes.HasSuffix(name, []byte(a)) {
				body = name[:len(name)-len(a)]
				break
			}
		}
		if !bytes.HasPrefix(frame, body) {
			t.Fatalf("%q: name %q is not its beginning", frame, name)
		}
	})
}
