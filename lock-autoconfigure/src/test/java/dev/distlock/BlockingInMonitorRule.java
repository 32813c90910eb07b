package dev.distlock;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.asm.ClassReader;
import org.springframework.asm.ClassVisitor;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;

/**
 * The rule that no code blocks while it holds a monitor. On JDK 21 a virtual thread that
 * blocks inside a {@code synchronized} method or block pins its carrier thread (JDK 24
 * lifted that), so an application whose virtual threads wait for locks could run out of
 * carriers. The rule reads compiled classes and reports:
 * <ul>
 * <li>every call of {@code Object.wait}, which waits on a monitor by definition;</li>
 * <li>every call, made while a monitor is held, of a known blocking method
 * ({@link BlockingCalls}), or of a method of the scanned classes that may call one,
 * directly or through other scanned methods.</li>
 * </ul>
 * A call dispatched on its receiver counts as a call of every scanned method that
 * implements it, lambdas and method references included: calling {@code Runnable.run}
 * inside a monitor is calling every {@code Runnable} of the scanned code. Creating a
 * lambda inside a monitor calls nothing.
 */
final class BlockingInMonitorRule {

	private final Map<String, ScannedClass> classes = new LinkedHashMap<>();

	private final BlockingCalls blocking;

	/**
	 * What the lambdas and method references of the scanned classes call, by the method
	 * of the functional interface they implement ({@code interface.signature}).
	 */
	private final Map<String, List<MethodCalls.Call>> lambdas = new HashMap<>();

	/** The scanned methods that may block, with the calls through which they do. */
	private final Map<String, String> mayBlock = new LinkedHashMap<>();

	private BlockingInMonitorRule(Collection<byte[]> classFiles, ClassLoader classLoader) {
		this.blocking = new BlockingCalls(classLoader);
		classFiles.forEach(this::read);
		findMethodsThatMayBlock();
	}

	/**
	 * Scan the given classes together: calls between them are followed.
	 * @param classFiles the bytes of the class files
	 * @param classLoader loads the classes that calls name, to match them against the
	 * known blocking methods
	 * @return the rule's findings
	 */
	static BlockingInMonitorRule scan(Collection<byte[]> classFiles, ClassLoader classLoader) {
		return new BlockingInMonitorRule(classFiles, classLoader);
	}

	/**
	 * Return the methods that break the rule, as {@code Class.method waits on a monitor}
	 * or {@code Class.method blocks inside a monitor: calls ...}.
	 */
	List<String> violations() {
		List<String> violations = new ArrayList<>();
		forEachCall((caller, call) -> {
			if (BlockingCalls.waitsOnAMonitor(call)) {
				violations.add(caller + " waits on a monitor: calls java.lang.Object.wait");
			}
			else if (call.insideMonitor()) {
				String path = blockingPath(call);
				if (path != null) {
					violations.add(caller + " blocks inside a monitor: calls " + path);
				}
			}
		});
		return violations;
	}

	/**
	 * Return every call made while a monitor is held, as {@code Class.method calls
	 * Owner.method}: what the rule checked.
	 */
	List<String> callsInsideMonitors() {
		List<String> calls = new ArrayList<>();
		forEachCall((caller, call) -> {
			if (call.insideMonitor()) {
				calls.add(caller + " calls " + readable(call.owner(), call.name()));
			}
		});
		return calls;
	}

	private void forEachCall(CallConsumer consumer) {
		this.classes.values()
			.forEach((scanned) -> scanned.methods.forEach((signature, calls) -> calls
				.forEach((call) -> consumer.accept(readable(scanned.name, nameOf(signature)), call))));
	}

	/**
	 * Find every scanned method that calls a known blocking method, then those that call
	 * one of them, until no more are found.
	 */
	private void findMethodsThatMayBlock() {
		boolean found = true;
		while (found) {
			found = false;
			for (ScannedClass scanned : this.classes.values()) {
				for (Map.Entry<String, List<MethodCalls.Call>> method : scanned.methods.entrySet()) {
					String key = scanned.name + "." + method.getKey();
					if (this.mayBlock.containsKey(key)) {
						continue;
					}
					for (MethodCalls.Call call : method.getValue()) {
						String path = blockingPath(call);
						if (path != null) {
							this.mayBlock.put(key, path);
							found = true;
							break;
						}
					}
				}
			}
		}
	}

	/**
	 * Return how the call blocks: a scanned method it may run followed by what that calls
	 * that blocks, or the called method itself when it is a known blocking one (a scanned
	 * class may implement one); {@code null} if it is not known to block.
	 */
	private @Nullable String blockingPath(MethodCalls.Call call) {
		return blockingPath(call, true);
	}

	/**
	 * Return how the call blocks, following the lambdas and method references that a
	 * dispatched call may run only if asked to: not for those that a lambda runs itself,
	 * which could lead back to the first.
	 */
	private @Nullable String blockingPath(MethodCalls.Call call, boolean followLambdas) {
		if (followLambdas && call.dispatched()) {
			for (MethodCalls.Call lambda : this.lambdas.getOrDefault(call.owner() + "." + call.signature(),
					List.of())) {
				String path = blockingPath(lambda, false);
				if (path != null) {
					return readable(call.owner(), call.name()) + ", which may run " + path;
				}
			}
		}
		for (String target : implementations(call)) {
			String path = this.mayBlock.get(target);
			if (path != null) {
				int dot = target.indexOf('.');
				return readable(target.substring(0, dot), nameOf(target.substring(dot + 1))) + ", which calls " + path;
			}
		}
		return this.blocking.blocks(call) ? readable(call.owner(), call.name()) : null;
	}

	/**
	 * Return the scanned methods a call may run, as {@code owner.signature}: the one it
	 * resolves to among the called class and its scanned supertypes, and for a dispatched
	 * call those of the scanned subtypes too; empty when none is scanned.
	 */
	private Set<String> implementations(MethodCalls.Call call) {
		Set<String> targets = new HashSet<>();
		String declaring = declaring(call.owner(), call.signature());
		if (declaring != null) {
			targets.add(declaring + "." + call.signature());
		}
		if (call.dispatched()) {
			for (ScannedClass scanned : this.classes.values()) {
				if (scanned.methods.containsKey(call.signature()) && isSubtype(scanned.name, call.owner())) {
					targets.add(scanned.name + "." + call.signature());
				}
			}
		}
		return targets;
	}

	private @Nullable String declaring(String owner, String signature) {
		Deque<String> pending = new ArrayDeque<>(List.of(owner));
		while (!pending.isEmpty()) {
			ScannedClass scanned = this.classes.get(pending.pop());
			if (scanned != null) {
				if (scanned.methods.containsKey(signature)) {
					return scanned.name;
				}
				pending.addAll(scanned.supertypes);
			}
		}
		return null;
	}

	private boolean isSubtype(String type, String of) {
		Deque<String> pending = new ArrayDeque<>(List.of(type));
		while (!pending.isEmpty()) {
			String current = pending.pop();
			if (current.equals(of)) {
				return true;
			}
			ScannedClass scanned = this.classes.get(current);
			if (scanned != null) {
				pending.addAll(scanned.supertypes);
			}
		}
		return false;
	}

	private void read(byte[] classFile) {
		new ClassReader(classFile).accept(new ClassVisitor(Opcodes.ASM9) {

			private @Nullable ScannedClass scanned;

			@Override
			public void visit(int version, int access, String name, @Nullable String signature,
					@Nullable String superName, String @Nullable [] interfaces) {
				List<String> supertypes = new ArrayList<>();
				if (superName != null) {
					supertypes.add(superName);
				}
				if (interfaces != null) {
					supertypes.addAll(List.of(interfaces));
				}
				this.scanned = new ScannedClass(name, supertypes, new LinkedHashMap<>());
				BlockingInMonitorRule.this.classes.put(name, this.scanned);
			}

			@Override
			public MethodVisitor visitMethod(int access, String name, String descriptor, @Nullable String signature,
					String @Nullable [] exceptions) {
				MethodCalls calls = new MethodCalls((access & Opcodes.ACC_SYNCHRONIZED) != 0);
				ScannedClass owner = this.scanned;
				return new MethodVisitor(Opcodes.ASM9, calls) {

					@Override
					public void visitEnd() {
						super.visitEnd();
						if (owner != null) {
							owner.methods.put(name + descriptor, calls.calls());
						}
						calls.lambdas()
							.forEach((lambda) -> BlockingInMonitorRule.this.lambdas
								.computeIfAbsent(lambda.functionalInterface() + "." + lambda.signature(),
										(key) -> new ArrayList<>())
								.add(lambda.implementation()));
					}

				};
			}

		}, ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
	}

	private static String nameOf(String signature) {
		return signature.substring(0, signature.indexOf('('));
	}

	private static String readable(String internalName, String method) {
		return internalName.replace('/', '.') + "." + method;
	}

	/**
	 * Told of each call of each scanned method.
	 */
	@FunctionalInterface
	private interface CallConsumer {

		void accept(String caller, MethodCalls.Call call);

	}

	/**
	 * One scanned class: its name, its direct supertypes and the calls of each of its
	 * methods by name and descriptor.
	 */
	private record ScannedClass(String name, List<String> supertypes, Map<String, List<MethodCalls.Call>> methods) {

	}

}
