package perfdata

import "testing"

// TestJavaName: the names of src/jitdump.c, as perf script printed them
// (TestRecordings/jitdump checks them in the recording), and where perf
// gives up.
func TestJavaName(t *testing.T) {
	checkDemangled(t, "the JVM's", map[string]string{
		"Lcom/example/Hot;crunch(I[JLjava/lang/String;)J":                                "com.example.Hot.crunch(int, long[], java.lang.String)",
		"Ljava/util/HashMap;put(Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;": "java.util.HashMap.put(java.lang.Object, java.lang.Object)",
		"LQ;a([Ljava/lang/String;I)V":                                                    "Q.a(java.lang.String, int[])",
		"LA;b(ZZZZZZZZ)V":                                                                "A.b(boolean, boolean, boolean, boolean, boole",
		"xLfoo;bar()V":                                                                   "xfoo.bar()",
	})
	for _, in := range []string{"RegExp:(a|b)*c", "LNoParens;field", "interp_loop", "f(x)", "a)b", "LA;b)(I)"} {
		if got := demangleName(in); got != in {
			t.Errorf("%s: %q, want it as it is", in, got)
		}
	}
}

func FuzzJavaName(f *testing.F) {
	f.Add("Lcom/example/Hot;crunch(I[JLjava/lang/String;)J")
	f.Add("LQ;a([Ljava/lang/String;I)V")
	f.Fuzz(func(t *testing.T, name string) {
		out, ok := javaName(name)
		if len(out) > 3*len(name) || !ok && out != "" {
			t.Fatalf("%q: %q, %v", name, out, ok)
		}
	})
}

// TestMangledNameAllocates: mangledName runs on every ELF symbol loaded.
func TestMangledNameAllocates(t *testing.T) {
	names := [][]byte{[]byte("camlFib__fib_96"), []byte("LQ;a([Ljava/lang/String;I)V"), []byte("_ZN3foo3barEv"), []byte("main")}
	if n := testing.AllocsPerRun(100, func() {
		for _, b := range names {
			mangledName(b)
		}
	}); n != 0 {
		t.Errorf("%v allocations", n)
	}
}
