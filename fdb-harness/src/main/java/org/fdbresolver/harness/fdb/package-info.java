/**
 * FoundationDB's build as {@code scripts/build-fdb} leaves it, for the tests and tools that run
 * FoundationDB's own binaries beside the engine.
 */
package org.fdbresolver.harness.fdb;
