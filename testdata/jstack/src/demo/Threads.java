package demo;

import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.Selector;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A workload for jstack recordings: threads that compute (RUNNABLE), sleep
 * (TIMED_WAITING), block on a monitor (BLOCKED), wait on a monitor or park
 * (WAITING), hold a ReentrantLock (for jstack -l), sit in epoll (RUNNABLE
 * but idle) and in socket accept/read (RUNNABLE but idle), plus a pool whose
 * thread names end in "-N". It prints its pid and runs until killed.
 */
public class Threads {
    static final Object monitor = new Object();
    static final Object waitRoom = new Object();
    static final ReentrantLock lock = new ReentrantLock();
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        System.out.println(ProcessHandle.current().pid());
        System.out.flush();

        start("busy-hash", Threads::hashLoop);
        start("busy-fib", Threads::fibLoop);
        start("sleeper", () -> {
            while (true) {
                sleep(1000);
            }
        });
        // holder keeps the monitor most of the time; the others block on it.
        start("holder", () -> {
            while (true) {
                synchronized (monitor) {
                    sleep(900);
                }
                sleep(5);
            }
        });
        for (int i = 1; i <= 2; i++) {
            start("blocked-" + i, () -> {
                while (true) {
                    synchronized (monitor) {
                        sink++;
                    }
                }
            });
        }
        start("waiter", () -> {
            synchronized (waitRoom) {
                while (true) {
                    try {
                        waitRoom.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        });
        start("lock-owner", () -> {
            lock.lock();
            try {
                while (true) {
                    sleep(1000);
                }
            } finally {
                lock.unlock();
            }
        });
        start("lock-parker", () -> {
            lock.lock();
            lock.unlock();
        });
        start("selector", () -> {
            try (Selector s = Selector.open()) {
                while (true) {
                    s.select();
                }
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        start("acceptor", () -> {
            try {
                while (true) {
                    Socket c = server.accept();
                    start("reader", () -> readAll(c));
                }
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        // A client that connects and never writes: its peer blocks in read.
        Socket client = new Socket(server.getInetAddress(), server.getLocalPort());

        ExecutorService pool = Executors.newFixedThreadPool(2);
        for (int i = 0; i < 2; i++) {
            pool.submit(() -> {
                while (true) {
                    sink += Work.sortChunk(4096);
                }
            });
        }
        mainLoop();
        client.close();
    }

    static void mainLoop() {
        while (true) {
            sink += Work.buildStrings(2000);
            sleep(20);
        }
    }

    static void readAll(Socket c) {
        try (InputStream in = c.getInputStream()) {
            byte[] buf = new byte[512];
            while (in.read(buf) >= 0) {
            }
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    static void hashLoop() {
        while (true) {
            sink += Work.hashRounds(100000);
        }
    }

    static void fibLoop() {
        while (true) {
            sink += Work.fib(27);
        }
    }

    static void start(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
    }

    static void sleep(long ms) {
        try {
            TimeUnit.MILLISECONDS.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
