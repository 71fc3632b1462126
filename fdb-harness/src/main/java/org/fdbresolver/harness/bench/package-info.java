/**
 * Benchmarks, apart from the code they measure: {@code WorkloadBench} runs the real workload generators
 * through an engine under JMH, and its {@code -prof gc} results prove the engines allocate nothing per
 * batch in steady state. The CLI's {@code bench} command is the everyday timing tool.
 */
package org.fdbresolver.harness.bench;
