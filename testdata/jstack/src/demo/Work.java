package demo;

import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/** CPU work for the busy threads of Threads, a few calls deep. */
final class Work {
    private Work() {}

    static long hashRounds(int n) {
        long h = 0;
        for (int i = 0; i < n; i++) {
            h = mix(h, i);
        }
        return h;
    }

    private static long mix(long h, int i) {
        h ^= Long.rotateLeft(h * 0x9E3779B97F4A7C15L, 31) + i;
        return h * 0xBF58476D1CE4E5B9L;
    }

    static long fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    static long sortChunk(int n) {
        int[] a = new int[n];
        ThreadLocalRandom r = ThreadLocalRandom.current();
        for (int i = 0; i < n; i++) {
            a[i] = r.nextInt();
        }
        Arrays.sort(a);
        return a[n / 2];
    }

    static long buildStrings(int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            sb.append(Integer.toHexString(i * 31)).append(',');
        }
        return sb.toString().hashCode();
    }
}
