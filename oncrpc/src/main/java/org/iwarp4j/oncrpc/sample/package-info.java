/**
 * A sample ONC RPC program, echo and bulk transfer, that runs unchanged over plain TCP and
 * over RPC-over-RDMA: {@link org.iwarp4j.oncrpc.sample.EchoProgram} (server) and
 * {@link org.iwarp4j.oncrpc.sample.EchoClient} (client stub).
 */
package org.iwarp4j.oncrpc.sample;
