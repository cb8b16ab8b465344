/**
 * Interoperability tests against real iWARP peers (Linux siw, Linux NFS/RDMA).
 * Not yet implemented: see the project's issue tracker.
 */
package org.iwarp4j.interop;
