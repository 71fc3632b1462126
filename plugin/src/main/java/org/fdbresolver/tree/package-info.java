/**
 * The write history as a B+ tree ({@link org.fdbresolver.tree.HistoryTree}, the facade): a step function
 * from keys to the latest commit version, one file per role — node storage and byte accounting
 * ({@code NodeStore}: fixed-size blocks in primitive arrays addressed by int handles), key layout
 * ({@code KeyLayout}, {@code KeyRefs}, {@code KeyArena}: a shared prefix, inline longs, packed key blocks;
 * {@code InnerPrefixes}, {@code LeafPrefixes}: nodes whose longs follow a prefix of their own),
 * searches and the two read paths ({@code TreeSearch}, {@code BatchRouter}, {@code SingleReadPath},
 * {@code BatchedReadPath}: one descent per read, or the batch's sorted reads routed together with their
 * memory accesses overlapped), the write path ({@code BatchWriter}: a batch's writes planned, then applied by
 * {@code PartitionedApply} in key-disjoint partitions, {@code PartitionWriter}: one partition's runs with B-link
 * splits; {@code TreeWriter}: single writes, for a tree of one leaf; {@code LeafEntries}: moves of leaf entries),
 * reclamation and the budget ({@code Reclaimer},
 * {@code MemoryBudget}, {@code VersionWindow}).
 * Also the {@code tree} engine that puts it behind the batch pipeline. See docs/tree.md.
 */
package org.fdbresolver.tree;
