package demo;

/**
 * Threads' workload plus two threads deadlocked on each other's monitor,
 * so that thread dumps end with HotSpot's "Found one Java-level deadlock"
 * report.
 */
public class Deadlock {
    static final Object left = new Object();
    static final Object right = new Object();

    public static void main(String[] args) throws Exception {
        pair("deadlock-1", left, right);
        pair("deadlock-2", right, left);
        Threads.main(args);
    }

    static void pair(String name, Object first, Object second) {
        Thread t = new Thread(() -> {
            synchronized (first) {
                Threads.sleep(200);
                synchronized (second) {
                    Threads.sink++;
                }
            }
        }, name);
        t.setDaemon(true);
        t.start();
    }
}
