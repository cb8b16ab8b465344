/** The Upper-Layer Binding of the sample echo program ({@link org.iwarp4j.oncrpc.sample.EchoProgram}). */
package org.iwarp4j.rpcrdma.sample;
