/**
 * The reference engine: docs/formats.md's rules written plainly over a sorted map, the oracle that every other
 * engine is checked against. It deliberately shares no code with the batch pipeline or the history tree,
 * so that a bug there cannot hide from it.
 */
package org.fdbresolver.reference;
