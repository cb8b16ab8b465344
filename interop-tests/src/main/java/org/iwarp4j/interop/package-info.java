/**
 * Interoperability tests against real iWARP peers: Linux soft-iWARP (siw), Linux NFS/RDMA and
 * emulations of hardware RNICs' connection managers, run in a QEMU virtual machine that the
 * module's scripts build. The tests are under {@code src/test}; {@code docs/interop.md} says what
 * they cover and how to run them.
 */
package org.iwarp4j.interop;
