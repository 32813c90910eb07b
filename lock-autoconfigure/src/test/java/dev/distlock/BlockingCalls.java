package dev.distlock;

import java.io.InputStream;
import java.io.Reader;
import java.net.DatagramSocket;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingDeque;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Exchanger;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.Future;
import java.util.concurrent.Phaser;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TransferQueue;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.asm.Type;

/**
 * The methods of the JDK (and Reactor) known to block the calling thread: waiting on a
 * monitor, sleeping, parking, waiting for locks, conditions, latches, semaphores, queues
 * and futures, and socket and stream I/O. A call is matched by the class it names and
 * that class's supertypes, so {@code CompletableFuture.get} is {@code Future.get} and
 * {@code ReentrantLock.lock} is {@code Lock.lock}. Methods that block only when given a
 * timeout ({@code tryLock}, {@code tryAcquire}, {@code poll}, {@code offer}) are matched
 * only with one.
 */
final class BlockingCalls {

	private static final String TIME_UNIT = Type.getDescriptor(TimeUnit.class);

	/**
	 * The descriptors of {@code Object.wait()}, {@code wait(long)} and
	 * {@code wait(long, int)}.
	 */
	private static final Set<String> MONITOR_WAITS = Set.of("()V", "(J)V", "(JI)V");

	private static final List<Blocking> KNOWN = List.of(new Blocking(Object.class, Set.of("wait"), false),
			new Blocking(Thread.class, Set.of("sleep", "join"), false),
			new Blocking(TimeUnit.class, Set.of("sleep", "timedWait", "timedJoin"), false),
			new Blocking(LockSupport.class, Set.of("park", "parkNanos", "parkUntil"), false),
			new Blocking(Condition.class, Set.of("await", "awaitNanos", "awaitUntil", "awaitUninterruptibly"), false),
			new Blocking(Lock.class, Set.of("lock", "lockInterruptibly"), false),
			new Blocking(Lock.class, Set.of("tryLock"), true),
			new Blocking(Semaphore.class, Set.of("acquire", "acquireUninterruptibly"), false),
			new Blocking(Semaphore.class, Set.of("tryAcquire"), true),
			new Blocking(CountDownLatch.class, Set.of("await"), false),
			new Blocking(CyclicBarrier.class, Set.of("await"), false),
			new Blocking(Phaser.class, Set.of("awaitAdvance", "awaitAdvanceInterruptibly", "arriveAndAwaitAdvance"),
					false),
			new Blocking(Exchanger.class, Set.of("exchange"), false), new Blocking(Future.class, Set.of("get"), false),
			new Blocking(CompletableFuture.class, Set.of("join"), false),
			new Blocking(ForkJoinTask.class, Set.of("join", "invoke"), false),
			new Blocking(BlockingQueue.class, Set.of("take", "put"), false),
			new Blocking(BlockingQueue.class, Set.of("poll", "offer"), true),
			new Blocking(BlockingDeque.class, Set.of("takeFirst", "takeLast", "putFirst", "putLast"), false),
			new Blocking(BlockingDeque.class, Set.of("pollFirst", "pollLast", "offerFirst", "offerLast"), true),
			new Blocking(TransferQueue.class, Set.of("transfer"), false),
			new Blocking(TransferQueue.class, Set.of("tryTransfer"), true),
			new Blocking(ExecutorService.class, Set.of("awaitTermination", "invokeAll", "invokeAny"), false),
			new Blocking(Process.class, Set.of("waitFor"), false),
			new Blocking(InputStream.class, Set.of("read", "readAllBytes", "readNBytes"), false),
			new Blocking(Reader.class, Set.of("read"), false), new Blocking(Socket.class, Set.of("connect"), false),
			new Blocking(ServerSocket.class, Set.of("accept"), false),
			new Blocking(DatagramSocket.class, Set.of("receive"), false),
			new Blocking(SocketChannel.class, Set.of("connect", "finishConnect", "read", "write"), false),
			new Blocking(Selector.class, Set.of("select"), false),
			new Blocking(Mono.class, Set.of("block", "blockOptional"), false),
			new Blocking(Flux.class, Set.of("blockFirst", "blockLast"), false));

	private final ClassLoader classLoader;

	private final Map<String, Optional<Class<?>>> owners = new ConcurrentHashMap<>();

	/**
	 * Create the matcher, loading the classes that calls name (without initializing them)
	 * through the given class loader.
	 */
	BlockingCalls(ClassLoader classLoader) {
		this.classLoader = classLoader;
	}

	/**
	 * Return whether the call waits on a monitor ({@code Object.wait}), which only a
	 * thread that holds the monitor may do.
	 */
	static boolean waitsOnAMonitor(MethodCalls.Call call) {
		return call.name().equals("wait") && MONITOR_WAITS.contains(call.descriptor());
	}

	/**
	 * Return whether the call is one of the known blocking methods.
	 */
	boolean blocks(MethodCalls.Call call) {
		Class<?> owner = owner(call.owner());
		if (owner == null) {
			return false;
		}
		for (Blocking blocking : KNOWN) {
			if (blocking.matches(owner, call)) {
				return true;
			}
		}
		return false;
	}

	private @Nullable Class<?> owner(String internalName) {
		return this.owners.computeIfAbsent(internalName, (name) -> {
			if (name.startsWith("[")) {
				return Optional.of(Object.class);
			}
			try {
				return Optional.of(Class.forName(name.replace('/', '.'), false, this.classLoader));
			}
			catch (ClassNotFoundException | LinkageError ex) {
				return Optional.empty();
			}
		}).orElse(null);
	}

	/**
	 * Blocking methods of one type and its subtypes.
	 *
	 * @param type the type that declares them
	 * @param names their names
	 * @param timedOnly whether they block only when given a {@code TimeUnit}
	 */
	private record Blocking(Class<?> type, Set<String> names, boolean timedOnly) {

		boolean matches(Class<?> owner, MethodCalls.Call call) {
			return this.type.isAssignableFrom(owner) && this.names.contains(call.name())
					&& (!this.timedOnly || call.descriptor().contains(TIME_UNIT));
		}

	}

}
