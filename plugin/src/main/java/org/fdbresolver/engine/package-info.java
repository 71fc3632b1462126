/**
 * The engine service-provider interface: what an engine implements ({@link org.fdbresolver.engine.ConflictEngine})
 * and how engines are found by name ({@link org.fdbresolver.engine.Engines}). Engines receive only batches
 * that {@link org.fdbresolver.api.ConflictSet} has validated.
 */
package org.fdbresolver.engine;
