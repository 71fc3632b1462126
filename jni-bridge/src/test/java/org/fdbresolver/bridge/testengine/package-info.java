/** Engines registered only on the jni-bridge test class path, to provoke failures inside a batch. */
package org.fdbresolver.bridge.testengine;
