package perfdata

import "strings"

// A JIT's code written out by perf inject --jit (jitted-PID-N.so) is
// named as the JVM's perf agent names a method: its class's signature,
// its name and its signature ("Ljava/util/HashMap;put(Ljava/lang/Object;
// Ljava/lang/Object;)Ljava/lang/Object;"). perf 6.1 demangles any ELF
// name with a ')' that neither libiberty nor its OCaml rules take, as
// util/demangle-java.c does, without the return type:
// "java.util.HashMap.put(java.lang.Object, java.lang.Object)".

// javaBase names the JVM's one-letter types.
var javaBase = [256]string{
	'B': "byte", 'C': "char", 'D': "double", 'F': "float",
	'I': "int", 'J': "long", 'S': "short", 'Z': "boolean",
}

// javaName demangles name as perf does, quirks included: an array of
// objects marks the next base type as an array instead ("[Ljava/lang/
// String;I" is "java.lang.String, int[]"), and the result is cut at
// three times the name's length, perf's buffer. ok is false where perf
// gives up (a '(' before the class, a ')' outside the arguments, ...).
func javaName(name string) (string, bool) {
	end := strings.LastIndexByte(name, ')')
	if end < 0 {
		return "", false
	}
	const (
		prefix   = iota // before the class
		class           // in the class's signature
		method          // the method's name
		args            // the arguments
		argClass        // an argument's class
	)
	limit := 3 * len(name)
	b := make([]byte, 0, limit)
	mode, array, narg := prefix, 0, 0
	for q := 0; q <= end && len(b) < limit; q++ {
		c := name[q]
		switch c {
		case 'L':
			switch mode {
			case prefix:
				mode = class
			case args:
				if narg > 0 {
					b = append(b, ", "...)
				}
				narg++
				mode = argClass
			default:
				b = append(b, c)
			}
		case 'B', 'C', 'D', 'F', 'I', 'J', 'S', 'Z', 'V':
			if mode != args {
				b = append(b, c)
				break
			}
			if c == 'V' {
				b = append(b, "void"...)
			} else {
				if narg > 0 {
					b = append(b, ", "...)
				}
				b = append(b, javaBase[c]...)
				narg++
			}
			for ; array > 0; array-- {
				b = append(b, "[]"...)
			}
		case '[':
			if mode != args {
				return "", false
			}
			array++
		case '(':
			if mode != method {
				return "", false
			}
			b = append(b, c)
			mode = args
		case ')':
			if mode != args {
				return "", false
			}
			b = append(b, c)
			narg = 0
		case ';':
			switch mode {
			case class:
				if q+1 < len(name) && isAlpha(name[q+1]) {
					b = append(b, '.')
				}
				mode = method
			case argClass:
				mode = args
			default:
				return "", false
			}
		case '/':
			if mode != class && mode != argClass {
				return "", false
			}
			b = append(b, '.')
		default:
			b = append(b, c)
		}
	}
	return string(b[:min(len(b), limit)]), true
}

// isAlpha is the kernel's isalpha, which perf uses: Latin-1's letters
// count.
func isAlpha(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || c >= 0xc0 && c != 0xd7 && c != 0xf7
}
