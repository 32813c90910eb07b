package dev.distlock;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.asm.Handle;
import org.springframework.asm.Label;
import org.springframework.asm.MethodVisitor;
import org.springframework.asm.Opcodes;
import org.springframework.asm.Type;

/**
 * Reads the bytecode of one method and records the methods it calls, each with whether
 * the call is made while the method holds a monitor: inside a {@code synchronized}
 * method, or between a {@code monitorenter} and its {@code monitorexit}. The monitors
 * held at each instruction are followed along every path the code can take, exception
 * handlers included, so that the handler that releases a {@code synchronized} block's
 * monitor on an exception does not count as leaving an enclosing one.
 */
final class MethodCalls extends MethodVisitor {

	private static final String LAMBDA_METAFACTORY = "java/lang/invoke/LambdaMetafactory";

	/** More nested monitors than any compiled method holds; bounds the analysis. */
	private static final int MAX_DEPTH = 64;

	private final boolean synchronizedMethod;

	private final List<Instruction> instructions = new ArrayList<>();

	private final Map<Label, Integer> positions = new HashMap<>();

	private final List<Label[]> handlers = new ArrayList<>();

	private final List<Lambda> lambdas = new ArrayList<>();

	private List<Call> calls = List.of();

	/**
	 * Create a visitor for one method.
	 * @param synchronizedMethod whether the method is {@code synchronized}, holding its
	 * monitor throughout
	 */
	MethodCalls(boolean synchronizedMethod) {
		super(Opcodes.ASM9);
		this.synchronizedMethod = synchronizedMethod;
	}

	/**
	 * Return the calls of the method, in the order they appear; empty until the method
	 * was read to its end.
	 */
	List<Call> calls() {
		return this.calls;
	}

	/**
	 * Return the lambdas and method references the method creates, which run when their
	 * functional interface's method is called.
	 */
	List<Lambda> lambdas() {
		return this.lambdas;
	}

	@Override
	public void visitLabel(Label label) {
		this.positions.put(label, this.instructions.size());
	}

	@Override
	public void visitTryCatchBlock(Label start, Label end, Label handler, @Nullable String type) {
		this.handlers.add(new Label[] { start, end, handler });
	}

	@Override
	public void visitInsn(int opcode) {
		add(opcode);
	}

	@Override
	public void visitIntInsn(int opcode, int operand) {
		add(opcode);
	}

	@Override
	public void visitVarInsn(int opcode, int varIndex) {
		add(opcode);
	}

	@Override
	public void visitTypeInsn(int opcode, String type) {
		add(opcode);
	}

	@Override
	public void visitFieldInsn(int opcode, String owner, String name, String descriptor) {
		add(opcode);
	}

	@Override
	public void visitInvokeDynamicInsn(String name, String descriptor, Handle bootstrapMethodHandle,
			Object... bootstrapMethodArguments) {
		add(Opcodes.INVOKEDYNAMIC);
		if (bootstrapMethodHandle.getOwner().equals(LAMBDA_METAFACTORY)
				&& bootstrapMethodArguments[0] instanceof Type implemented
				&& bootstrapMethodArguments[1] instanceof Handle implementation) {
			boolean dispatched = implementation.getTag() == Opcodes.H_INVOKEVIRTUAL
					|| implementation.getTag() == Opcodes.H_INVOKEINTERFACE;
			this.lambdas.add(new Lambda(Type.getReturnType(descriptor).getInternalName(),
					name + implemented.getDescriptor(), new Call(implementation.getOwner(), implementation.getName(),
							implementation.getDesc(), dispatched, false)));
		}
	}

	@Override
	public void visitLdcInsn(Object value) {
		add(Opcodes.LDC);
	}

	@Override
	public void visitIincInsn(int varIndex, int increment) {
		add(Opcodes.IINC);
	}

	@Override
	public void visitMultiANewArrayInsn(String descriptor, int numDimensions) {
		add(Opcodes.MULTIANEWARRAY);
	}

	@Override
	public void visitJumpInsn(int opcode, Label label) {
		this.instructions.add(new Instruction(opcode, List.of(label), null));
	}

	@Override
	public void visitTableSwitchInsn(int min, int max, Label dflt, Label... labels) {
		this.instructions.add(new Instruction(Opcodes.TABLESWITCH, targets(dflt, labels), null));
	}

	@Override
	public void visitLookupSwitchInsn(Label dflt, int[] keys, Label[] labels) {
		this.instructions.add(new Instruction(Opcodes.LOOKUPSWITCH, targets(dflt, labels), null));
	}

	@Override
	public void visitMethodInsn(int opcode, String owner, String name, String descriptor, boolean isInterface) {
		boolean dispatched = opcode == Opcodes.INVOKEVIRTUAL || opcode == Opcodes.INVOKEINTERFACE;
		this.instructions.add(new Instruction(opcode, List.of(), new Call(owner, name, descriptor, dispatched, false)));
	}

	@Override
	public void visitEnd() {
		int[] monitors = monitorsHeld();
		List<Call> found = new ArrayList<>();
		for (int i = 0; i < this.instructions.size(); i++) {
			Call call = this.instructions.get(i).call;
			if (call != null) {
				found.add(call.made(monitors[i] > 0));
			}
		}
		this.calls = List.copyOf(found);
	}

	/**
	 * Return how many monitors the method holds before each instruction, along the path
	 * that holds the most (-1 for unreachable code).
	 */
	private int[] monitorsHeld() {
		int[] held = new int[this.instructions.size()];
		Arrays.fill(held, -1);
		Deque<Integer> pending = new ArrayDeque<>();
		if (held.length > 0) {
			held[0] = this.synchronizedMethod ? 1 : 0;
			pending.push(0);
		}
		while (!pending.isEmpty()) {
			int at = pending.pop();
			Instruction instruction = this.instructions.get(at);
			int after = Math.max(0, Math.min(MAX_DEPTH, held[at] + instruction.monitorChange()));
			List<Integer> next = new ArrayList<>();
			if (instruction.fallsThrough() && at + 1 < held.length) {
				next.add(at + 1);
			}
			instruction.targets.forEach((target) -> next.add(this.positions.get(target)));
			for (int successor : next) {
				flow(held, pending, successor, after);
			}
			for (Label[] handler : this.handlers) {
				if (this.positions.get(handler[0]) <= at && at < this.positions.get(handler[1])) {
					flow(held, pending, this.positions.get(handler[2]), held[at]);
				}
			}
		}
		return held;
	}

	private static void flow(int[] held, Deque<Integer> pending, int to, int monitors) {
		if (monitors > held[to]) {
			held[to] = monitors;
			pending.push(to);
		}
	}

	private void add(int opcode) {
		this.instructions.add(new Instruction(opcode, List.of(), null));
	}

	private static List<Label> targets(Label dflt, Label[] labels) {
		List<Label> targets = new ArrayList<>(List.of(labels));
		targets.add(dflt);
		return targets;
	}

	/**
	 * One method call.
	 *
	 * @param owner the internal name of the class or interface named in the call
	 * @param name the method's name
	 * @param descriptor the method's descriptor
	 * @param dispatched whether the call is dispatched on the receiver's class (virtual
	 * or interface), so that an overriding method may run
	 * @param insideMonitor whether the caller holds a monitor when it calls
	 */
	record Call(String owner, String name, String descriptor, boolean dispatched, boolean insideMonitor) {

		/**
		 * Return this call as made with or without a monitor held.
		 */
		Call made(boolean holdingAMonitor) {
			return new Call(this.owner, this.name, this.descriptor, this.dispatched, holdingAMonitor);
		}

		/**
		 * Return the called method's name and descriptor, which identify it within its
		 * class.
		 */
		String signature() {
			return this.name + this.descriptor;
		}

	}

	/**
	 * A lambda or method reference: the method of a functional interface it implements,
	 * and the call that runs when that method is called.
	 *
	 * @param functionalInterface the internal name of the functional interface
	 * @param signature the name and descriptor of the method it implements
	 * @param implementation the call of the lambda's body or of the referenced method
	 */
	record Lambda(String functionalInterface, String signature, Call implementation) {

	}

	/**
	 * One instruction, as far as the flow of monitors needs it.
	 */
	private record Instruction(int opcode, List<Label> targets, @Nullable Call call) {

		int monitorChange() {
			return switch (this.opcode) {
				case Opcodes.MONITORENTER -> 1;
				case Opcodes.MONITOREXIT -> -1;
				default -> 0;
			};
		}

		boolean fallsThrough() {
			return switch (this.opcode) {
				case Opcodes.GOTO, Opcodes.ATHROW, Opcodes.RET, Opcodes.TABLESWITCH, Opcodes.LOOKUPSWITCH,
						Opcodes.IRETURN, Opcodes.LRETURN, Opcodes.FRETURN, Opcodes.DRETURN, Opcodes.ARETURN,
						Opcodes.RETURN ->
					false;
				default -> true;
			};
		}

	}

}
