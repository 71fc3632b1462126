/**
 * The write history as a B+ tree ({@link org.fdbresolver.tree.HistoryTree}): a step function from keys
 * to the latest commit version, nodes as fixed-size blocks in primitive arrays addressed by int handles,
 * keys longer than 8 bytes in packed key blocks ({@code KeyArena}), per-child max versions so reads skip
 * old subtrees, incremental reclamation of expired history and a byte-exact memory budget. Also the
 * {@code tree} engine that puts it behind the batch pipeline. See docs/tree.md.
 */
package org.fdbresolver.tree;
