/**
 * FoundationDB clusters in containers whose Resolver runs fdbresolver's engine, driven by fdb-java.
 *
 * <p>{@link org.fdbresolver.containers.cluster.FdbCluster} starts one fdbserver process per container
 * (image: {@code containers/fdb-cluster/Dockerfile}) on a private network, by process class:
 * stateless (coordinator and the transaction system's singletons), log, storage, and resolution
 * processes that tests kill. {@link org.fdbresolver.containers.cluster.BankWorkload} is the client
 * workload with the invariant a wrong resolver breaks; {@link org.fdbresolver.containers.cluster.TraceLog}
 * and {@link org.fdbresolver.containers.cluster.ResolverTimes} read what fdbserver traced.
 * {@code ResolverClusterIT} holds the tests, {@code ClusterBenchmarkIT} the stock-vs-plugin run.
 *
 * <p>Everything here needs the FoundationDB build ({@code scripts/build-fdb}); without it the tests
 * abort, saying so ({@link org.fdbresolver.containers.cluster.FdbBuild}). See docs/cluster.md.
 */
package org.fdbresolver.containers.cluster;
