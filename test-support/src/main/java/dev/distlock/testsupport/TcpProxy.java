package dev.distlock.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A loopback TCP proxy in front of one server port that can slow down, stall or cut the
 * traffic between a client and the server, for tests of what a client does when the
 * network misbehaves.
 * <p>
 * Every accepted connection gets one connection to the server and, per direction, a
 * reader thread and a writer thread, so that a latency delays each chunk by that much
 * after it arrived rather than adding up. Threads are daemons and all of them stop on
 * {@link #close()}; a stall holds the bytes in memory (a test's traffic is small).
 * <pre class="code">
 * try (TcpProxy proxy = TcpProxy.start(redis.port())) {
 *     // point the client at proxy.port()
 *     proxy.setLatency(Duration.ofMillis(400));
 *     proxy.setReplyLatency(Duration.ofMillis(300));
 *     proxy.stall();
 *     proxy.stallRequests();
 *     proxy.stallOpenConnections();
 *     proxy.cutConnections();
 *     proxy.heal();
 * }
 * </pre>
 * <p>
 * A peer that closes or resets its connection closes it through the proxy once the bytes
 * it sent before went through, as the network delivers the packets sent before a close: a
 * stalled client's last command reaches the server after the heal even if the client gave
 * up on it.
 */
public final class TcpProxy implements AutoCloseable {

	private static final int BUFFER_SIZE = 16 * 1024;

	private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

	private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(5);

	private final int targetPort;

	private final ServerSocket serverSocket;

	private final Thread acceptor;

	private final Set<Link> links = ConcurrentHashMap.newKeySet();

	private final List<Thread> threads = new CopyOnWriteArrayList<>();

	private final Object lock = new Object();

	private long latencyNanos;

	private long replyLatencyNanos;

	private boolean stalled;

	private boolean requestsStalled;

	private boolean cut;

	private volatile boolean closed;

	private TcpProxy(int targetPort, ServerSocket serverSocket) {
		this.targetPort = targetPort;
		this.serverSocket = serverSocket;
		this.acceptor = daemon("tcp-proxy-" + serverSocket.getLocalPort() + "-accept", this::acceptLoop);
		this.acceptor.start();
	}

	/**
	 * Starts a proxy on a free loopback port that forwards to {@code targetPort} on
	 * {@code 127.0.0.1}.
	 * @param targetPort the server's port
	 * @return the running proxy
	 */
	public static TcpProxy start(int targetPort) {
		try {
			ServerSocket serverSocket = new ServerSocket(0, 50, InetAddress.getByName(RedisServer.HOST));
			return new TcpProxy(targetPort, serverSocket);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not open a proxy port", ex);
		}
	}

	/**
	 * Returns the port clients connect to.
	 * @return the proxy's port
	 */
	public int port() {
		return this.serverSocket.getLocalPort();
	}

	/**
	 * Returns a Redis URI that goes through this proxy.
	 * @return {@code redis://127.0.0.1:port}
	 */
	public String uri() {
		return "redis://" + RedisServer.HOST + ":" + port();
	}

	/**
	 * Delays every chunk of bytes, in both directions, by the given time after it arrived
	 * at the proxy. Applies to every chunk not forwarded yet.
	 * @param latency the one-way delay; zero for none
	 */
	public void setLatency(Duration latency) {
		synchronized (this.lock) {
			this.latencyNanos = latency.toNanos();
			this.lock.notifyAll();
		}
	}

	/**
	 * Delays every chunk of bytes from the server to the client, and only those, by the
	 * given time after it arrived at the proxy, on top of {@link #setLatency(Duration)}:
	 * commands reach the server at once and their replies come late. Applies to every
	 * chunk not forwarded yet.
	 * @param latency the delay of the replies; zero for none
	 */
	public void setReplyLatency(Duration latency) {
		synchronized (this.lock) {
			this.replyLatencyNanos = latency.toNanos();
			this.lock.notifyAll();
		}
	}

	/**
	 * Stops forwarding bytes in both directions, keeping the connections open: the peers
	 * see a silent network. Bytes that arrive meanwhile are held until {@link #heal()}.
	 */
	public void stall() {
		synchronized (this.lock) {
			this.stalled = true;
		}
	}

	/**
	 * Stops forwarding bytes from the client to the server, keeping the connections open,
	 * while the server's replies flow on: the commands sent before reach their answers,
	 * the ones sent later are held until {@link #heal()}.
	 */
	public void stallRequests() {
		synchronized (this.lock) {
			this.requestsStalled = true;
		}
	}

	/**
	 * Stops forwarding bytes in both directions on the connections open now, keeping them
	 * open, while connections opened later flow: one client connection of a pool sees a
	 * silent network while the others work. Bytes that arrive meanwhile are held until
	 * {@link #heal()}.
	 */
	public void stallOpenConnections() {
		synchronized (this.lock) {
			for (Link link : this.links) {
				link.stalled = true;
			}
		}
	}

	/**
	 * Closes every open connection on both sides and refuses new ones (accepting and
	 * closing them at once) until {@link #heal()}.
	 */
	public void cutConnections() {
		synchronized (this.lock) {
			this.cut = true;
		}
		for (Link link : this.links) {
			link.close();
		}
	}

	/**
	 * Forwards bytes again without delay and accepts new connections: held bytes flow on.
	 */
	public void heal() {
		synchronized (this.lock) {
			this.latencyNanos = 0;
			this.replyLatencyNanos = 0;
			this.stalled = false;
			this.requestsStalled = false;
			this.cut = false;
			for (Link link : this.links) {
				link.stalled = false;
			}
			this.lock.notifyAll();
		}
	}

	/**
	 * Returns how many connections are open through the proxy.
	 * @return the number of open connections
	 */
	public int openConnections() {
		return this.links.size();
	}

	/**
	 * Closes the proxy port and every connection, and waits for the proxy's threads to
	 * end.
	 */
	@Override
	public void close() {
		this.closed = true;
		try {
			this.serverSocket.close();
		}
		catch (IOException ex) {
			// Closing anyway
		}
		for (Link link : this.links) {
			link.close();
		}
		synchronized (this.lock) {
			this.lock.notifyAll();
		}
		join(this.acceptor);
		for (Thread thread : this.threads) {
			join(thread);
		}
	}

	@Override
	public String toString() {
		return "TCP proxy 127.0.0.1:" + port() + " -> 127.0.0.1:" + this.targetPort;
	}

	private void acceptLoop() {
		while (!this.closed) {
			Socket client;
			try {
				client = this.serverSocket.accept();
			}
			catch (IOException ex) {
				return;
			}
			boolean refuse;
			synchronized (this.lock) {
				refuse = this.cut;
			}
			if (refuse || this.closed) {
				closeQuietly(client);
				continue;
			}
			Socket server = new Socket();
			try {
				server.connect(new InetSocketAddress(RedisServer.HOST, this.targetPort),
						Math.toIntExact(CONNECT_TIMEOUT.toMillis()));
			}
			catch (IOException ex) {
				closeQuietly(client);
				closeQuietly(server);
				continue;
			}
			Link link = new Link(client, server);
			this.links.add(link);
			link.start();
		}
	}

	private Thread daemon(String name, Runnable task) {
		Thread thread = new Thread(task, name);
		thread.setDaemon(true);
		return thread;
	}

	private static void join(Thread thread) {
		try {
			thread.join(JOIN_TIMEOUT.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		if (thread.isAlive()) {
			throw new IllegalStateException(thread.getName() + " did not end within " + JOIN_TIMEOUT);
		}
	}

	private static void closeQuietly(Socket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// Nothing more to do
		}
	}

	/**
	 * One proxied connection: a client socket, its server socket and two pipes.
	 */
	private final class Link {

		private final Socket client;

		private final Socket server;

		private final Pipe upstream;

		private final Pipe downstream;

		/** Whether this connection's bytes are held; guarded by the proxy's lock. */
		private boolean stalled;

		Link(Socket client, Socket server) {
			this.client = client;
			this.server = server;
			String name = "tcp-proxy-" + port() + "-" + client.getPort();
			this.upstream = new Pipe(name + "-up", client, server, this, false);
			this.downstream = new Pipe(name + "-down", server, client, this, true);
		}

		void start() {
			this.upstream.start();
			this.downstream.start();
		}

		void close() {
			TcpProxy.this.links.remove(this);
			closeQuietly(this.client);
			closeQuietly(this.server);
			this.upstream.stop();
			this.downstream.stop();
		}

	}

	/**
	 * Bytes in one direction: a reader that stamps each chunk with its arrival time and a
	 * writer that forwards it once the latency has passed and the proxy is not stalled.
	 */
	private final class Pipe {

		private static final Chunk END = new Chunk(new byte[0], 0);

		private final Socket from;

		private final Socket to;

		private final Link link;

		/** Whether this pipe carries the server's replies to the client. */
		private final boolean replies;

		private final LinkedBlockingQueue<Chunk> chunks = new LinkedBlockingQueue<>();

		private final Thread reader;

		private final Thread writer;

		private volatile boolean stopped;

		Pipe(String name, Socket from, Socket to, Link link, boolean replies) {
			this.from = from;
			this.to = to;
			this.link = link;
			this.replies = replies;
			this.reader = daemon(name + "-read", this::read);
			this.writer = daemon(name + "-write", this::write);
			TcpProxy.this.threads.add(this.reader);
			TcpProxy.this.threads.add(this.writer);
		}

		void start() {
			this.reader.start();
			this.writer.start();
		}

		void stop() {
			this.stopped = true;
			this.chunks.offer(END);
			synchronized (TcpProxy.this.lock) {
				TcpProxy.this.lock.notifyAll();
			}
		}

		private void read() {
			byte[] buffer = new byte[BUFFER_SIZE];
			try {
				InputStream in = this.from.getInputStream();
				for (int read = in.read(buffer); read >= 0 && !this.stopped; read = in.read(buffer)) {
					this.chunks.offer(new Chunk(Arrays.copyOf(buffer, read), System.nanoTime()));
				}
			}
			catch (IOException ex) {
				// Reset by the peer (Jedis closes with a reset), or closed by the link
			}
			// The writer closes the link once the bytes read before went through.
			this.chunks.offer(END);
		}

		private void write() {
			try {
				OutputStream out = this.to.getOutputStream();
				while (!this.stopped) {
					Chunk chunk = this.chunks.poll(100, TimeUnit.MILLISECONDS);
					if (chunk == null) {
						continue;
					}
					if (chunk == END || !awaitDue(chunk)) {
						return;
					}
					out.write(chunk.bytes);
					out.flush();
				}
			}
			catch (IOException ex) {
				// Closed by a cut or by the peer
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				this.link.close();
			}
		}

		/**
		 * Wait until the chunk may be forwarded.
		 * @return {@code false} if the pipe was stopped meanwhile
		 */
		private boolean awaitDue(Chunk chunk) throws InterruptedException {
			synchronized (TcpProxy.this.lock) {
				while (!this.stopped && !TcpProxy.this.closed) {
					boolean stalled = TcpProxy.this.stalled || this.link.stalled
							|| (!this.replies && TcpProxy.this.requestsStalled);
					long latency = TcpProxy.this.latencyNanos + (this.replies ? TcpProxy.this.replyLatencyNanos : 0);
					long wait = stalled ? TimeUnit.MILLISECONDS.toNanos(100)
							: chunk.arrivedNanos + latency - System.nanoTime();
					if (!stalled && wait <= 0) {
						return true;
					}
					TimeUnit.NANOSECONDS.timedWait(TcpProxy.this.lock, wait);
				}
				return false;
			}
		}

	}

	private record Chunk(byte[] bytes, long arrivedNanos) {

	}

}
