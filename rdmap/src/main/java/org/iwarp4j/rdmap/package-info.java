/**
 * RDMAP (RFC 5040) and the verbs API: RNIC, protection domain, memory region, queue pair,
 * completion queue, connection manager. Not yet implemented: see the project's issue tracker.
 */
package org.iwarp4j.rdmap;
