/**
 * Direct Data Placement (RFC 5041) for the RDMAP engine: the DDP segment formats, segmentation of
 * outbound messages, and the Data Sink's placement with its protection checks.
 *
 * <ul>
 *   <li>Wire formats (§4): {@link org.iwarp4j.ddp.DdpConstants}, {@link org.iwarp4j.ddp.TaggedHeader},
 *       {@link org.iwarp4j.ddp.UntaggedHeader}, {@link org.iwarp4j.ddp.DdpSegment#decode} and
 *       {@link org.iwarp4j.ddp.DdpSegment#encode}.</li>
 *   <li>Data Source (§5.2, §5.3): {@link org.iwarp4j.ddp.DdpSegmenter} and
 *       {@link org.iwarp4j.ddp.MsnSequence}.</li>
 *   <li>Data Sink (§5.3, §5.4, §7.1, §8): {@link org.iwarp4j.ddp.StagTable} of
 *       {@link org.iwarp4j.ddp.TaggedBuffer}s (one per RNIC, thread-safe),
 *       {@link org.iwarp4j.ddp.UntaggedQueue} of {@link org.iwarp4j.ddp.ReceiveBuffer}s per QN and
 *       {@link org.iwarp4j.ddp.DdpReceiver} per stream (event-loop confined).</li>
 *   <li>Errors (§7.2): {@link org.iwarp4j.ddp.DdpError}, {@link org.iwarp4j.ddp.DdpException},
 *       {@link org.iwarp4j.ddp.StagCheck}.</li>
 * </ul>
 *
 * <p>Buffers follow Netty's reference counting; every method says who releases what. DDP never
 * owns registered memory or posted receive buffers, and never closes a stream (RFC 5041 §6.2).
 */
package org.iwarp4j.ddp;
