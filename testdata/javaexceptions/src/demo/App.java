package demo;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.logging.FileHandler;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * Writes a log file (args[0]) the way a server does: request lines, and
 * the exceptions some requests end in, printed by java.util.logging with
 * their causes ("Caused by:", "... N more") and suppressed exceptions,
 * plus a thread dump (ThreadInfo, with "waiting on", "blocked on" and
 * "locked" lines) logged by a watchdog.
 */
public class App {
    static final Logger log = Logger.getLogger("demo.App");
    static final Object guard = new Object();

    public static void main(String[] args) throws Exception {
        System.setProperty("java.util.logging.SimpleFormatter.format",
                "%1$tF %1$tT.%1$tL %4$-7s [%3$s] %5$s%6$s%n");
        FileHandler fh = new FileHandler(args[0]);
        fh.setFormatter(new SimpleFormatter());
        log.setUseParentHandlers(false);
        log.addHandler(fh);

        log.info("starting, " + Runtime.getRuntime().availableProcessors() + " cpus");
        for (int i = 0; i < 60; i++) {
            log.info("handling request " + i);
            try {
                long r = Service.handle(i);
                log.fine("request " + i + " -> " + r);
            } catch (Exception e) {
                log.log(Level.SEVERE, "request " + i + " failed", e);
            }
        }

        ExecutorService pool = Executors.newFixedThreadPool(2);
        for (int i = 0; i < 6; i++) {
            int n = i;
            Future<Long> f = pool.submit(() -> Service.batch(n));
            try {
                log.info("batch " + n + " -> " + f.get());
            } catch (ExecutionException e) {
                log.log(Level.WARNING, "batch " + n + " failed", e);
            }
        }
        pool.shutdown();

        Thread holder = new Thread(App::holdGuard, "guard-holder");
        holder.setDaemon(true);
        holder.start();
        Thread.sleep(100);
        Thread blocked = new Thread(App::holdGuard, "guard-blocked");
        blocked.setDaemon(true);
        blocked.start();
        Thread.sleep(200);
        StringBuilder dump = new StringBuilder("watchdog: thread dump follows\n");
        for (ThreadInfo ti : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
            dump.append(ti);
        }
        log.warning(dump.toString());
        log.info("done");
        fh.close();
    }

    static void holdGuard() {
        synchronized (guard) {
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}

final class Service {
    private Service() {}

    static long handle(int i) throws Exception {
        switch (i % 6) {
            case 1:
                return Repository.load(i);
            case 2:
                return parse("x" + i);
            case 3:
                return withResource(i);
            case 4:
                return chain(i);
            case 5:
                if (i % 4 == 1) {
                    String s = null;
                    return s.length();
                }
                return i;
            default:
                return i;
        }
    }

    static long parse(String s) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad id " + s, e);
        }
    }

    static long withResource(int i) throws Exception {
        try (Resource r = new Resource(i)) {
            return r.use();
        }
    }

    static long chain(int i) {
        try {
            return Repository.load(i);
        } catch (IllegalStateException e) {
            throw new RuntimeException("request " + i + " gave up", e);
        }
    }

    static long batch(int n) throws IOException {
        if (n % 2 == 1) {
            throw new IOException("batch " + n + ": no space left");
        }
        return n * 10L;
    }
}

final class Repository {
    private Repository() {}

    static long load(int i) {
        try {
            return Storage.read(i);
        } catch (IOException e) {
            throw new IllegalStateException("cannot load " + i, e);
        }
    }
}

final class Storage {
    private Storage() {}

    static long read(int i) throws IOException {
        return seek(i);
    }

    private static long seek(int i) throws IOException {
        throw new IOException("read error at block " + i * 512);
    }
}

final class Resource implements AutoCloseable {
    private final int id;

    Resource(int id) {
        this.id = id;
    }

    long use() throws IOException {
        throw new IOException("resource " + id + " failed", new IllegalStateException("stale handle"));
    }

    @Override
    public void close() throws IOException {
        throw new IOException("close " + id + " failed");
    }
}
