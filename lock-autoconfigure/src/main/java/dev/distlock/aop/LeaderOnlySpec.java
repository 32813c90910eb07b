package dev.distlock.aop;

import java.lang.reflect.Method;

/**
 * What a {@link dev.distlock.LeaderOnly} method's annotation resolves to, once per
 * method.
 *
 * @param method the annotated method
 * @param description the method as messages name it, such as {@code ReportJob.generate()}
 * @param name the leadership's name, placeholders resolved
 * @param resultKind how the method delivers its result, which says what a skipped call
 * returns
 */
record LeaderOnlySpec(Method method, String description, String name, ResultKind resultKind) {

}
