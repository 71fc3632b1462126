/**
 * The Java side of the JNI bridge: what libfdbresolver (the C ABI in {@code jni-bridge/include/fdbresolver.h},
 * embedding a JVM in a C/C++ host such as fdbserver) calls. {@link org.fdbresolver.bridge.NativeResolver}
 * receives every call and turns exceptions into status codes; {@code NativeBatch} is the flyweight that
 * reads one batch from the host's memory and writes the decisions back, its layout documented in its
 * javadoc and in {@code docs/bridge-layout.md}. A batch crosses once, and each key is copied once, into the
 * engine's {@link org.fdbresolver.api.ConflictBatch}.
 */
package org.fdbresolver.bridge;
